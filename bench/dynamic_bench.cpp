// What the range check on dynamic windows costs (SEMANTICS 3.4): the rate
// of 8-byte notified puts (a flush every 64) on a dynamic window, against
// the same puts on an MPI_Win_create window over the same kind of memory,
// per backend, in one run. The dynamic window's target has 1 or 64
// regions attached (the put goes to the last one); a dynamic put checks
// its origin's copy of the target's table of attached memory.
//
//   mpirun -n 2 --bind-to core dynamic_bench [--json] [--quick]
#include <mpi_notify.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench_mpi.hpp"
#include "bench_report.hpp"
#include "bench_variants.hpp"

namespace {

using bench::peer;

constexpr std::size_t kRegionBytes = 4096;

// A window with one counter in a lock_all epoch: MPI_Win_create over one
// buffer, or MPI_Win_create_dynamic with `regions` buffers attached; the
// peer's address of its last buffer is `target`.
struct BenchWindow {
  MPI_Win win = MPI_WIN_NULL;
  std::vector<std::vector<char>> buffers;
  MPI_Aint target = 0;
  bool dynamic = false;

  BenchWindow(const char *backend, int regions) : dynamic(regions > 0) {
    MPI_Info info = bench::info_with(MPINOTIFY_INFO_KEY_BACKEND, backend);
    buffers.assign(static_cast<std::size_t>(dynamic ? regions : 1),
                   std::vector<char>(kRegionBytes, 0));
    if (dynamic) {
      MPI_Win_create_dynamic(info, MPI_COMM_WORLD, &win);
      for (std::vector<char> &b : buffers) MPI_Win_attach(win, b.data(), kRegionBytes);
      MPI_Aint mine = 0;
      MPI_Get_address(buffers.back().data(), &mine);
      MPI_Sendrecv(&mine, 1, MPI_AINT, peer, 0, &target, 1, MPI_AINT, peer, 0, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    } else {
      MPI_Win_create(buffers[0].data(), kRegionBytes, 1, info, MPI_COMM_WORLD, &win);
    }
    MPI_Info_free(&info);
    MPI_Win_set_num_notify(win, MPI_INFO_NULL, 2);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ~BenchWindow() {
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (dynamic) {
      for (std::vector<char> &b : buffers) MPI_Win_detach(win, b.data());
    }
    MPI_Win_free(&win);
  }
  BenchWindow(const BenchWindow &) = delete;
  BenchWindow &operator=(const BenchWindow &) = delete;
};

bench::Sample put_rate(const char *backend, int regions, long n) {
  const auto w = std::make_shared<BenchWindow>(backend, regions);
  static const std::int64_t payload = 42;
  return bench::rate(
      n,
      [w](long i) {
        MPI_Put_notify(&payload, 8, MPI_BYTE, peer, w->target + (i % 32) * 8, 8, MPI_BYTE, 1,
                       w->win);
        if (i % 64 == 0) MPI_Win_flush(peer, w->win);
      },
      [w](long total) { bench::wait_counter(w->win, 1, total); },
      [w] { MPI_Win_flush(peer, w->win); });
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (!bench::two_ranks("dynamic_bench")) {
    MPI_Finalize();
    return 1;
  }
  const auto [json, quick] = bench::parse_options(argc, argv);
  const int repetitions = quick ? 3 : 9;
  for (const char *backend : {"sm", "ucx", "pmpi"}) {
    bench::Report report(json, bench::rank == 0, "dynamic_1");
    report.note(std::string("backend ") + backend);
    const long n =
        std::string(backend) == "pmpi" ? (quick ? 1000 : 10000) : (quick ? 20000 : 200000);
    report.add(std::string("rate_Mmsg_s_") + backend, 8,
               bench::interleaved({{"create", put_rate(backend, 0, n)},
                                   {"dynamic_1", put_rate(backend, 1, n)},
                                   {"dynamic_64", put_rate(backend, 64, n)}},
                                  repetitions));
  }
  MPI_Finalize();
  return 0;
}
