// The message exchange (include/mpinotify/exchange.hpp): an all-to-all
// shuffle in which every rank sends M messages (64 bytes of metadata and
// a payload of the given size) to every other rank, for the tag-based and
// the notified implementation in one run (all sizes of the tag-based one
// first, before any window exists; --interleaved: a round of each in
// turn), on whatever backend the library chooses (MPINOTIFY_BACKEND).
// Per payload size: messages per second and payload GB/s over the slowest
// rank's time from its first send to idle (after finish), medians of the
// rounds, and the ratio notified/tag. Every payload is checked on
// arrival; a wrong or missing one fails the run.
//
// --limited: a shuffle of 256 MiB per rank (1 GiB on four ranks) in 4 MiB
// payloads into a receive resource limited to 64 MiB (overbooking allowed
// for the forced receives, which are kept in memory), each payload checked
// and freed as it arrives: prints the peak receive memory against the
// limit plus one forced message.
//
// From 64 KiB up the run also measures "puts", the bandwidth the backend
// gives on its own: the same payloads, from as many distinct buffers, as
// one MPI_Put_notify each into a window of the peer (a few slots per
// sender, reused), then one flush; no records, credit or copy out.
//
// --kind=tag or --kind=notified: that kind alone (for profiling one).
//
// --footprint: what an exchange of each kind holds on a rank before it
// moves a byte, with every other rank as a peer: its windows' bytes and
// counters (MetadataPayloadExchange::footprint), and the growth of the
// rank's share of resident memory (Pss: shared pages split among the
// processes that map them) across its construction, for a first exchange
// and for a second one with another op id; the largest of any rank, and
// per peer. (The first one's growth also holds what MPI and the library
// set up once.)
//
//   exchange_bench [--json] [--quick] [--size=BYTES ...] [--kind=KIND] [--interleaved]
//                  [--limited] [--footprint]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench_memory.hpp"
#include "bench_report.hpp"
#include "mpi_notify.h"
#include "mpinotify/exchange.hpp"

namespace {

using mpinotify::BufferResource;
using mpinotify::ExchangeKind;
using mpinotify::Message;

constexpr std::size_t kMetadataBytes = 64;

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}
int size_of(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return size;
}

// The byte every payload of (sender, index) is filled with.
std::byte fill_of(int sender, int index) {
  return static_cast<std::byte>((sender * 31 + index * 7) & 0xff);
}

struct Shuffle {
  std::size_t payload_bytes = 0;
  int messages_per_peer = 0;
  std::shared_ptr<BufferResource> receive;  // receive buffers come from here
  mpinotify::ExchangeOptions options = {};
};

// Checks one arrived message: its metadata names sender and index, its
// payload (first, middle, last byte) carries their fill. False if wrong.
bool check(const Message &message, std::size_t payload_bytes) {
  const auto &metadata = message.metadata();
  if (metadata.size() != kMetadataBytes) return false;
  int sender = 0;
  int index = 0;
  std::memcpy(&sender, metadata.data(), sizeof sender);
  std::memcpy(&index, metadata.data() + sizeof sender, sizeof index);
  if (sender != message.peer_rank()) return false;
  if (payload_bytes == 0) return message.data() == nullptr;
  if (message.data() == nullptr || message.data()->size() != payload_bytes) return false;
  const auto bytes = message.data()->data();
  const std::byte fill = fill_of(sender, index);
  return bytes[0] == fill && bytes[payload_bytes / 2] == fill && bytes[payload_bytes - 1] == fill;
}

// One shuffle; returns the slowest rank's seconds from first send to idle
// (or a negative value if a message was wrong or missing anywhere).
double run_shuffle(ExchangeKind kind, int op_id, const Shuffle &how) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const int me = rank_of(comm);
  const int size = size_of(comm);
  std::vector<int> peers;
  for (int r = 0; r < size; ++r) {
    if (r != me) peers.push_back(r);
  }
  auto exchange =
      mpinotify::make_exchange(kind, comm, op_id, peers, mpinotify::default_allocate_fn(),
                               std::chrono::milliseconds(20), how.receive, how.options);
  auto send_memory = BufferResource::create({.host_limit = std::size_t{1} << 40});
  // Payloads are made before the clock starts.
  std::vector<std::unique_ptr<Message>> outgoing;
  for (int i = 0; i < how.messages_per_peer; ++i) {
    for (const int peer : peers) {
      std::vector<std::uint8_t> metadata(kMetadataBytes, 0);
      std::memcpy(metadata.data(), &me, sizeof me);
      std::memcpy(metadata.data() + sizeof me, &i, sizeof i);
      std::unique_ptr<mpinotify::Buffer> payload;
      if (how.payload_bytes > 0) {
        auto reservation = send_memory->reserve(how.payload_bytes);
        payload = send_memory->make_buffer(reservation, how.payload_bytes);
        std::memset(payload->data().data(), static_cast<int>(fill_of(me, i)), how.payload_bytes);
      }
      outgoing.push_back(std::make_unique<Message>(peer, std::move(metadata), std::move(payload)));
    }
  }
  const std::size_t expected = peers.size() * static_cast<std::size_t>(how.messages_per_peer);
  std::size_t received = 0;
  bool right = true;
  MPI_Barrier(comm);
  const double start = MPI_Wtime();
  exchange->send(std::move(outgoing));
  exchange->finish();
  while (!exchange->is_idle()) {
    exchange->progress();
    for (const auto &message : exchange->recv()) {
      right = right && check(*message, how.payload_bytes);
      ++received;
    }
  }
  double seconds = MPI_Wtime() - start;
  right = right && received == expected;
  int all_right = right ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all_right, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  return all_right != 0 ? seconds : -1.0;
}

