// Window creation and freeing with and without a notifying backend, on any
// number of ranks. Each variant is a median over rounds (interleaved, see
// bench::interleaved) of MPI_Win_allocate + MPI_Win_set_num_notify +
// MPI_Win_free, timed on rank 0; "host" is the same window with
// notifications disabled (the host MPI's cost alone). A last line times
// MPI_Win_set_num_notify alone (no growth) per backend: every rank passing
// 16, the same under mpi_assert_same_num_notifications ("+same"), and
// odd ranks passing 17 ("+differ": the counts are gathered).
//
//   mpirun -n N creation_bench [--json] [--quick]
//
// The first window a backend serves pays for its one-time setup (for ucx:
// the UCP context and workers, and the group's addresses); it is timed apart,
// and so is the first window over a new group (the same processes in
// another order: where peers' addresses are not read from the process
// manager's store, ucx and ofi exchange them per group; and what each new
// group leaves on the heap, at 3 ranks and more). For scale
// (docs/scale.md): the resident memory each rank keeps per
// window (the growth of VmRSS over 128 windows kept open, largest rank), and
// MPI_Win_set_num_notify growing the counters from 16 to 4096.
//
// The same windows measured by the heap instead (glibc's count of bytes
// malloc has handed out and not had back, largest rank): exact where
// VmRSS only sees pages, and so what shows the library's per-target
// records (keys, endpoints); "ucx+ring" ("ofi+ring") adds one notified put per window
// to the next rank, the cost of a rank that talks to one neighbour. And
// the memory mappings each window adds (lines of /proc/self/maps): with
// shared-memory transports UCX maps a peer's memory for each key unpacked,
// and a process has at most vm.max_map_count (65530) of them. Last, what
// an MPI_Win_detach costs on a dynamic window where each rank reads one
// neighbour's memory: its time and the heap it leaves.
#include <malloc.h>
#include <mpi_notify.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bench_memory.hpp"
#include "bench_mpi.hpp"
#include "bench_report.hpp"
#include "bench_variants.hpp"

namespace {

// One window of `bytes` over `comm` made and freed; seconds on its rank 0,
// on every rank.
double create_and_free(const char *key, const char *value, MPI_Aint bytes,
                       MPI_Comm comm = MPI_COMM_WORLD) {
  MPI_Info info = bench::info_with(key, value);
  MPI_Barrier(comm);
  const double start = MPI_Wtime();
  char *base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate(bytes, 1, info, comm, &base, &win);
  if (std::strcmp(key, MPINOTIFY_INFO_KEY_DISABLE) != 0)
    MPI_Win_set_num_notify(win, MPI_INFO_NULL, 16);
  MPI_Win_free(&win);
  double seconds = MPI_Wtime() - start;
  MPI_Info_free(&info);
  MPI_Bcast(&seconds, 1, MPI_DOUBLE, 0, comm);
  return seconds;
}

// A 4 KiB window over MPI_COMM_WORLD with 16 counters, made with `info`
// (freed here), after a barrier.
MPI_Win counted_window(MPI_Info info) {
  char *base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate(4096, 1, info, MPI_COMM_WORLD, &base, &win);
  MPI_Info_free(&info);
  MPI_Win_set_num_notify(win, MPI_INFO_NULL, 16);
  MPI_Barrier(MPI_COMM_WORLD);
  return win;
}

// Microseconds per MPI_Win_set_num_notify without growth on a window of
// `backend`, in one of the variants above ("", "+same", "+differ"); on
// every rank.
double set_num_notify_us(const char *backend, const std::string &variant, int calls) {
  MPI_Info info = bench::info_with(MPINOTIFY_INFO_KEY_BACKEND, backend);
  if (variant == "+same") MPI_Info_set(info, MPI_INFO_KEY_ASSERT_SAME_NUM_NOTIFICATIONS, "true");
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int count = variant == "+differ" ? 16 + rank % 2 : 16;
  MPI_Win win = counted_window(info);
  // Untimed: 17 counters grow the storage once.
  MPI_Win_set_num_notify(win, MPI_INFO_NULL, count);
  const double start = MPI_Wtime();
  for (int i = 0; i < calls; ++i) MPI_Win_set_num_notify(win, MPI_INFO_NULL, count);
  double us = (MPI_Wtime() - start) * 1e6 / calls;
  MPI_Win_free(&win);
  MPI_Bcast(&us, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return us;
}

// VmRSS of this process in KiB.
long resident_kib() { return bench::proc_kib("/proc/self/status", "VmRSS:"); }

// Memory mappings of this process.
long mappings() {
  std::ifstream maps("/proc/self/maps");
  long lines = 0;
  for (std::string line; std::getline(maps, line);) ++lines;
  return lines;
}

// Bytes malloc has handed out and not had back (glibc's count).
double heap_bytes() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks + info.hblkhd);
}

