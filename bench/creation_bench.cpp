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
// the UCP context, workers and the endpoint exchange); it is timed apart,
// and so is the first window over a new group (the same processes in
// another order: ucx exchanges endpoint addresses per group). For scale
// (docs/scale.md): the resident memory each rank keeps per
// window (the growth of VmRSS over 32 windows kept open, largest rank), and
// MPI_Win_set_num_notify growing the counters from 16 to 4096.
#include <mpi_notify.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

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

// VmRSS of this process in KiB.
long resident_kib() {
  std::ifstream status("/proc/self/status");
  std::string word;
  while (status >> word) {
    if (word == "VmRSS:") {
      long kib = 0;
      status >> kib;
      return kib;
    }
  }
  return 0;
}

// Bytes of resident memory per window per rank (the largest rank's): 128
// windows of 4 KiB kept open at once, with 16 counters each. Pages are
// counted, so a figure is good to about 32 bytes.
double kept_bytes_per_window(const char *key, const char *value) {
  constexpr int kWindows = 128;
  MPI_Info info = bench::info_with(key, value);
  std::vector<MPI_Win> wins(kWindows, MPI_WIN_NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  const long before = resident_kib();
  for (MPI_Win &win : wins) {
    char *base = nullptr;
    MPI_Win_allocate(4096, 1, info, MPI_COMM_WORLD, &base, &win);
    if (std::strcmp(key, MPINOTIFY_INFO_KEY_DISABLE) != 0)
      MPI_Win_set_num_notify(win, MPI_INFO_NULL, 16);
  }
  double bytes = static_cast<double>(resident_kib() - before) * 1024.0 / kWindows;
  for (MPI_Win &win : wins) MPI_Win_free(&win);
  MPI_Info_free(&info);
  MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return bytes;
}

// Microseconds of MPI_Win_set_num_notify growing a window's counters from
// 16 to 4096 (on rank 0, on every rank).
double growth_us(const char *backend) {
  // No mpi_assert_max_num_notify: it would reserve the 4096 up front.
  MPI_Info info = bench::info_with(MPINOTIFY_INFO_KEY_BACKEND, backend);
  char *base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate(4096, 1, info, MPI_COMM_WORLD, &base, &win);
  MPI_Info_free(&info);
  MPI_Win_set_num_notify(win, MPI_INFO_NULL, 16);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  MPI_Win_set_num_notify(win, MPI_INFO_NULL, 4096);
  double us = (MPI_Wtime() - start) * 1e6;
  MPI_Win_free(&win);
  MPI_Bcast(&us, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return us;
}

// Seconds of a first window over `comm` (rank 0's, on every rank).
double first_over(MPI_Comm comm, const char *key, const char *value) {
  MPI_Info info = bench::info_with(key, value);
  MPI_Barrier(comm);
  const double start = MPI_Wtime();
  char *base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate(4096, 1, info, comm, &base, &win);
  if (std::strcmp(key, MPINOTIFY_INFO_KEY_DISABLE) != 0)
    MPI_Win_set_num_notify(win, MPI_INFO_NULL, 16);
  MPI_Win_free(&win);
  double seconds = MPI_Wtime() - start;
  MPI_Info_free(&info);
  MPI_Bcast(&seconds, 1, MPI_DOUBLE, 0, comm);
  return seconds;
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

  // A new group: the same processes in reverse order, once per backend.
  std::map<std::string, double> fresh;
  for (const char *backend : backends) {
    MPI_Comm reversed = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
    fresh[backend] = first_over(reversed, MPINOTIFY_INFO_KEY_BACKEND, backend) * 1e6;
    MPI_Comm_free(&reversed);
  }
  {
    MPI_Comm reversed = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
    fresh["host"] = first_over(reversed, MPINOTIFY_INFO_KEY_DISABLE, "true") * 1e6;
    MPI_Comm_free(&reversed);
  }
  report.add("new_group_window_us", 4096, fresh);

  std::map<std::string, double> kept;
  // Once unrecorded: the first pass grows the heap for all of them.
  static_cast<void>(kept_bytes_per_window(MPINOTIFY_INFO_KEY_BACKEND, "ucx"));
  kept["host"] = kept_bytes_per_window(MPINOTIFY_INFO_KEY_DISABLE, "true");
  for (const char *backend : backends)
    kept[backend] = kept_bytes_per_window(MPINOTIFY_INFO_KEY_BACKEND, backend);
  report.add("kept_bytes_per_window", 4096, kept);

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
  std::vector<std::pair<std::string, bench::Sample>> growths;
  for (const char *backend : backends)
    growths.emplace_back(backend, [backend] { return growth_us(backend); });
  report.add("growth_to_4096_us", 4096, bench::interleaved(growths, quick ? 3 : 11));
  report.finish();
  MPI_Finalize();
  return 0;
}