// The window the payloads are put into when they go as plain notified
// puts: per sender a region of a few slots (4 MiB of them, at least one),
// reused. Made once per size, as the exchange's rings are made once.
struct PutTarget {
  MPI_Win win = MPI_WIN_NULL;
  std::size_t slots = 0;
  std::size_t region = 0;

  explicit PutTarget(std::size_t bytes)
      : slots(std::max<std::size_t>(1, (std::size_t{4} << 20) / bytes)), region(slots * bytes) {
    const auto total = region * static_cast<std::size_t>(size_of(MPI_COMM_WORLD));
    void *base = nullptr;
    MPI_Win_allocate(static_cast<MPI_Aint>(total), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_set_num_notify(win, MPI_INFO_NULL, 1);
    std::memset(base, 0, total);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  }
  ~PutTarget() {
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
  }
  PutTarget(const PutTarget &) = delete;
  PutTarget &operator=(const PutTarget &) = delete;
};

// The payloads of a shuffle as plain notified puts (see the top); returns
// the slowest rank's seconds from the first put to its flush.
double run_puts(const Shuffle &how, const PutTarget &target) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const int me = rank_of(comm);
  const int size = size_of(comm);
  const std::size_t bytes = how.payload_bytes;
  std::vector<std::vector<std::byte>> payloads(
      static_cast<std::size_t>(how.messages_per_peer) * static_cast<std::size_t>(size - 1),
      std::vector<std::byte>(bytes, fill_of(me, 0)));
  MPI_Barrier(comm);
  const double start = MPI_Wtime();
  std::size_t next = 0;
  for (int i = 0; i < how.messages_per_peer; ++i) {
    for (int peer = 0; peer < size; ++peer) {
      if (peer == me) continue;
      const auto disp = static_cast<MPI_Aint>(static_cast<std::size_t>(me) * target.region +
                                              static_cast<std::size_t>(i) % target.slots * bytes);
      MPI_Put_notify(payloads[next++].data(), static_cast<int>(bytes), MPI_BYTE, peer, disp,
                     static_cast<int>(bytes), MPI_BYTE, 0, target.win);
    }
  }
  MPI_Win_flush_all(target.win);
  double seconds = MPI_Wtime() - start;
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  return seconds;
}

const char *name_of(ExchangeKind kind) { return kind == ExchangeKind::TAG ? "tag" : "notified"; }

// Sizes of one run, and how many messages each rank sends per peer.
struct Plan {
  std::vector<std::size_t> sizes;
  bool quick = false;

  int rounds() const { return quick ? 3 : 7; }

  int per_peer(std::size_t bytes, int peers) const {
    // About 24 MiB per rank and size (8 MiB quick), 4 to 2000 per peer.
    const std::size_t budget = (quick ? 8 : 24) << 20;
    return static_cast<int>(
        std::clamp<std::size_t>(budget / (bytes + kMetadataBytes) / static_cast<std::size_t>(peers),
                                4, quick ? 500 : 2000));
  }
};

// Seconds per payload size and variant ("tag", "notified", "puts").
using Timings = std::map<std::size_t, std::map<std::string, std::vector<double>>>;

// Runs the rounds of `kinds` (interleaved per round) and, with `puts`, the
// plain puts, for every size; false if a message was lost or garbled.
bool measure(const Plan &plan, const std::vector<ExchangeKind> &kinds, bool puts,
             Timings &timings) {
  const int peers = size_of(MPI_COMM_WORLD) - 1;
  for (const std::size_t bytes : plan.sizes) {
    Shuffle how{bytes, plan.per_peer(bytes, peers),
                BufferResource::create({.host_limit = std::size_t{1} << 40})};
    const auto put_target =
        puts && bytes >= (64 << 10) ? std::make_unique<PutTarget>(bytes) : nullptr;
    // A first round of each kind makes and warms its channels.
    for (int round = -1; round < plan.rounds(); ++round) {
      for (const ExchangeKind kind : kinds) {
        const double s = run_shuffle(kind, kind == ExchangeKind::TAG ? 1 : 2, how);
        if (s < 0) {
          if (rank_of(MPI_COMM_WORLD) == 0)
            std::fprintf(stderr, "exchange_bench: %s lost or garbled messages\n", name_of(kind));
          return false;
        }
        if (round >= 0) timings[bytes][name_of(kind)].push_back(s);
      }
      if (put_target) {
        const double s = run_puts(how, *put_target);
        if (round >= 0) timings[bytes]["puts"].push_back(s);
      }
    }
  }
  return true;
}

