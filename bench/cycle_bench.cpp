// A ping-pong whose buffers cycle through a region larger than a cache, as
// IMB-ASYNC's do (at least three times its assumed 4 MiB cache): round
// trip i sends from slot i of the sender's region into slot i of the
// receiver's, so no slot is reused until the region wraps. Notified puts
// against send/recv of the same run, on two ranks pinned to different
// cores, every size from 8 bytes to 4 MiB.
//
//   bench/run.sh --suite cycle [--mpich] [--quick] [--json]
//
// Variants (time per round trip, microseconds):
//   sendrecv        MPI_Send from the slot, MPI_Recv into the slot
//   notified        MPI_Put_notify from the slot into the slot of the
//                   peer's window (the library's choice of backend), the
//                   peer polls MPI_Win_get_notify_value;
//                   MPI_Win_flush_local_all when the slots wrap
// each once with regions whose pages were all touched before by the
// process that touches them in the loop (warm: only caches are cold), and
// once with regions allocated for the sample (fresh: every slot's first use
// in the timed loop is its pages' first touch, as in a benchmark whose
// cycle count stays below its slot count; the window's memory is mapped
// when it is made, unless MPINOTIFY_PREFAULT=0 leaves that to the loop).
#include <mpi_notify.h>
#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench_mpi.hpp"
#include "bench_report.hpp"
#include "bench_variants.hpp"

namespace {

using bench::peer;
using bench::rank;
using bench::Sample;

constexpr std::size_t kAssumedCache = std::size_t{4} << 20;

std::size_t region_bytes(std::size_t bytes) { return std::max(3 * kAssumedCache, bytes); }

// Anonymous memory, untouched until used (as calloc'd buffers of this
// size are).
struct Region {
  char *base = nullptr;
  std::size_t bytes = 0;
  Region(std::size_t n, bool touch) : bytes(n) {
    void *p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) MPI_Abort(MPI_COMM_WORLD, 1);
    base = static_cast<char *>(p);
    if (touch) std::memset(base, 'x', n);
  }
  ~Region() { munmap(base, bytes); }
  Region(const Region &) = delete;
  Region &operator=(const Region &) = delete;
};

