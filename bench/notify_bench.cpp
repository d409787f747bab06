// Notified RMA against its baselines, in one run, on two ranks pinned to
// different cores. Every figure is the median over repetitions; ratios are
// printed against the raw shared-memory floor and against each baseline.
//
//   mpirun -n 2 --bind-to core notify_bench [--json] [--quick]
//
// Variants:
//   floor     raw shared memory: memcpy into the peer's memory, then a flag
//             store (release); the peer spins on the flag (acquire). No MPI
//             in the loop. Every ping-pong spreads its round trips over
//             bench::kLanes flags or counters (bench_variants.hpp says why).
//   sm, pmpi  MPI_Put_notify + MPI_Win_flush on a window of that backend;
//             the peer waits with MPI_Win_get_notify_value.
//   sendrecv  host MPI_Send / MPI_Recv.
//   putflag   host MPI_Put + flush + flag MPI_Accumulate + flush; the peer
//             polls the flag with MPI_Fetch_and_op(MPI_NO_OP) + flush on
//             itself (a load after MPI_Win_sync never ends on MPICH, whose
//             accumulates need the target to make progress).
#include <mpi_notify.h>
#include <sched.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "bench_report.hpp"
#include "bench_variants.hpp"

namespace {

using bench::kMaxBytes;
using bench::notified_round_trip;
using bench::NotifyWindow;
using bench::one_way_us;
using bench::PlainWindow;
using bench::putflag_round_trip;
using bench::rank;
using bench::sendrecv_round_trip;

void latency(bench::Report &report, bool quick) {
  std::vector<char> buffer(kMaxBytes, 'x');
  const PlainWindow shared(true);
  const PlainWindow plain(false);
  const NotifyWindow sm("sm");
  const NotifyWindow pmpi("pmpi");
  const int rounds = quick ? 3 : 11;
  long floor_next = 0, sm_next = 0, pmpi_next = 0, sendrecv_next = 0, putflag_next = 0;
  // (bytes, round trips per sample): fewer for large messages.
  const std::pair<std::size_t, long> sizes[] = {{8, 20000},   {64, 20000},   {512, 10000},
                                                {4096, 5000}, {32768, 1000}, {262144, 200},
                                                {1048576, 50}};
  for (const auto &[bytes, full] : sizes) {
    const long iterations = quick ? std::max(10L, full / 10) : full;
    // The slow variants run fewer round trips.
    const long fewer = iterations / 4 + 1;
    report.add(
        "latency_us", bytes,
        bench::interleaved(
            {{"floor",
              one_way_us(bench::floor_round_trip(shared, bytes, buffer), iterations, floor_next)},
             {"sm", one_way_us(notified_round_trip(sm, bytes, buffer, true), iterations, sm_next)},
             {"pmpi", one_way_us(notified_round_trip(pmpi, bytes, buffer, true), fewer, pmpi_next)},
             {"sendrecv",
              one_way_us(sendrecv_round_trip(bytes, buffer), iterations, sendrecv_next)},
             {"putflag",
              one_way_us(putflag_round_trip(plain, bytes, buffer), fewer, putflag_next)}},
            rounds));
  }
}

}  // namespace

namespace bench {
void message_rate(Report &report, bool quick);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const auto [json, quick] = bench::parse_options(argc, argv);
  if (!bench::two_ranks("notify_bench")) {
    MPI_Finalize();
    return 1;
  }
  const int cpu = sched_getcpu();
  int cpus[2] = {-1, -1};
  MPI_Gather(&cpu, 1, MPI_INT, cpus, 1, MPI_INT, 0, MPI_COMM_WORLD);
  bench::Report report(json, rank == 0);
  report.note("ranks on cpus " + std::to_string(cpus[0]) + " and " + std::to_string(cpus[1]) +
              (cpus[0] == cpus[1] ? " (SAME CORE: pin the ranks, e.g. --bind-to core)" : ""));
  latency(report, quick);
  bench::message_rate(report, quick);
  report.finish();
  MPI_Finalize();
  return 0;
}