struct Kept {
  double resident = 0;  // VmRSS growth
  double heap = 0;      // heap_bytes() growth
  double mappings = 0;  // mappings() growth
};

// Bytes of memory per window per rank (the largest rank's): 128 windows
// of 4 KiB kept open at once, with 16 counters each (and, `ring`, one
// notified put to the next rank). Pages are counted for the resident
// figure, so it is good to about 32 bytes.
Kept kept_bytes_per_window(const char *key, const char *value, bool ring = false) {
  constexpr int kWindows = 128;
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Info info = bench::info_with(key, value);
  std::vector<MPI_Win> wins(kWindows, MPI_WIN_NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  const long before = resident_kib();
  const double heap_before = heap_bytes();
  const long mappings_before = mappings();
  const char byte = 1;
  for (MPI_Win &win : wins) {
    char *base = nullptr;
    MPI_Win_allocate(4096, 1, info, MPI_COMM_WORLD, &base, &win);
    if (std::strcmp(key, MPINOTIFY_INFO_KEY_DISABLE) != 0)
      MPI_Win_set_num_notify(win, MPI_INFO_NULL, 16);
    if (ring) {
      MPI_Win_lock_all(0, win);
      MPI_Put_notify(&byte, 1, MPI_CHAR, (rank + 1) % size, 0, 1, MPI_CHAR, 0, win);
      MPI_Win_unlock_all(win);
    }
  }
  Kept kept{static_cast<double>(resident_kib() - before) * 1024.0 / kWindows,
            (heap_bytes() - heap_before) / kWindows,
            static_cast<double>(mappings() - mappings_before) / kWindows};
  for (MPI_Win &win : wins) MPI_Win_free(&win);
  MPI_Info_free(&info);
  MPI_Allreduce(MPI_IN_PLACE, &kept, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return kept;
}

// Heap bytes each new group of processes leaves behind (largest rank):
// one window made and freed over each rotation of MPI_COMM_WORLD's ranks
// (size - 1 groups, none of them MPI_COMM_WORLD's order or its reverse,
// which other lines use; so only at 3 ranks and more). What the network
// backends keep per group is its members' addresses where they are
// exchanged, nothing where peers read them from the process manager's
// store (MPINOTIFY_FAULT=directory:ucx,directory:ofi forces the exchange).
double heap_bytes_per_group(const char *key, const char *value) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 3) return 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double before = heap_bytes();
  for (int g = 1; g < size; ++g) {
    MPI_Comm rotated = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, 0, (rank + g) % size, &rotated);
    static_cast<void>(create_and_free(key, value, 4096, rotated));
    MPI_Comm_free(&rotated);
  }
  double per_group = (heap_bytes() - before) / (size - 1);
  MPI_Allreduce(MPI_IN_PLACE, &per_group, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return per_group;
}