int throughput(bool json, const Plan &plan, const std::vector<ExchangeKind> &kinds, bool with_puts,
               bool interleaved) {
  const int me = rank_of(MPI_COMM_WORLD);
  const int peers = size_of(MPI_COMM_WORLD) - 1;
  bench::Report report(json, me == 0, "notified");
  const char *backend = std::getenv("MPINOTIFY_BACKEND");
  report.note(std::to_string(peers + 1) + " ranks, backend " +
              (backend != nullptr ? backend : "default") +
              "; per size: msgs_per_s and payload gbytes_per_s, medians; x_vs: notified over the "
              "others (puts: the payloads as plain notified puts, from 64 KiB)" +
              (interleaved ? "; tag interleaved with the others" : "; tag first"));
  Timings timings;
  if (interleaved) {
    if (!measure(plan, kinds, with_puts, timings)) return 1;
  } else {
    // The tag-based exchange runs before any window exists: over tcp its
    // Open MPI path was measured 4-10x slower once the windows of the
    // others existed, which a program using it alone would not see.
    for (const ExchangeKind kind : kinds) {
      if (!measure(plan, {kind}, with_puts && kind == ExchangeKind::NOTIFIED, timings)) return 1;
    }
  }
  for (const auto &[bytes, seconds] : timings) {
    const double messages = static_cast<double>(peers + 1) * peers * plan.per_peer(bytes, peers);
    std::map<std::string, double> rate;
    std::map<std::string, double> bandwidth;
    for (const auto &[variant, values] : seconds) {
      const double median = bench::median(values);
      if (variant != "puts") rate[variant] = messages / median;
      bandwidth[variant] = messages * static_cast<double>(bytes) / median / 1e9;
    }
    report.add("msgs_per_s", bytes, rate);
    if (bytes > 0) report.add("gbytes_per_s", bytes, bandwidth);
  }
  return 0;
}

// The receive-limited shuffle: 4 MiB payloads, 256 MiB per rank.
int limited(bool json) {
  const int me = rank_of(MPI_COMM_WORLD);
  const int peers = size_of(MPI_COMM_WORLD) - 1;
  bench::Report report(json, me == 0, "notified");
  constexpr std::size_t kPayload = std::size_t{4} << 20;
  constexpr std::size_t kLimit = std::size_t{64} << 20;
  const int per_peer = std::max(1, static_cast<int>((std::size_t{256} << 20) / kPayload) / peers);
  report.note("receive limit 64 MiB, " + std::to_string(per_peer * peers) +
              " payloads of 4 MiB sent per rank; peak_mib: the largest receive memory of any rank");
  std::map<std::string, double> peak;
  std::map<std::string, double> seconds;
  for (const ExchangeKind kind : {ExchangeKind::TAG, ExchangeKind::NOTIFIED}) {
    Shuffle how{kPayload,
                per_peer,
                BufferResource::create({.host_limit = kLimit, .allow_overbooking = true}),
                {.forced_receive = mpinotify::ForcedReceive::KEEP_IN_MEMORY}};
    const double s = run_shuffle(kind, kind == ExchangeKind::TAG ? 3 : 4, how);
    if (s < 0) {
      if (me == 0)
        std::fprintf(stderr, "exchange_bench: %s lost or garbled messages\n", name_of(kind));
      return 1;
    }
    double most = static_cast<double>(how.receive->peak_in_use());
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    peak[name_of(kind)] = most / (1 << 20);
    seconds[name_of(kind)] = s * 1e6;
    // Every rank has the same `most`, so every rank stops here alike.
    if (most > static_cast<double>(kLimit + kPayload)) {
      if (me == 0)
        std::fprintf(stderr, "exchange_bench: %s held %.1f MiB, above the limit plus one message\n",
                     name_of(kind), most / (1 << 20));
      return 1;
    }
  }
  report.add("limited_us", kPayload, seconds);
  char line[160];
  std::snprintf(line, sizeof line,
                "peak receive memory of any rank: tag %.1f MiB, notified %.1f MiB (limit %zu MiB "
                "plus one message: %zu MiB)",
                peak["tag"], peak["notified"], kLimit >> 20, (kLimit + kPayload) >> 20);
  report.note(line);
  return 0;
}

