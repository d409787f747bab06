// What the library adds to plain RMA (SEMANTICS 3.9): microseconds per
// plain operation on an MPI_Win_allocate window served by each backend,
// against the same window with notifications disabled ("host": the host
// MPI alone), in one run. Each backend's window has counters and has
// carried (and completed) notified puts, so the backend's state is warm
// and owes nothing: its flushes and unlocks should cost the host's.
//
//   put_flush_us    MPI_Put of 8 bytes + MPI_Win_flush (lock_all epoch)
//   flush_us        MPI_Win_flush with nothing issued
//   lock_unlock_us  MPI_Win_lock + MPI_Put of 8 bytes + MPI_Win_unlock
//   get_flush_us    MPI_Get of 8 bytes + MPI_Win_flush
//
// Rank 0 times the calls to rank 1, which waits in a barrier (and so
// progresses the host).
//
//   mpirun -n 2 --bind-to core plain_rma_bench [--json] [--quick]
#include <mpi_notify.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench_mpi.hpp"
#include "bench_report.hpp"
#include "bench_variants.hpp"

namespace {

using bench::peer;

constexpr MPI_Aint kBytes = 4096;

// An MPI_Win_allocate window of `backend`, or the host's alone ("host").
struct Window {
  MPI_Win win = MPI_WIN_NULL;
  bool notifying = false;

  explicit Window(const std::string &backend) : notifying(backend != "host") {
    MPI_Info info = notifying ? bench::info_with(MPINOTIFY_INFO_KEY_BACKEND, backend.c_str())
                              : bench::info_with(MPINOTIFY_INFO_KEY_DISABLE, "true");
    char *base = nullptr;
    MPI_Win_allocate(kBytes, 1, info, MPI_COMM_WORLD, &base, &win);
    MPI_Info_free(&info);
    if (!notifying) return;
    // Notified traffic both ways, completed: what a program that mixes
    // both kinds leaves behind.
    MPI_Win_set_num_notify(win, MPI_INFO_NULL, 1);
    static const std::int64_t payload = 7;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < 16; ++i)
      MPI_Put_notify(&payload, 1, MPI_INT64_T, peer, 8 * i, 1, MPI_INT64_T, 0, win);
    MPI_Win_flush_all(win);
    bench::wait_counter(win, 0, 16);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ~Window() { MPI_Win_free(&win); }
  Window(const Window &) = delete;
  Window &operator=(const Window &) = delete;
};

// Microseconds per call of `body` on rank 0 (n calls), on both ranks;
// `open`/`close` bracket the loop on rank 0.
bench::Sample per_call_us(long n, std::function<void(long)> body, std::function<void()> open = {},
                          std::function<void()> close = {}) {
  return [n, body = std::move(body), open = std::move(open), close = std::move(close)] {
    MPI_Barrier(MPI_COMM_WORLD);
    double us = 0;
    if (bench::rank == 0) {
      if (open) open();
      const double start = MPI_Wtime();
      for (long i = 0; i < n; ++i) body(i);
      us = (MPI_Wtime() - start) * 1e6 / static_cast<double>(n);
      if (close) close();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Bcast(&us, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return us;
  };
}

using Windows = std::vector<std::pair<std::string, std::shared_ptr<Window>>>;

// One sample per window of the same measurement.
std::vector<std::pair<std::string, bench::Sample>> each(
    const Windows &windows, const std::function<bench::Sample(MPI_Win)> &make) {
  std::vector<std::pair<std::string, bench::Sample>> samples;
  for (const auto &[name, w] : windows) samples.emplace_back(name, make(w->win));
  return samples;
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (!bench::two_ranks("plain_rma_bench")) {
    MPI_Finalize();
    return 1;
  }
  const auto [json, quick] = bench::parse_options(argc, argv);
  const int rounds = quick ? 3 : 9;
  const long n = quick ? 2000 : 20000;
  Windows windows;
  for (const char *name : {"host", "sm", "ucx", "pmpi"})
    windows.emplace_back(name, std::make_shared<Window>(name));

  static std::int64_t word = 1;
  static std::int64_t landing = 0;
  auto in_lock_all = [](MPI_Win win, std::function<void(long)> body, long calls) {
    return per_call_us(
        calls, std::move(body), [win] { MPI_Win_lock_all(0, win); },
        [win] { MPI_Win_unlock_all(win); });
  };
  bench::Report report(json, bench::rank == 0, "host");
  report.note("MPI_Win_allocate windows, 2 ranks; vs_<backend> = its time / the host's");
  report.add("put_flush_us", 8,
             bench::interleaved(each(windows,
                                     [&](MPI_Win win) {
                                       return in_lock_all(
                                           win,
                                           [win](long i) {
                                             MPI_Put(&word, 1, MPI_INT64_T, peer, 8 * (i % 64), 1,
                                                     MPI_INT64_T, win);
                                             MPI_Win_flush(peer, win);
                                           },
                                           n);
                                     }),
                                rounds));
  report.add("flush_us", 0,
             bench::interleaved(each(windows,
                                     [&](MPI_Win win) {
                                       return in_lock_all(
                                           win, [win](long) { MPI_Win_flush(peer, win); }, n);
                                     }),
                                rounds));
  report.add("get_flush_us", 8,
             bench::interleaved(each(windows,
                                     [&](MPI_Win win) {
                                       return in_lock_all(
                                           win,
                                           [win](long i) {
                                             MPI_Get(&landing, 1, MPI_INT64_T, peer, 8 * (i % 64),
                                                     1, MPI_INT64_T, win);
                                             MPI_Win_flush(peer, win);
                                           },
                                           n);
                                     }),
                                rounds));
  report.add("lock_unlock_us", 8,
             bench::interleaved(each(windows,
                                     [&](MPI_Win win) {
                                       return per_call_us(n, [win](long i) {
                                         MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win);
                                         MPI_Put(&word, 1, MPI_INT64_T, peer, 8 * (i % 64), 1,
                                                 MPI_INT64_T, win);
                                         MPI_Win_unlock(peer, win);
                                       });
                                     }),
                                rounds));
  report.finish();
  windows.clear();
  MPI_Finalize();
  return 0;
}