// A notifying window over a region of the peer, from MPI_Win_allocate.
struct CycledWindow {
  MPI_Win win = MPI_WIN_NULL;
  char *base = nullptr;
  CycledWindow(std::size_t n, bool touch) {
    MPI_Win_allocate(static_cast<MPI_Aint>(n), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (touch) std::memset(base, 'y', n);
    MPI_Win_set_num_notify(win, MPI_INFO_NULL, 1);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ~CycledWindow() {
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
  }
  CycledWindow(const CycledWindow &) = delete;
  CycledWindow &operator=(const CycledWindow &) = delete;
};

double agreed(double value) {
  MPI_Bcast(&value, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return value;
}

// Round trips `iterations`, on rank 0's clock.
template <class RoundTrip>
double timed(long iterations, RoundTrip &&round_trip) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (long i = 0; i < iterations; ++i) round_trip(i);
  return agreed((MPI_Wtime() - start) / static_cast<double>(iterations) * 1e6);
}

struct SendRecvState {
  std::unique_ptr<Region> send, receive;
  long next = 0;  // the slot numbering goes on across samples
};

Sample sendrecv(std::size_t bytes, long iterations, bool fresh) {
  auto state = std::make_shared<SendRecvState>();
  const std::size_t region = region_bytes(bytes);
  if (!fresh) {
    state->send = std::make_unique<Region>(region, true);
    state->receive = std::make_unique<Region>(region, true);
  }
  return [=] {
    if (fresh) {
      state->send = std::make_unique<Region>(region, false);
      state->receive = std::make_unique<Region>(region, false);
      state->next = 0;
    }
    const long slots = static_cast<long>(region / bytes);
    const int n = static_cast<int>(bytes);
    const double took = timed(iterations, [&](long) {
      const std::size_t at = static_cast<std::size_t>(state->next++ % slots) * bytes;
      bench::ping_pong(
          [&] { MPI_Send(state->send->base + at, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD); },
          [&] {
            MPI_Recv(state->receive->base + at, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
          });
    });
    if (fresh) {
      state->send.reset();
      state->receive.reset();
    }
    return took;
  };
}

struct NotifiedState {
  std::unique_ptr<Region> send;
  std::unique_ptr<CycledWindow> window;
  long next = 0;
  MPI_Count seen = 0;  // notifications received so far on this window
};

Sample notified(std::size_t bytes, long iterations, bool fresh) {
  auto state = std::make_shared<NotifiedState>();
  const std::size_t region = region_bytes(bytes);
  if (!fresh) {
    state->send = std::make_unique<Region>(region, true);
    state->window = std::make_unique<CycledWindow>(region, true);
    // Warm here too: one put over the whole region maps every page of
    // the peer's window in this process (a first write through this
    // process's mapping faults even where the owner touched the page).
    MPI_Put_notify(state->send->base, static_cast<int>(region), MPI_BYTE, peer, 0,
                   static_cast<int>(region), MPI_BYTE, 0, state->window->win);
    MPI_Win_flush(peer, state->window->win);
    bench::wait_counter(state->window->win, 0, ++state->seen);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  return [=] {
    if (fresh) {
      state->send = std::make_unique<Region>(region, false);
      state->window = std::make_unique<CycledWindow>(region, false);
      state->next = 0;
      state->seen = 0;
    }
    const long slots = static_cast<long>(region / bytes);
    const int n = static_cast<int>(bytes);
    MPI_Win win = state->window->win;
    const double took = timed(iterations, [&](long) {
      const long slot = state->next++ % slots;
      const auto at = static_cast<std::size_t>(slot) * bytes;
      bench::ping_pong(
          [&] {
            MPI_Put_notify(state->send->base + at, n, MPI_BYTE, peer, static_cast<MPI_Aint>(at), n,
                           MPI_BYTE, 0, win);
            if (slot == slots - 1) MPI_Win_flush_local_all(win);
          },
          [&] { bench::wait_counter(win, 0, ++state->seen); });
    });
    // The last notification is complete at the peer before the next sample.
    MPI_Win_flush_all(win);
    if (fresh) {
      state->window.reset();
      state->send.reset();
    }
    return took;
  };
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const auto [json, quick] = bench::parse_options(argc, argv);
  if (!bench::two_ranks("cycle_bench")) {
    MPI_Finalize();
    return 1;
  }
  {
    const int cpu = sched_getcpu();
    int cpus[2] = {-1, -1};
    MPI_Gather(&cpu, 1, MPI_INT, cpus, 1, MPI_INT, 0, MPI_COMM_WORLD);
    bench::Report report(json, rank == 0, "notified");
    report.note("ranks on cpus " + std::to_string(cpus[0]) + " and " + std::to_string(cpus[1]) +
                "; slots cycle through " + std::to_string(3 * kAssumedCache >> 20) +
                " MiB (or three messages) per rank");
    const int rounds = quick ? 3 : 7;
    // (bytes, round trips per sample)
    const std::pair<std::size_t, long> sizes[] = {
        {8, 4000},     {64, 4000},   {512, 4000},   {1024, 4000},  {4096, 2000},
        {16384, 1000}, {65536, 400}, {262144, 100}, {1048576, 30}, {4194304, 10}};
    for (const auto &[bytes, full] : sizes) {
      const long iterations = quick ? std::max(4L, full / 4) : full;
      report.add("round_trip_us", bytes,
                 bench::interleaved({{"sendrecv", sendrecv(bytes, iterations, false)},
                                     {"notified", notified(bytes, iterations, false)}},
                                    rounds));
      report.add("fresh_round_trip_us", bytes,
                 bench::interleaved({{"sendrecv", sendrecv(bytes, iterations, true)},
                                     {"notified", notified(bytes, iterations, true)}},
                                    rounds));
    }
    report.finish();
  }
  MPI_Finalize();
  return 0;
}
