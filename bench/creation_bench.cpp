// Window creation and freeing with and without a notifying backend, on any
// number of ranks. Each variant is a median over rounds (interleaved, see
// bench::interleaved) of MPI_Win_allocate + MPI_Win_set_num_notify +
// MPI_Win_free, timed on rank 0; "host" is the same window with
// notifications disabled (the host MPI's cost alone). A last line times
// MPI_Win_set_num_notify alone (no growth) per backend, with and without
// mpi_assert_same_num_notifications ("+same": no exchange of counts).
//
//   mpirun -n N creation_bench [--json] [--quick]
//
// The first window a backend serves pays for its one-time setup (for ucx:
// the UCP context, workers and the endpoint exchange); it is timed apart.
#include <mpi_notify.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "bench_mpi.hpp"
#include "bench_report.hpp"
#include "bench_variants.hpp"

namespace {

// One window of `bytes` made and freed; seconds on rank 0, on every rank.
double create_and_free(const char *key, const char *value, MPI_Aint bytes) {
  MPI_Info info = bench::info_with(key, value);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  char *base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate(bytes, 1, info, MPI_COMM_WORLD, &base, &win);
  if (std::strcmp(key, MPINOTIFY_INFO_KEY_DISABLE) != 0)
    MPI_Win_set_num_notify(win, MPI_INFO_NULL, 16);
  MPI_Win_free(&win);
  double seconds = MPI_Wtime() - start;
  MPI_Info_free(&info);
  MPI_Bcast(&seconds, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return seconds;
}

// Microseconds per MPI_Win_set_num_notify(16) without growth on a window
// of `backend`, with or without mpi_assert_same_num_notifications; on
// every rank.
double set_num_notify_us(const char *backend, bool same, int calls) {
  MPI_Info info = bench::info_with(MPINOTIFY_INFO_KEY_BACKEND, backend);
  if (same) MPI_Info_set(info, MPI_INFO_KEY_ASSERT_SAME_NUM_NOTIFICATIONS, "true");
  char *base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate(4096, 1, info, MPI_COMM_WORLD, &base, &win);
  MPI_Info_free(&info);
  MPI_Win_set_num_notify(win, MPI_INFO_NULL, 16);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < calls; ++i) MPI_Win_set_num_notify(win, MPI_INFO_NULL, 16);
  double us = (MPI_Wtime() - start) * 1e6 / calls;
  MPI_Win_free(&win);
  MPI_Bcast(&us, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return us;
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto [json, quick] = bench::parse_options(argc, argv);
  bench::Report report(json, rank == 0, "ucx");
  report.note(std::to_string(size) + " ranks");
  const char *backends[] = {"ucx", "sm", "pmpi"};
  std::map<std::string, double> first;
  first["host"] = create_and_free(MPINOTIFY_INFO_KEY_DISABLE, "true", 4096) * 1e6;
  for (const char *backend : backends)
    first[backend] = create_and_free(MPINOTIFY_INFO_KEY_BACKEND, backend, 4096) * 1e6;
  report.add("first_window_us", 4096, first);

  const int rounds = quick ? 5 : 31;
  for (const MPI_Aint bytes : {MPI_Aint{4096}, MPI_Aint{1} << 24}) {
    std::vector<std::pair<std::string, bench::Sample>> variants = {
        {"host",
         [bytes] { return create_and_free(MPINOTIFY_INFO_KEY_DISABLE, "true", bytes) * 1e6; }}};
    for (const char *backend : backends)
      variants.emplace_back(backend, [backend, bytes] {
        return create_and_free(MPINOTIFY_INFO_KEY_BACKEND, backend, bytes) * 1e6;
      });
    report.add("window_us", static_cast<std::size_t>(bytes), bench::interleaved(variants, rounds));
  }
  const int calls = quick ? 20 : 200;
  std::vector<std::pair<std::string, bench::Sample>> counts;
  for (const char *backend : backends) {
    for (const bool same : {false, true}) {
      counts.emplace_back(std::string(backend) + (same ? "+same" : ""), [backend, same, calls] {
        return set_num_notify_us(backend, same, calls);
      });
    }
  }
  report.add("set_num_notify_us", 16, bench::interleaved(counts, rounds));
  report.finish();
  MPI_Finalize();
  return 0;
}
