// Notified RMA against its baselines, in one run, on two ranks pinned to
// different cores. Every figure is the median over repetitions; ratios are
// printed against the raw shared-memory floor and against each baseline.
//
//   mpirun -n 2 --bind-to core notify_bench [--json] [--quick]
//
// Variants:
//   floor     raw shared memory: memcpy into the peer's memory, then a flag
//             store (release); the peer spins on the flag (acquire). No MPI
//             in the loop.
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
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench_mpi.hpp"
#include "bench_report.hpp"

namespace {

using bench::info_with;

constexpr std::size_t kMaxBytes = std::size_t{1} << 20;
int rank = 0;
int peer = 0;

// --- windows -------------------------------------------------------------

// A window of `bytes` plus a flag line, without notifications, in a
// lock_all epoch.
struct PlainWindow {
  MPI_Win win = MPI_WIN_NULL;
  char *base = nullptr;
  explicit PlainWindow(std::size_t bytes, bool shared) {
    MPI_Info info = info_with(MPINOTIFY_INFO_KEY_DISABLE, "true");
    const auto size = static_cast<MPI_Aint>(bytes + 128);
    if (shared) {
      MPI_Win_allocate_shared(size, 1, info, MPI_COMM_WORLD, &base, &win);
    } else {
      MPI_Win_allocate(size, 1, info, MPI_COMM_WORLD, &base, &win);
    }
    MPI_Info_free(&info);
    std::memset(base, 0, bytes + 128);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ~PlainWindow() {
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
  }
};

// A notifying window served by `backend`, in a lock_all epoch.
struct NotifyWindow {
  MPI_Win win = MPI_WIN_NULL;
  char *base = nullptr;
  NotifyWindow(const char *backend, std::size_t bytes) {
    MPI_Info info = info_with(MPINOTIFY_INFO_KEY_BACKEND, backend);
    MPI_Win_allocate(static_cast<MPI_Aint>(bytes), 1, info, MPI_COMM_WORLD, &base, &win);
    MPI_Info_free(&info);
    MPI_Win_set_num_notify(win, MPI_INFO_NULL, 4);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ~NotifyWindow() {
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
  }
};

void wait_counter(MPI_Win win, int idx, MPI_Count at_least) {
  MPI_Count v = 0;
  do {
    MPI_Win_get_notify_value(win, idx, &v);
  } while (v < at_least);
}

// --- one iteration of each ping-pong (one round trip) ----------------------

using RoundTrip = std::function<void(long iteration)>;

RoundTrip floor_round_trip(const PlainWindow &w, std::size_t bytes, std::vector<char> &buffer) {
  // Shared memory of both ranks: data at 0, flag in the line after the data.
  MPI_Aint size = 0;
  int unit = 0;
  char *mine = nullptr;  // only its flag is read here
  char *theirs = nullptr;
  MPI_Win_shared_query(w.win, rank, &size, &unit, &mine);
  MPI_Win_shared_query(w.win, peer, &size, &unit, &theirs);
  auto *my_flag = reinterpret_cast<std::int64_t *>(mine + kMaxBytes + 64);
  auto *their_flag = reinterpret_cast<std::int64_t *>(theirs + kMaxBytes + 64);
  return [=, &buffer](long i) {
    auto send = [&] {
      std::memcpy(theirs, buffer.data(), bytes);
      std::atomic_ref<std::int64_t>(*their_flag).store(i, std::memory_order_release);
    };
    // Like a put: the data stays where it landed.
    auto receive = [&] {
      while (std::atomic_ref<std::int64_t>(*my_flag).load(std::memory_order_acquire) < i) {
      }
    };
    if (rank == 0) {
      send();
      receive();
    } else {
      receive();
      send();
    }
  };
}

RoundTrip notified_round_trip(const NotifyWindow &w, std::size_t bytes, std::vector<char> &buffer) {
  return [&w, bytes, &buffer](long i) {
    auto send = [&] {
      MPI_Put_notify(buffer.data(), static_cast<int>(bytes), MPI_BYTE, peer, 0,
                     static_cast<int>(bytes), MPI_BYTE, 0, w.win);
      MPI_Win_flush(peer, w.win);
    };
    if (rank == 0) {
      send();
      wait_counter(w.win, 0, i);
    } else {
      wait_counter(w.win, 0, i);
      send();
    }
  };
}

RoundTrip sendrecv_round_trip(std::size_t bytes, std::vector<char> &buffer) {
  return [bytes, &buffer](long) {
    const int n = static_cast<int>(bytes);
    if (rank == 0) {
      MPI_Send(buffer.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      MPI_Recv(buffer.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buffer.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
    }
  };
}

RoundTrip putflag_round_trip(const PlainWindow &w, std::size_t bytes, std::vector<char> &buffer) {
  const auto flag_at = static_cast<MPI_Aint>(kMaxBytes + 64);
  return [=, &w, &buffer](long i) {
    auto send = [&] {
      const std::int64_t value = i;
      MPI_Put(buffer.data(), static_cast<int>(bytes), MPI_BYTE, peer, 0, static_cast<int>(bytes),
              MPI_BYTE, w.win);
      MPI_Win_flush(peer, w.win);
      MPI_Accumulate(&value, 1, MPI_INT64_T, peer, flag_at, 1, MPI_INT64_T, MPI_REPLACE, w.win);
      MPI_Win_flush(peer, w.win);
    };
    auto receive = [&] {
      while (bench::poll_flag(w.win, rank, flag_at) < i) {
      }
    };
    if (rank == 0) {
      send();
      receive();
    } else {
      receive();
      send();
    }
  };
}

// Median one-way time in microseconds: repetitions of `iterations` round
// trips, each timed on rank 0 and halved.
double one_way_us(const RoundTrip &round_trip, long iterations, int repetitions, long &next) {
  std::vector<double> samples;
  for (long i = 0; i < iterations / 10 + 1; ++i) round_trip(++next);  // warm up
  for (int r = 0; r < repetitions; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (long i = 0; i < iterations; ++i) round_trip(++next);
    samples.push_back((MPI_Wtime() - start) / static_cast<double>(iterations) / 2 * 1e6);
  }
  MPI_Bcast(samples.data(), static_cast<int>(samples.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return bench::median(samples);
}

void latency(bench::Report &report, bool quick) {
  std::vector<char> buffer(kMaxBytes, 'x');
  PlainWindow shared(kMaxBytes, true);
  PlainWindow plain(kMaxBytes, false);
  NotifyWindow sm("sm", kMaxBytes);
  NotifyWindow pmpi("pmpi", kMaxBytes);
  long floor_next = 0, sm_next = 0, pmpi_next = 0, putflag_next = 0, sendrecv_next = 0;
  const int repetitions = quick ? 3 : 11;
  // (bytes, round trips per repetition): fewer for large messages.
  const std::pair<std::size_t, long> sizes[] = {{8, 20000},   {64, 20000},   {512, 10000},
                                                {4096, 5000}, {32768, 1000}, {262144, 200},
                                                {1048576, 50}};
  for (const auto &[bytes, full] : sizes) {
    const long iterations = quick ? std::max(10L, full / 10) : full;
    std::map<std::string, double> us;
    us["floor"] =
        one_way_us(floor_round_trip(shared, bytes, buffer), iterations, repetitions, floor_next);
    us["sm"] = one_way_us(notified_round_trip(sm, bytes, buffer), iterations, repetitions, sm_next);
    // The slow variants run fewer round trips.
    us["pmpi"] = one_way_us(notified_round_trip(pmpi, bytes, buffer), iterations / 4 + 1,
                            repetitions, pmpi_next);
    us["sendrecv"] =
        one_way_us(sendrecv_round_trip(bytes, buffer), iterations, repetitions, sendrecv_next);
    us["putflag"] = one_way_us(putflag_round_trip(plain, bytes, buffer), iterations / 4 + 1,
                               repetitions, putflag_next);
    report.add("latency_us", bytes, us);
  }
}

}  // namespace

namespace bench {
void message_rate(Report &report, bool quick, int rank_, int peer_);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bool json = false;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    json = json || std::strcmp(argv[i], "--json") == 0;
    quick = quick || std::strcmp(argv[i], "--quick") == 0;
  }
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "notify_bench: run with exactly 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  peer = 1 - rank;
  const int cpu = sched_getcpu();
  int cpus[2] = {-1, -1};
  MPI_Gather(&cpu, 1, MPI_INT, cpus, 1, MPI_INT, 0, MPI_COMM_WORLD);
  bench::Report report(json, rank == 0);
  report.note("ranks on cpus " + std::to_string(cpus[0]) + " and " + std::to_string(cpus[1]) +
              (cpus[0] == cpus[1] ? " (SAME CORE: pin the ranks, e.g. --bind-to core)" : ""));
  latency(report, quick);
  bench::message_rate(report, quick, rank, peer);
  report.finish();
  MPI_Finalize();
  return 0;
}
