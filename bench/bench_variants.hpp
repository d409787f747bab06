// The measurement loops and the MPI variants every benchmark suite shares:
// ping-pong latency and streaming rate, over notified windows of any
// backend, host put+flag and host send/recv. Two ranks; `bench::rank` and
// `bench::peer` say which this is.
#pragma once

#include <mpi_notify.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace bench {

inline int rank = 0;
inline int peer = 1;
constexpr std::size_t kMaxBytes = std::size_t{1} << 20;

// Command-line flags every benchmark takes.
struct Options {
  bool json = false;   // --json: one JSON object per result
  bool quick = false;  // --quick: fewer rounds and iterations
};
Options parse_options(int argc, char **argv);

// Sets `rank` and `peer`; false (after saying why on rank 0) unless the job
// has exactly two ranks.
bool two_ranks(const char *program);

// Exchanges a byte string with the peer (for raw floors' addresses and
// keys).
std::string swap_with_peer(const std::string &mine);

// One iteration of a ping-pong: one round trip, the value `iteration`
// (1, 2, ...) travelling each way.
using RoundTrip = std::function<void(long iteration)>;

// Ping-pongs spread their round trips over kLanes cache lines (counters or
// flags): between two cores, one line's round trip depends on where its
// address is homed, up to 25% apart between lines of one run on these VMs,
// so a variant on one line against a floor on another compared addresses,
// not code (docs/performance.md). Round trip `iteration` uses lane
// (iteration - 1) % kLanes, which it finds at `value`.
constexpr int kLanes = 16;
struct Lane {
  int index = 0;   // the counter, or the flag line, of this round trip
  long value = 0;  // what that counter or flag reaches with it
};
inline Lane lane_of(long iteration) {
  return {static_cast<int>((iteration - 1) % kLanes), (iteration - 1) / kLanes + 1};
}
// Byte offset of a flag lane in a PlainWindow, after the data.
constexpr std::size_t flag_offset(int lane) {
  return kMaxBytes + 64 * static_cast<std::size_t>(lane + 1);
}

// Polls counter idx of this rank until it reaches `at_least`.
void wait_counter(MPI_Win win, int idx, MPI_Count at_least);
// Spins on a word in shared memory (acquire loads) until it reaches
// `at_least`: the floors' wait.
void spin_until(const std::int64_t *word, std::int64_t at_least);

// Even ranks send then receive; odd ranks the other way round.
void ping_pong(const std::function<void()> &send, const std::function<void()> &receive);

// One measurement of a variant (the same value on both ranks).
using Sample = std::function<double()>;

// One-way time in microseconds: `iterations` round trips timed on rank 0,
// halved. `next` numbers the round trips on the same counter or flag
// across samples and message sizes (it must outlive the sample).
// `settle`, if given, runs on both ranks after the round trips: it
// completes what the last one left (a blocking form's gathered increment).
Sample one_way_us(RoundTrip round_trip, long iterations, long &next,
                  std::function<void()> settle = {});

// Streaming: rank 0 runs `send` n times and `complete` once, rank 1
// `wait_all` once, then acknowledges; millions of messages per second over
// rank 0's time from start to acknowledgement.
Sample rate(
    long n, std::function<void(long)> send, std::function<void(long total)> wait_all,
    std::function<void()> complete = [] {});

// The median of each variant over `rounds` rounds, every variant measured
// once per round (after one warm-up round), so that a change of the
// machine's state during the run (these VMs move vCPUs) affects all alike.
std::map<std::string, double> interleaved(
    const std::vector<std::pair<std::string, Sample>> &variants, int rounds);

// A window of kMaxBytes plus kLanes flag lines, without notifications, in
// a lock_all epoch.
struct PlainWindow {
  MPI_Win win = MPI_WIN_NULL;
  char *base = nullptr;
  explicit PlainWindow(bool shared);
  ~PlainWindow();
  PlainWindow(const PlainWindow &) = delete;
  PlainWindow &operator=(const PlainWindow &) = delete;
};

// A notifying window of kMaxBytes and kLanes counters served by `backend`,
// in a lock_all epoch. Unless `required`, a backend that cannot serve it
// leaves `win` MPI_WIN_NULL on every rank instead of aborting.
struct NotifyWindow {
  MPI_Win win = MPI_WIN_NULL;
  char *base = nullptr;
  explicit NotifyWindow(const char *backend, bool required = true);
  ~NotifyWindow();
  NotifyWindow(const NotifyWindow &) = delete;
  NotifyWindow &operator=(const NotifyWindow &) = delete;
};

// MPI_Put_notify of `bytes` (then MPI_Win_flush when `flush`); the peer
// waits on the round trip's lane counter with MPI_Win_get_notify_value.
RoundTrip notified_round_trip(const NotifyWindow &w, std::size_t bytes,
                              const std::vector<char> &buffer, bool flush);
// Raw shared memory, no MPI in the loop: memcpy of `bytes` into the peer's
// memory (a shared window), then a store (release) of the round trip's
// lane flag; the peer spins on its flag.
RoundTrip floor_round_trip(const PlainWindow &w, std::size_t bytes,
                           const std::vector<char> &buffer);
// Host MPI_Put + flush, then a flag MPI_Accumulate + flush; the peer polls
// the round trip's lane flag (see poll_flag).
RoundTrip putflag_round_trip(const PlainWindow &w, std::size_t bytes,
                             const std::vector<char> &buffer);
// Host MPI_Send / MPI_Recv.
RoundTrip sendrecv_round_trip(std::size_t bytes, std::vector<char> &buffer);

// Streaming 8-byte notified puts on a window of `backend` (the sample owns
// it), with a flush every `flush_every` puts and at the end.
Sample notified_rate(const char *backend, long n, long flush_every);
// Streaming 8-byte host put + flush + flag accumulate + flush.
Sample putflag_rate(long n);

}  // namespace bench
