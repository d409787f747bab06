#include "bench_variants.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <utility>

#include "bench_mpi.hpp"
#include "bench_report.hpp"

namespace bench {

std::string swap_with_peer(const std::string &mine) {
  auto length = static_cast<int>(mine.size());
  int theirs_length = 0;
  MPI_Sendrecv(&length, 1, MPI_INT, peer, 7, &theirs_length, 1, MPI_INT, peer, 7, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  std::string theirs(static_cast<std::size_t>(theirs_length), '\0');
  MPI_Sendrecv(mine.data(), length, MPI_BYTE, peer, 8, theirs.data(), theirs_length, MPI_BYTE, peer,
               8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return theirs;
}

void spin_until(const std::int64_t *word, std::int64_t at_least) {
  while (std::atomic_ref<const std::int64_t>(*word).load(std::memory_order_acquire) < at_least) {
  }
}

void wait_counter(MPI_Win win, int idx, MPI_Count at_least) {
  MPI_Count v = 0;
  do {
    MPI_Win_get_notify_value(win, idx, &v);
  } while (v < at_least);
}

namespace {

// The rates' flag: lane 0's.
constexpr auto kFlagAt = static_cast<MPI_Aint>(flag_offset(0));
// Data, then kLanes flag lines: the flags end where lane kLanes would start.
constexpr std::size_t kPlainBytes = flag_offset(kLanes);
constexpr std::int64_t kPayload = 42;

// Rank 0's value, on both ranks.
double agreed(double value) {
  MPI_Bcast(&value, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return value;
}

}  // namespace

Options parse_options(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    options.json = options.json || std::strcmp(argv[i], "--json") == 0;
    options.quick = options.quick || std::strcmp(argv[i], "--quick") == 0;
  }
  return options;
}

bool two_ranks(const char *program) {
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  peer = 1 - rank;
  if (size == 2) return true;
  if (rank == 0) std::fprintf(stderr, "%s: run with exactly 2 ranks\n", program);
  return false;
}

void ping_pong(const std::function<void()> &send, const std::function<void()> &receive) {
  if (rank % 2 == 0) {
    send();
    receive();
  } else {
    receive();
    send();
  }
}

Sample one_way_us(RoundTrip round_trip, long iterations, long &next, std::function<void()> settle) {
  return [round_trip = std::move(round_trip), iterations, &next, settle = std::move(settle)] {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (long i = 0; i < iterations; ++i) round_trip(++next);
    if (settle) settle();
    return agreed((MPI_Wtime() - start) / static_cast<double>(iterations) / 2 * 1e6);
  };
}

Sample rate(long n, std::function<void(long)> send, std::function<void(long total)> wait_all,
            std::function<void()> complete) {
  return [n, send = std::move(send), wait_all = std::move(wait_all), complete = std::move(complete),
          base = 0L]() mutable {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    if (rank == 0) {
      for (long i = 1; i <= n; ++i) send(base + i);
      complete();
      MPI_Recv(nullptr, 0, MPI_BYTE, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      wait_all(base + n);
      MPI_Send(nullptr, 0, MPI_BYTE, peer, 9, MPI_COMM_WORLD);
    }
    base += n;
    return agreed(static_cast<double>(n) / (MPI_Wtime() - start) / 1e6);
  };
}

std::map<std::string, double> interleaved(
    const std::vector<std::pair<std::string, Sample>> &variants, int rounds) {
  std::map<std::string, std::vector<double>> samples;
  for (int round = -1; round < rounds; ++round) {
    for (const auto &[name, sample] : variants) {
      const double value = sample();
      if (round >= 0) samples[name].push_back(value);
    }
  }
  std::map<std::string, double> medians;
  for (const auto &[name, values] : samples) medians[name] = median(values);
  return medians;
}

PlainWindow::PlainWindow(bool shared) {
  MPI_Info info = info_with(MPINOTIFY_INFO_KEY_DISABLE, "true");
  const auto size = static_cast<MPI_Aint>(kPlainBytes);
  if (shared) {
    MPI_Win_allocate_shared(size, 1, info, MPI_COMM_WORLD, &base, &win);
  } else {
    MPI_Win_allocate(size, 1, info, MPI_COMM_WORLD, &base, &win);
  }
  MPI_Info_free(&info);
  std::memset(base, 0, kPlainBytes);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  MPI_Barrier(MPI_COMM_WORLD);
}

PlainWindow::~PlainWindow() {
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
}

NotifyWindow::NotifyWindow(const char *backend, bool required) {
  MPI_Info info = info_with(MPINOTIFY_INFO_KEY_BACKEND, backend);
  // Creation errors go to the communicator's handler.
  if (!required) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int rc =
      MPI_Win_allocate(static_cast<MPI_Aint>(kMaxBytes), 1, info, MPI_COMM_WORLD, &base, &win);
  if (!required) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) {
    win = MPI_WIN_NULL;
    return;
  }
  MPI_Win_set_num_notify(win, MPI_INFO_NULL, kLanes);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  MPI_Barrier(MPI_COMM_WORLD);
}

NotifyWindow::~NotifyWindow() {
  if (win == MPI_WIN_NULL) return;
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
}

RoundTrip notified_round_trip(const NotifyWindow &w, std::size_t bytes,
                              const std::vector<char> &buffer, bool flush) {
  return [&w, bytes, &buffer, flush](long i) {
    const Lane lane = lane_of(i);
    ping_pong(
        [&] {
          MPI_Put_notify(buffer.data(), static_cast<int>(bytes), MPI_BYTE, peer, 0,
                         static_cast<int>(bytes), MPI_BYTE, lane.index, w.win);
          if (flush) MPI_Win_flush(peer, w.win);
        },
        [&] { wait_counter(w.win, lane.index, lane.value); });
  };
}

RoundTrip floor_round_trip(const PlainWindow &w, std::size_t bytes,
                           const std::vector<char> &buffer) {
  MPI_Aint size = 0;
  int unit = 0;
  char *mine = nullptr;  // only its flags are read here
  char *theirs = nullptr;
  MPI_Win_shared_query(w.win, rank, &size, &unit, &mine);
  MPI_Win_shared_query(w.win, peer, &size, &unit, &theirs);
  return [=, &buffer](long i) {
    const Lane lane = lane_of(i);
    auto *my_flag = reinterpret_cast<std::int64_t *>(mine + flag_offset(lane.index));
    auto *their_flag = reinterpret_cast<std::int64_t *>(theirs + flag_offset(lane.index));
    ping_pong(
        [&] {
          std::memcpy(theirs, buffer.data(), bytes);
          std::atomic_ref<std::int64_t>(*their_flag).store(lane.value, std::memory_order_release);
        },
        // Like a put: the data stays where it landed.
        [&] { spin_until(my_flag, lane.value); });
  };
}

RoundTrip putflag_round_trip(const PlainWindow &w, std::size_t bytes,
                             const std::vector<char> &buffer) {
  return [&w, bytes, &buffer](long i) {
    const Lane lane = lane_of(i);
    const auto flag = static_cast<MPI_Aint>(flag_offset(lane.index));
    ping_pong(
        [&] {
          const std::int64_t value = lane.value;
          MPI_Put(buffer.data(), static_cast<int>(bytes), MPI_BYTE, peer, 0,
                  static_cast<int>(bytes), MPI_BYTE, w.win);
          MPI_Win_flush(peer, w.win);
          MPI_Accumulate(&value, 1, MPI_INT64_T, peer, flag, 1, MPI_INT64_T, MPI_REPLACE, w.win);
          MPI_Win_flush(peer, w.win);
        },
        [&] {
          while (poll_flag(w.win, rank, flag) < lane.value) {
          }
        });
  };
}

RoundTrip sendrecv_round_trip(std::size_t bytes, std::vector<char> &buffer) {
  return [bytes, &buffer](long) {
    const int n = static_cast<int>(bytes);
    ping_pong(
        [&] { MPI_Send(buffer.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD); },
        [&] { MPI_Recv(buffer.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); });
  };
}

Sample notified_rate(const char *backend, long n, long flush_every) {
  const auto w = std::make_shared<NotifyWindow>(backend);
  return rate(
      n,
      [w, flush_every](long i) {
        MPI_Put_notify(&kPayload, 8, MPI_BYTE, peer, (i % 32) * 8, 8, MPI_BYTE, 1, w->win);
        if (i % flush_every == 0) MPI_Win_flush(peer, w->win);
      },
      [w](long total) { wait_counter(w->win, 1, total); },
      // Notifications complete at a flush, like the puts they belong to.
      [w] { MPI_Win_flush(peer, w->win); });
}

Sample putflag_rate(long n) {
  const auto w = std::make_shared<PlainWindow>(false);
  return rate(
      n,
      [w](long i) {
        const std::int64_t one = 1;
        MPI_Put(&kPayload, 8, MPI_BYTE, peer, (i % 32) * 8, 8, MPI_BYTE, w->win);
        MPI_Win_flush(peer, w->win);
        MPI_Accumulate(&one, 1, MPI_INT64_T, peer, kFlagAt, 1, MPI_INT64_T, MPI_SUM, w->win);
        MPI_Win_flush(peer, w->win);
      },
      [w](long total) {
        while (poll_flag(w->win, rank, kFlagAt) < total) {
        }
      });
}

}  // namespace bench
