// Where the sm backend's one-way time goes: the library's put and poll
// swapped one at a time for the raw stores and loads they end in, every
// variant but the floor on the same counters (bench::kLanes of them, in
// turn; the floor turns over as many flag lines of its own), on two ranks
// pinned to different cores. 8-byte messages; medians, ratios against the
// floor of the same run.
//
//   mpirun -n 2 --bind-to core sm_gap_bench [--json] [--quick]
//
// Variants (send / wait):
//   floor     memcpy + flag store / spin on the flag (notify_bench's floor)
//   raw       memcpy + the sm put's release fetch_add on the peer's counter
//             / spin on this rank's counter. What a put and a poll come
//             down to on sm, with no call around them.
//   raw_poll  raw send / MPI_Win_get_notify_value loop (the poll's calls)
//   raw_put   MPI_Put_notify + MPI_Win_flush / spin (the put's calls)
//   sm        MPI_Put_notify + MPI_Win_flush / MPI_Win_get_notify_value loop
//
// The raw variants find the counters where sm puts an MPI_Win_allocate
// window's first counters: in the host's shared allocation, one cache
// line apart, right after each rank's memory. They check that first (a
// notified put to each lane must show there) and are left out, with a
// note, where it does not hold (another counter stride, fewer counters
// reserved at creation). Like notify_bench, it needs a host that makes
// shared windows (the floor's).
#include <mpi_notify.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "bench_report.hpp"
#include "bench_variants.hpp"

namespace {

using bench::kLanes;
using bench::kMaxBytes;
using bench::peer;
using bench::rank;
using bench::RoundTrip;

constexpr std::size_t kBytes = 8;
constexpr std::size_t kLine = 64;

// The sm window's counters as memory: lane j of a rank at its base +
// kMaxBytes + j lines.
struct RawCounters {
  char *mine = nullptr;
  char *theirs = nullptr;
  static std::int64_t *counter(char *base, int lane) {
    return reinterpret_cast<std::int64_t *>(base + kMaxBytes +
                                            kLine * static_cast<std::size_t>(lane));
  }
};

// Where the host's shared allocation holds `of`'s memory and every lane
// counter after it; nullptr where the host window is not shared memory
// (a host that refused it: MPI_ERR_RMA_FLAVOR, returned, not fatal) or is
// too small for them (counters placed elsewhere).
char *shared_base(MPI_Win win, int of) {
  MPI_Aint size = 0;
  int unit = 0;
  char *base = nullptr;
  // The host's answer: the library answers as for MPI_Win_allocate.
  if (PMPI_Win_shared_query(win, of, &size, &unit, &base) != MPI_SUCCESS) return nullptr;
  const auto needed = static_cast<MPI_Aint>(kMaxBytes + kLine * kLanes);
  return size >= needed ? base : nullptr;
}

// True on both ranks when every lane's counter is where RawCounters looks.
// Leaves every counter at 0.
bool find_counters(const bench::NotifyWindow &w, RawCounters &out) {
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  PMPI_Win_get_errhandler(w.win, &handler);
  PMPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
  out.mine = shared_base(w.win, rank);
  out.theirs = shared_base(w.win, peer);
  PMPI_Win_set_errhandler(w.win, handler);
  PMPI_Errhandler_free(&handler);
  const bool mapped = out.mine != nullptr && out.theirs != nullptr;
  const char byte = 0;
  for (int lane = 0; lane < kLanes; ++lane)
    MPI_Put_notify(&byte, 1, MPI_BYTE, peer, 0, 1, MPI_BYTE, lane, w.win);
  MPI_Win_flush(peer, w.win);
  MPI_Barrier(MPI_COMM_WORLD);
  int found = mapped ? 1 : 0;
  for (int lane = 0; found != 0 && lane < kLanes; ++lane) {
    MPI_Count value = 0;
    MPI_Win_get_notify_value(w.win, lane, &value);
    const std::int64_t raw = std::atomic_ref<std::int64_t>(*RawCounters::counter(out.mine, lane))
                                 .load(std::memory_order_acquire);
    found = value == 1 && raw == 1 ? 1 : 0;
  }
  MPI_Allreduce(MPI_IN_PLACE, &found, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  for (int lane = 0; lane < kLanes; ++lane) {
    MPI_Count previous = 0;
    MPI_Win_reset_notify_value(w.win, lane, &previous);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return found != 0;
}

// The send and the wait of one variant, for a round trip's lane.
RoundTrip variant(const bench::NotifyWindow &w, const RawCounters &raw,
                  const std::vector<char> &buffer, bool library_put, bool library_poll) {
  return [&w, raw, &buffer, library_put, library_poll](long i) {
    const bench::Lane lane = bench::lane_of(i);
    bench::ping_pong(
        [&] {
          if (library_put) {
            MPI_Put_notify(buffer.data(), kBytes, MPI_BYTE, peer, 0, kBytes, MPI_BYTE, lane.index,
                           w.win);
            MPI_Win_flush(peer, w.win);
            return;
          }
          std::memcpy(raw.theirs, buffer.data(), kBytes);
          std::atomic_ref<std::int64_t>(*RawCounters::counter(raw.theirs, lane.index))
              .fetch_add(1, std::memory_order_release);
        },
        [&] {
          if (library_poll) {
            bench::wait_counter(w.win, lane.index, lane.value);
          } else {
            bench::spin_until(RawCounters::counter(raw.mine, lane.index), lane.value);
          }
        });
  };
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const auto [json, quick] = bench::parse_options(argc, argv);
  if (!bench::two_ranks("sm_gap_bench")) {
    MPI_Finalize();
    return 1;
  }
  bench::Report report(json, rank == 0);
  {
    std::vector<char> buffer(kMaxBytes, 'x');
    const bench::PlainWindow shared(true);
    const bench::NotifyWindow sm("sm");
    RawCounters raw;
    const bool raw_ok = find_counters(sm, raw);
    const long iterations = quick ? 2000 : 20000;
    const int rounds = quick ? 5 : 21;
    // The variants on the sm window add one to a lane's counter per round
    // trip each: one round trip number for all of them.
    long floor_next = 0;
    long sm_next = 0;
    std::vector<std::pair<std::string, bench::Sample>> variants = {
        {"floor", bench::one_way_us(bench::floor_round_trip(shared, kBytes, buffer), iterations,
                                    floor_next)},
        {"sm", bench::one_way_us(variant(sm, raw, buffer, true, true), iterations, sm_next)}};
    if (raw_ok) {
      variants.emplace_back(
          "raw", bench::one_way_us(variant(sm, raw, buffer, false, false), iterations, sm_next));
      variants.emplace_back("raw_poll", bench::one_way_us(variant(sm, raw, buffer, false, true),
                                                          iterations, sm_next));
      variants.emplace_back(
          "raw_put", bench::one_way_us(variant(sm, raw, buffer, true, false), iterations, sm_next));
    } else {
      report.note("sm's counters are not where the raw variants look: raw variants left out");
    }
    report.add("latency_us", kBytes, bench::interleaved(variants, rounds));
  }
  report.finish();
  MPI_Finalize();
  return 0;
}