// This process's proportional share of resident memory in bytes (Pss: a
// page shared by n processes counts 1/n in each), or 0 if unknown.
double resident_bytes() {
  return static_cast<double>(bench::proc_kib("/proc/self/smaps_rollup", "Pss:")) * 1024;
}

// Says whether this node's ranks outnumber its cores.
std::string crowding(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  const int local = size_of(node);
  MPI_Comm_free(&node);
  const unsigned cores = std::thread::hardware_concurrency();
  if (cores == 0 || static_cast<unsigned>(local) <= cores) return {};
  return " (oversubscribed: " + std::to_string(local) + " ranks on " + std::to_string(cores) +
         " cores)";
}

// The footprint of a first and a second exchange of each kind.
int footprint(bool json) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const int me = rank_of(comm);
  const int size = size_of(comm);
  const int peers = size - 1;
  bench::Report report(json, me == 0, "notified");
  const char *backend = std::getenv("MPINOTIFY_BACKEND");
  report.note(std::to_string(size) + " ranks, backend " +
              (backend != nullptr ? backend : "default") + crowding(comm) +
              "; per rank (the largest of any rank) and per peer: window bytes, counters, and the "
              "growth of resident memory across construction (first and second exchange)");
  std::vector<int> peer_list;
  for (int r = 0; r < size; ++r) {
    if (r != me) peer_list.push_back(r);
  }
  auto resource = BufferResource::create({.host_limit = std::size_t{1} << 30});
  std::vector<std::unique_ptr<mpinotify::MetadataPayloadExchange>> kept;
  for (const ExchangeKind kind : {ExchangeKind::TAG, ExchangeKind::NOTIFIED}) {
    for (int which = 0; which < 2; ++which) {
      const int op_id = 10 + 2 * static_cast<int>(kind == ExchangeKind::NOTIFIED) + which;
      MPI_Barrier(comm);
      const double before = resident_bytes();
      auto exchange =
          mpinotify::make_exchange(kind, comm, op_id, peer_list, mpinotify::default_allocate_fn(),
                                   std::chrono::milliseconds(20), resource);
      MPI_Barrier(comm);
      const mpinotify::ExchangeFootprint held = exchange->footprint();
      double most[3] = {static_cast<double>(held.window_bytes), static_cast<double>(held.counters),
                        resident_bytes() - before};
      MPI_Allreduce(MPI_IN_PLACE, most, 3, MPI_DOUBLE, MPI_MAX, comm);
      char line[200];
      std::snprintf(line, sizeof line,
                    "%-8s %-6s per rank: window %9.0f B, %6.0f counters, resident +%9.0f B;"
                    " per peer: window %7.0f B, %5.0f counters, resident +%8.0f B",
                    name_of(kind), which == 0 ? "first" : "second", most[0], most[1], most[2],
                    most[0] / peers, most[1] / peers, most[2] / peers);
      report.note(line);
      exchange->finish();
      while (!exchange->is_idle()) exchange->progress();
      kept.push_back(std::move(exchange));  // the second one is made while the first lives
    }
  }
  kept.clear();
  MPI_Barrier(comm);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  bool json = false;
  bool quick = false;
  bool interleaved = false;
  bool limited_run = false;
  bool footprint_run = false;
  std::vector<std::size_t> sizes;
  std::vector<ExchangeKind> kinds = {ExchangeKind::TAG, ExchangeKind::NOTIFIED};
  bool with_puts = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--size=", 0) == 0) sizes.push_back(std::stoul(arg.substr(7)));
    if (arg == "--kind=tag") kinds = {ExchangeKind::TAG};
    if (arg == "--kind=notified") kinds = {ExchangeKind::NOTIFIED};
    with_puts = with_puts && arg.rfind("--kind=", 0) != 0;
    json = json || arg == "--json";
    quick = quick || arg == "--quick";
    interleaved = interleaved || arg == "--interleaved";
    limited_run = limited_run || arg == "--limited";
    footprint_run = footprint_run || arg == "--footprint";
  }
  int rc = 0;
  if (size_of(MPI_COMM_WORLD) < 2) {
    if (rank_of(MPI_COMM_WORLD) == 0)
      std::fprintf(stderr, "exchange_bench: needs 2 ranks or more\n");
    rc = 2;
  } else {
    Plan plan{sizes.empty() ? std::vector<std::size_t>{0, 1024, 64 << 10, 1 << 20, 4 << 20} : sizes,
              quick};
    if (footprint_run) {
      rc = footprint(json);
    } else {
      rc = limited_run ? limited(json) : throughput(json, plan, kinds, with_puts, interleaved);
    }
  }
  MPI_Finalize();
  return rc;
}