// A detach on a dynamic window where each rank reads its next rank's
// memory only (one notified put): the microseconds of MPI_Win_detach and
// the heap it leaves (largest rank, median of `windows` windows made one
// after the other). A backend that tells every rank of a detach makes a
// peer of each; one that tells the ranks that read the memory, of one.
struct DetachCost {
  double us = 0;
  double heap = 0;
};
DetachCost detach_cost(const char *backend, int windows) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> times;
  std::vector<double> heaps;
  std::vector<char> memory(4096, 0);
  const char byte = 1;
  for (int w = 0; w < windows; ++w) {
    MPI_Info info = bench::info_with(MPINOTIFY_INFO_KEY_BACKEND, backend);
    MPI_Win win = MPI_WIN_NULL;
    MPI_Win_create_dynamic(info, MPI_COMM_WORLD, &win);
    MPI_Info_free(&info);
    MPI_Win_set_num_notify(win, MPI_INFO_NULL, 1);
    MPI_Win_attach(win, memory.data(), static_cast<MPI_Aint>(memory.size()));
    MPI_Aint mine = 0;
    MPI_Aint next_address = 0;
    MPI_Get_address(memory.data(), &mine);
    const int next = (rank + 1) % size;
    const int before = (rank + size - 1) % size;
    MPI_Sendrecv(&mine, 1, MPI_AINT, before, 0, &next_address, 1, MPI_AINT, next, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Win_lock_all(0, win);
    MPI_Put_notify(&byte, 1, MPI_CHAR, next, next_address, 1, MPI_CHAR, 0, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    const double heap_before = heap_bytes();
    const double start = MPI_Wtime();
    MPI_Win_detach(win, memory.data());
    double cost[2] = {(MPI_Wtime() - start) * 1e6, heap_bytes() - heap_before};
    MPI_Allreduce(MPI_IN_PLACE, cost, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    times.push_back(cost[0]);
    heaps.push_back(cost[1]);
    MPI_Win_free(&win);
  }
  auto median = [](std::vector<double> &v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  return {median(times), median(heaps)};
}

// Whether a window that asks for `backend` gets it (ofi: where libfabric was
// found and one of its providers serves); collective. `us`: its creation,
// set_num_notify and free, as create_and_free times them.
bool served(const char *backend, double &us) {
  MPI_Info info = bench::info_with(MPINOTIFY_INFO_KEY_BACKEND, backend);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  char *base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate(4096, 1, info, MPI_COMM_WORLD, &base, &win);
  MPI_Win_set_num_notify(win, MPI_INFO_NULL, 16);
  double elapsed = MPI_Wtime() - start;
  MPI_Info_free(&info);
  MPI_Info used = MPI_INFO_NULL;
  MPI_Win_get_info(win, &used);
  char value[MPI_MAX_INFO_VAL + 1] = {};
  int flag = 0;
  MPI_Info_get(used, MPINOTIFY_INFO_KEY_BACKEND, MPI_MAX_INFO_VAL, value, &flag);
  MPI_Info_free(&used);
  const double freeing = MPI_Wtime();
  MPI_Win_free(&win);
  elapsed += MPI_Wtime() - freeing;
  MPI_Bcast(&elapsed, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  us = elapsed * 1e6;
  return flag != 0 && std::strcmp(value, backend) == 0;
}

// Microseconds of MPI_Win_set_num_notify growing a window's counters from
// 16 to 4096 (on rank 0, on every rank).
double growth_us(const char *backend) {
  // No mpi_assert_max_num_notify: it would reserve the 4096 up front.
  MPI_Win win = counted_window(bench::info_with(MPINOTIFY_INFO_KEY_BACKEND, backend));
  const double start = MPI_Wtime();
  MPI_Win_set_num_notify(win, MPI_INFO_NULL, 4096);
  double us = (MPI_Wtime() - start) * 1e6;
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
  std::vector<const char *> backends = {"ucx", "sm", "pmpi"};
  std::map<std::string, double> first;
  first["host"] = create_and_free(MPINOTIFY_INFO_KEY_DISABLE, "true", 4096) * 1e6;
  for (const char *backend : backends)
    first[backend] = create_and_free(MPINOTIFY_INFO_KEY_BACKEND, backend, 4096) * 1e6;
  // ofi where it serves (its first window is the check).
  if (double us = 0; served("ofi", us)) {
    backends.push_back("ofi");
    first["ofi"] = us;
  }
  report.add("first_window_us", 4096, first);

  // A new group: the same processes in reverse order, once per variant.
  auto over_new_group = [&](const char *key, const char *value) {
    MPI_Comm reversed = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
    const double us = create_and_free(key, value, 4096, reversed) * 1e6;
    MPI_Comm_free(&reversed);
    return us;
  };
  std::map<std::string, double> fresh;
  for (const char *backend : backends)
    fresh[backend] = over_new_group(MPINOTIFY_INFO_KEY_BACKEND, backend);
  fresh["host"] = over_new_group(MPINOTIFY_INFO_KEY_DISABLE, "true");
  report.add("new_group_window_us", 4096, fresh);
  if (size >= 3) {
    std::map<std::string, double> groups;
    groups["host"] = heap_bytes_per_group(MPINOTIFY_INFO_KEY_DISABLE, "true");
    for (const char *backend : backends)
      groups[backend] = heap_bytes_per_group(MPINOTIFY_INFO_KEY_BACKEND, backend);
    report.add("heap_bytes_per_group", 4096, groups);
  }

  std::map<std::string, double> kept;
  std::map<std::string, double> heap;
  std::map<std::string, double> maps;
  // Once unrecorded: the first pass grows the heap for all of them.
  static_cast<void>(kept_bytes_per_window(MPINOTIFY_INFO_KEY_BACKEND, "ucx"));
  const Kept host = kept_bytes_per_window(MPINOTIFY_INFO_KEY_DISABLE, "true");
  kept["host"] = host.resident;
  heap["host"] = host.heap;
  maps["host"] = host.mappings;
  for (const char *backend : backends) {
    const Kept one = kept_bytes_per_window(MPINOTIFY_INFO_KEY_BACKEND, backend);
    kept[backend] = one.resident;
    heap[backend] = one.heap;
    maps[backend] = one.mappings;
  }
  for (const char *network : {"ucx", "ofi"}) {
    if (std::find(backends.begin(), backends.end(), std::string_view(network)) == backends.end())
      continue;
    // Once unrecorded too: the first put over a backend makes the process
    // pair's connection (libfabric's tcp provider allocates about 20 MB
    // of buffers for it), which is no window's.
    static_cast<void>(kept_bytes_per_window(MPINOTIFY_INFO_KEY_BACKEND, network, true));
    const Kept ring = kept_bytes_per_window(MPINOTIFY_INFO_KEY_BACKEND, network, true);
    heap[std::string(network) + "+ring"] = ring.heap;
    maps[std::string(network) + "+ring"] = ring.mappings;
  }
  report.add("kept_bytes_per_window", 4096, kept);
  report.add("heap_bytes_per_window", 4096, heap);
  report.add("mappings_per_window", 4096, maps);

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
    for (const std::string variant : {"", "+same", "+differ"}) {
      counts.emplace_back(std::string(backend) + variant, [backend, variant, calls] {
        return set_num_notify_us(backend, variant, calls);
      });
    }
  }
  report.add("set_num_notify_us", 16, bench::interleaved(counts, rounds));
  std::vector<std::pair<std::string, bench::Sample>> growths;
  for (const char *backend : backends)
    growths.emplace_back(backend, [backend] { return growth_us(backend); });
  report.add("growth_to_4096_us", 4096, bench::interleaved(growths, quick ? 3 : 11));
  std::map<std::string, double> detach_us;
  std::map<std::string, double> detach_heap;
  for (const char *backend : backends) {
    const DetachCost cost = detach_cost(backend, quick ? 3 : 9);
    detach_us[backend] = cost.us;
    detach_heap[backend] = cost.heap;
  }
  report.add("detach_us", 4096, detach_us);
  report.add("detach_heap_bytes", 4096, detach_heap);
  report.finish();
  MPI_Finalize();
  return 0;
}
