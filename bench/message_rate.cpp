// Streaming message rate: rank 0 sends N 8-byte messages to rank 1, which
// waits for the last one and acknowledges; the rate is N over rank 0's time
// from start to acknowledgement. Then the cost of counters sharing a cache
// line, measured on raw shared memory (why sm pads counters).
#include <mpi_notify.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench_mpi.hpp"
#include "bench_report.hpp"

namespace bench {
namespace {

int me = 0;
int other = 1;

// Rank 0 runs `send` N times and `complete` once, rank 1 `wait_all` once,
// then acknowledges; returns the median rate in millions of messages per
// second.
double rate(
    long n, int repetitions, const std::function<void(long)> &send,
    const std::function<void(long)> &wait_all, const std::function<void()> &complete = [] {}) {
  std::vector<double> samples;
  long base = 0;
  for (int r = 0; r < repetitions; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    if (me == 0) {
      for (long i = 1; i <= n; ++i) send(base + i);
      complete();
      MPI_Recv(nullptr, 0, MPI_BYTE, other, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      wait_all(base + n);
      MPI_Send(nullptr, 0, MPI_BYTE, other, 9, MPI_COMM_WORLD);
    }
    samples.push_back(static_cast<double>(n) / (MPI_Wtime() - start) / 1e6);
    base += n;
  }
  MPI_Bcast(samples.data(), static_cast<int>(samples.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return median(samples);
}

double floor_rate(long n, int repetitions) {
  MPI_Info info = info_with(MPINOTIFY_INFO_KEY_DISABLE, "true");
  char *base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate_shared(4096, 1, info, MPI_COMM_WORLD, &base, &win);
  MPI_Info_free(&info);
  std::memset(base, 0, 4096);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Aint size = 0;
  int unit = 0;
  char *target = nullptr;
  MPI_Win_shared_query(win, 1, &size, &unit, &target);
  auto *counter = reinterpret_cast<std::int64_t *>(target + 64);
  const std::int64_t payload = 42;
  const double r = rate(
      n, repetitions,
      [&](long i) {
        std::memcpy(target + 128 + (i % 32) * 8, &payload, 8);
        std::atomic_ref<std::int64_t>(*counter).fetch_add(1, std::memory_order_release);
      },
      [&](long total) {
        while (std::atomic_ref<std::int64_t>(*counter).load(std::memory_order_acquire) < total) {
        }
      });
  MPI_Win_free(&win);
  return r;
}

double notified_rate(const char *backend, long n, int repetitions) {
  MPI_Info info = info_with(MPINOTIFY_INFO_KEY_BACKEND, backend);
  char *base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate(4096, 1, info, MPI_COMM_WORLD, &base, &win);
  MPI_Info_free(&info);
  MPI_Win_set_num_notify(win, MPI_INFO_NULL, 2);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  const std::int64_t payload = 42;
  const double r = rate(
      n, repetitions,
      [&](long i) {
        MPI_Put_notify(&payload, 8, MPI_BYTE, other, (i % 32) * 8, 8, MPI_BYTE, 1, win);
        if (i % 64 == 0) MPI_Win_flush(other, win);
      },
      [&](long total) {
        MPI_Count v = 0;
        do {
          MPI_Win_get_notify_value(win, 1, &v);
        } while (v < total);
      },
      // Notifications complete at a flush, like the puts they belong to.
      [&] { MPI_Win_flush(other, win); });
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  return r;
}

double sendrecv_rate(long n, int repetitions) {
  constexpr int kWindow = 64;
  std::vector<MPI_Request> requests(kWindow);
  std::vector<std::int64_t> buffers(kWindow, 42);
  long posted = 0;
  return rate(
      n, repetitions,
      [&](long i) {
        MPI_Isend(&buffers[static_cast<std::size_t>(posted)], 8, MPI_BYTE, other, 1, MPI_COMM_WORLD,
                  &requests[static_cast<std::size_t>(posted)]);
        if (++posted == kWindow || i % n == 0) {
          MPI_Waitall(static_cast<int>(posted), requests.data(), MPI_STATUSES_IGNORE);
          posted = 0;
        }
      },
      [&](long) {
        for (long done = 0; done < n;) {
          const int batch = static_cast<int>(std::min<long>(kWindow, n - done));
          for (int k = 0; k < batch; ++k)
            MPI_Irecv(&buffers[static_cast<std::size_t>(k)], 8, MPI_BYTE, other, 1, MPI_COMM_WORLD,
                      &requests[static_cast<std::size_t>(k)]);
          MPI_Waitall(batch, requests.data(), MPI_STATUSES_IGNORE);
          done += batch;
        }
      });
}

double putflag_rate(long n, int repetitions) {
  MPI_Info info = info_with(MPINOTIFY_INFO_KEY_DISABLE, "true");
  char *base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate(4096, 1, info, MPI_COMM_WORLD, &base, &win);
  MPI_Info_free(&info);
  std::memset(base, 0, 4096);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  MPI_Barrier(MPI_COMM_WORLD);
  const std::int64_t payload = 42;
  const std::int64_t one = 1;
  const double r = rate(
      n, repetitions,
      [&](long i) {
        MPI_Put(&payload, 8, MPI_BYTE, other, 128 + (i % 32) * 8, 8, MPI_BYTE, win);
        MPI_Win_flush(other, win);
        MPI_Accumulate(&one, 1, MPI_INT64_T, other, 64, 1, MPI_INT64_T, MPI_SUM, win);
        MPI_Win_flush(other, win);
      },
      [&](long total) {
        while (poll_flag(win, me, 64) < total) {
        }
      });
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  return r;
}

// Both ranks add to their own counter N times; the counters are `gap`
// bytes apart. Millions of additions per second, both ranks together.
double shared_line_rate(std::size_t gap, long n, int repetitions) {
  MPI_Info info = info_with(MPINOTIFY_INFO_KEY_DISABLE, "true");
  char *base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate_shared(me == 0 ? 4096 : 0, 1, info, MPI_COMM_WORLD, &base, &win);
  MPI_Info_free(&info);
  MPI_Aint size = 0;
  int unit = 0;
  char *segment = nullptr;
  MPI_Win_shared_query(win, 0, &size, &unit, &segment);
  if (me == 0) std::memset(segment, 0, 4096);
  auto *mine = reinterpret_cast<std::int64_t *>(segment + 64 + static_cast<std::size_t>(me) * gap);
  std::vector<double> samples;
  for (int r = 0; r < repetitions; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (long i = 0; i < n; ++i)
      std::atomic_ref<std::int64_t>(*mine).fetch_add(1, std::memory_order_release);
    double seconds = MPI_Wtime() - start;
    MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    samples.push_back(2.0 * static_cast<double>(n) / seconds / 1e6);
  }
  MPI_Win_free(&win);
  return median(samples);
}

}  // namespace

void message_rate(Report &report, bool quick, int rank, int peer) {
  me = rank;
  other = peer;
  const int repetitions = quick ? 3 : 9;
  const long n = quick ? 20000 : 200000;
  std::map<std::string, double> mmsgs;
  mmsgs["floor"] = floor_rate(n, repetitions);
  mmsgs["sm"] = notified_rate("sm", n, repetitions);
  mmsgs["pmpi"] = notified_rate("pmpi", n / 20, repetitions);
  mmsgs["sendrecv"] = sendrecv_rate(n, repetitions);
  mmsgs["putflag"] = putflag_rate(n / 20, repetitions);
  report.add("rate_Mmsg_s", 8, mmsgs);

  std::map<std::string, double> lines;
  lines["packed_8B"] = shared_line_rate(8, n * 5, repetitions);
  lines["padded_64B"] = shared_line_rate(64, n * 5, repetitions);
  report.add("counters_Madd_s", 8, lines);
}

}  // namespace bench
