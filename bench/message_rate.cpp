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
#include <memory>
#include <string>
#include <vector>

#include "bench_mpi.hpp"
#include "bench_report.hpp"
#include "bench_variants.hpp"

namespace bench {
namespace {

// Raw shared memory: a store of the payload, then a release add to the
// counter; the peer spins on the counter.
Sample floor_rate(long n) {
  struct Segment {
    MPI_Win win = MPI_WIN_NULL;
    char *target = nullptr;
    Segment() {
      MPI_Info info = info_with(MPINOTIFY_INFO_KEY_DISABLE, "true");
      char *base = nullptr;
      MPI_Win_allocate_shared(4096, 1, info, MPI_COMM_WORLD, &base, &win);
      MPI_Info_free(&info);
      std::memset(base, 0, 4096);
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Aint size = 0;
      int unit = 0;
      MPI_Win_shared_query(win, 1, &size, &unit, &target);
    }
    ~Segment() { MPI_Win_free(&win); }
    Segment(const Segment &) = delete;
    Segment &operator=(const Segment &) = delete;
    std::int64_t &counter() const { return *reinterpret_cast<std::int64_t *>(target + 64); }
  };
  const auto segment = std::make_shared<Segment>();
  return rate(
      n,
      [segment](long i) {
        const std::int64_t payload = 42;
        std::memcpy(segment->target + 128 + (i % 32) * 8, &payload, 8);
        std::atomic_ref<std::int64_t>(segment->counter()).fetch_add(1, std::memory_order_release);
      },
      [segment](long total) {
        while (std::atomic_ref<std::int64_t>(segment->counter()).load(std::memory_order_acquire) <
               total) {
        }
      });
}

Sample sendrecv_rate(long n) {
  constexpr int kWindow = 64;
  struct Slots {
    std::vector<MPI_Request> requests = std::vector<MPI_Request>(kWindow);
    std::vector<std::int64_t> buffers = std::vector<std::int64_t>(kWindow, 42);
    long posted = 0;
  };
  const auto slots = std::make_shared<Slots>();
  return rate(
      n,
      [slots, n](long i) {
        Slots &s = *slots;
        MPI_Isend(&s.buffers[static_cast<std::size_t>(s.posted)], 8, MPI_BYTE, peer, 1,
                  MPI_COMM_WORLD, &s.requests[static_cast<std::size_t>(s.posted)]);
        if (++s.posted == kWindow || i % n == 0) {
          MPI_Waitall(static_cast<int>(s.posted), s.requests.data(), MPI_STATUSES_IGNORE);
          s.posted = 0;
        }
      },
      [slots, n](long) {
        Slots &s = *slots;
        for (long done = 0; done < n;) {
          const int batch = static_cast<int>(std::min<long>(kWindow, n - done));
          for (int k = 0; k < batch; ++k)
            MPI_Irecv(&s.buffers[static_cast<std::size_t>(k)], 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
                      &s.requests[static_cast<std::size_t>(k)]);
          MPI_Waitall(batch, s.requests.data(), MPI_STATUSES_IGNORE);
          done += batch;
        }
      });
}

// Both ranks add to their own counter N times; the counters are `gap`
// bytes apart. Millions of additions per second, both ranks together.
double shared_line_rate(std::size_t gap, long n, int repetitions) {
  MPI_Info info = info_with(MPINOTIFY_INFO_KEY_DISABLE, "true");
  char *base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate_shared(rank == 0 ? 4096 : 0, 1, info, MPI_COMM_WORLD, &base, &win);
  MPI_Info_free(&info);
  MPI_Aint size = 0;
  int unit = 0;
  char *segment = nullptr;
  MPI_Win_shared_query(win, 0, &size, &unit, &segment);
  if (rank == 0) std::memset(segment, 0, 4096);
  auto *mine =
      reinterpret_cast<std::int64_t *>(segment + 64 + static_cast<std::size_t>(rank) * gap);
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

void message_rate(Report &report, bool quick) {
  const int repetitions = quick ? 3 : 9;
  const long n = quick ? 20000 : 200000;
  report.add("rate_Mmsg_s", 8,
             interleaved({{"floor", floor_rate(n)},
                          {"sm", notified_rate("sm", n, 64)},
                          {"pmpi", notified_rate("pmpi", n / 20, 64)},
                          {"sendrecv", sendrecv_rate(n)},
                          {"putflag", putflag_rate(n / 20)}},
                         repetitions));

  std::map<std::string, double> lines;
  lines["packed_8B"] = shared_line_rate(8, n * 5, repetitions);
  lines["padded_64B"] = shared_line_rate(64, n * 5, repetitions);
  report.add("counters_Madd_s", 8, lines);
}

}  // namespace bench
