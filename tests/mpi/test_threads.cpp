// SEMANTICS 6.2: under MPI_THREAD_MULTIPLE every entry point is safe to
// call concurrently from many threads, on one window or many; with 2.7 and
// 2.9 exercised from threads (resets racing increments, threshold requests
// waited on by several threads at once).
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harness.hpp"
#include "threads_fixture.hpp"

namespace {

using mpitest::Flavor;
using mpitest::TestWindow;
using mpitest::Threads;

constexpr int kWorkers = 4;       // threads issuing notified operations
constexpr int kOpsPerTarget = 8;  // per worker, target and repetition: even k put, odd k accumulate
// A worker repeats its operations until the helper threads (poller,
// resetter) have made kHelperRounds rounds while it worked, so that they
// overlap even where the operations are fast (and the helpers get few
// turns); it stops repeating after kRepeatSeconds.
constexpr int kHelperRounds = 20;
constexpr double kRepeatSeconds = 0.5;
constexpr double kDeadlineSeconds = 60.0;

// The value worker `thread` of rank `origin` writes in its k-th operation.
std::int64_t value_of(int origin, int thread, int k) {
  return (origin + 1) * 1000000LL + (thread + 1) * 1000LL + k + 1;
}

// Byte offset of that value in the target's window: [origin][thread][k].
MPI_Aint offset_of(int origin, int thread, int k) {
  return static_cast<MPI_Aint>(((origin * kWorkers) + thread) * kOpsPerTarget + k) *
         static_cast<MPI_Aint>(sizeof(std::int64_t));
}

constexpr int kPuts = (kOpsPerTarget + 1) / 2;   // k even
constexpr int kAccumulates = kOpsPerTarget / 2;  // k odd

// Lets a busy thread give the cores to the ranks and threads doing the work.
void pause_briefly() { sched_yield(); }

// Reads counters `indices` of `wins` until told to stop; every read must
// succeed and none may decrease (nobody resets these counters).
class Poller {
 public:
  Poller(std::vector<MPI_Win> wins, std::vector<int> indices)
      : wins_(std::move(wins)), indices_(std::move(indices)), thread_([this] { run(); }) {}
  ~Poller() { stop(); }
  Poller(const Poller &) = delete;
  Poller &operator=(const Poller &) = delete;
  void stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  int reads() const { return reads_; }
  int rounds() const { return rounds_.load(); }
  int failures() const { return failures_; }
  const std::string &first_failure() const { return first_failure_; }

 private:
  void run() {
    std::vector<MPI_Count> last(wins_.size() * indices_.size(), 0);
    while (!stop_.load()) {
      for (std::size_t w = 0; w < wins_.size(); ++w) {
        for (std::size_t i = 0; i < indices_.size(); ++i) {
          MPI_Count v = -1;
          const int rc = MPI_Win_get_notify_value(wins_[w], indices_[i], &v);
          ++reads_;
          MPI_Count &prev = last[w * indices_.size() + i];
          if (rc != MPI_SUCCESS || v < prev) {
            if (failures_++ == 0)
              first_failure_ = "window " + std::to_string(w) + " counter " +
                               std::to_string(indices_[i]) + ": rc " + std::to_string(rc) +
                               ", read " + std::to_string(v) + " after " + std::to_string(prev);
          }
          if (rc == MPI_SUCCESS) prev = v;
        }
      }
      rounds_.fetch_add(1);
      pause_briefly();
    }
  }

  std::vector<MPI_Win> wins_;
  std::vector<int> indices_;
  std::atomic<bool> stop_{false};
  std::atomic<int> rounds_{0};
  int reads_ = 0;
  int failures_ = 0;
  std::string first_failure_;
  std::thread thread_;  // last: starts once everything else exists
};

// Resets counter `idx` of each of `wins` in turn until told to stop,
// summing what each reset returned per window.
class Resetter {
 public:
  Resetter(std::vector<MPI_Win> wins, int idx)
      : wins_(std::move(wins)), idx_(idx), sums_(wins_.size(), 0), thread_([this] { run(); }) {}
  ~Resetter() { stop(); }
  Resetter(const Resetter &) = delete;
  Resetter &operator=(const Resetter &) = delete;
  void stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  MPI_Count sum(std::size_t w) const { return sums_[w]; }
  int rounds() const { return rounds_.load(); }
  int nonzero() const { return nonzero_; }
  int failures() const { return failures_; }

 private:
  void run() {
    while (!stop_.load()) {
      for (std::size_t w = 0; w < wins_.size(); ++w) {
        MPI_Count old = -1;
        const int rc = MPI_Win_reset_notify_value(wins_[w], idx_, &old);
        if (rc != MPI_SUCCESS || old < 0) {
          ++failures_;
          continue;
        }
        if (old > 0) ++nonzero_;
        sums_[w] += old;
      }
      rounds_.fetch_add(1);
      pause_briefly();
    }
  }

  std::vector<MPI_Win> wins_;
  int idx_;
  std::vector<MPI_Count> sums_;
  std::atomic<bool> stop_{false};
  std::atomic<int> rounds_{0};
  int nonzero_ = 0;
  int failures_ = 0;
  std::thread thread_;
};

// Worker `thread`'s share on `w`: to every rank, kOpsPerTarget operations,
// even k an MPI_Put_notify on counter `put_idx`, odd k an
// MPI_Accumulate_notify (SUM) on counter `acc_idx`, each with
// value_of(me, thread, k) at offset_of(me, thread, k). Every other pair of
// operations goes through the request-based forms.
void issue_share(const TestWindow &w, int thread, int put_idx, int acc_idx) {
  const int me = mpitest::rank();
  const int n = mpitest::size();
  std::vector<std::int64_t> values(static_cast<std::size_t>(kOpsPerTarget));
  for (int k = 0; k < kOpsPerTarget; ++k)
    values[static_cast<std::size_t>(k)] = value_of(me, thread, k);
  for (int k = 0; k < kOpsPerTarget; ++k) {
    const std::int64_t *value = &values[static_cast<std::size_t>(k)];
    const bool with_request = (k / 2) % 2 == 1;
    for (int step = 0; step < n; ++step) {
      const int t = (me + thread + step) % n;
      const MPI_Aint disp = w.disp(t, offset_of(me, thread, k));
      MPI_Request request = MPI_REQUEST_NULL;
      if (k % 2 == 0) {
        EXPECT_MPI_OK(with_request ? MPI_Rput_notify(value, 1, MPI_INT64_T, t, disp, 1, MPI_INT64_T,
                                                     put_idx, w.win(), &request)
                                   : MPI_Put_notify(value, 1, MPI_INT64_T, t, disp, 1, MPI_INT64_T,
                                                    put_idx, w.win()));
      } else {
        EXPECT_MPI_OK(with_request
                          ? MPI_Raccumulate_notify(value, 1, MPI_INT64_T, t, disp, 1, MPI_INT64_T,
                                                   MPI_SUM, acc_idx, w.win(), &request)
                          : MPI_Accumulate_notify(value, 1, MPI_INT64_T, t, disp, 1, MPI_INT64_T,
                                                  MPI_SUM, acc_idx, w.win()));
      }
      if (with_request) {
        EXPECT_MPI_OK(MPI_Wait(&request, MPI_STATUS_IGNORE));
      }
    }
    EXPECT_MPI_OK(MPI_Win_flush_all(w.win()));
  }
}

// issue_share repeated while `helper_rounds()` has advanced by less than
// kHelperRounds since the first, within kRepeatSeconds; returns the number
// of repetitions.
template <class HelperRounds>
int issue_shares(const TestWindow &w, int thread, int put_idx, int acc_idx,
                 HelperRounds &&helper_rounds) {
  const int start = helper_rounds();
  const double until = MPI_Wtime() + kRepeatSeconds;
  int reps = 0;
  do {
    issue_share(w, thread, put_idx, acc_idx);
    ++reps;
  } while (helper_rounds() - start < kHelperRounds && MPI_Wtime() < until);
  return reps;
}

// Every rank's repetitions per worker: all[origin * kWorkers + thread].
std::vector<int> exchange_reps(const std::vector<int> &mine) {
  std::vector<int> all(static_cast<std::size_t>(mpitest::size() * kWorkers), 0);
  EXPECT_MPI_OK(
      MPI_Allgather(mine.data(), kWorkers, MPI_INT, all.data(), kWorkers, MPI_INT, MPI_COMM_WORLD));
  return all;
}

int reps_of(const std::vector<int> &all, int origin, int thread) {
  return all[static_cast<std::size_t>(origin * kWorkers + thread)];
}

// What the slot of (origin, thread, k) holds after `reps` repetitions:
// puts overwrite, accumulates add up.
std::int64_t expected_value(int origin, int thread, int k, int reps) {
  return k % 2 == 0 ? value_of(origin, thread, k) : reps * value_of(origin, thread, k);
}

std::int64_t slot(const TestWindow &w, int origin, int thread, int k) {
  return *reinterpret_cast<const std::int64_t *>(w.base() + offset_of(origin, thread, k));
}

MPI_Aint window_bytes() {
  return static_cast<MPI_Aint>(mpitest::size()) * kWorkers * kOpsPerTarget *
         static_cast<MPI_Aint>(sizeof(std::int64_t));
}

// SEMANTICS 6.2, 2.7, 3.1: kWorkers threads per rank issue notified puts
// and accumulates (blocking and request-based) on ONE window to every rank,
// while a thread polls the accumulate counters and another resets the put
// counter. Every value lands; every counter is exact (resets included).
TEST_F(Threads, ConcurrentOpsOneWindow_6_2) {
  TestWindow w(Flavor::allocate, window_bytes());
  // Counter 0: every put (reset racing); 1 + t: worker t's accumulates.
  w.set_num_notify(1 + kWorkers);
  const int n = mpitest::size();
  const int me = mpitest::rank();
  std::vector<int> accumulate_counters;
  for (int t = 0; t < kWorkers; ++t) accumulate_counters.push_back(1 + t);

  EXPECT_MPI_OK(MPI_Win_lock_all(0, w.win()));
  Poller poller({w.win()}, accumulate_counters);
  Resetter resetter({w.win()}, 0);
  // The workers start once the helpers are running, so they overlap.
  while (poller.rounds() == 0 || resetter.rounds() == 0) pause_briefly();
  auto helper_rounds = [&] { return std::min(poller.rounds(), resetter.rounds()); };
  std::vector<int> my_reps(kWorkers, 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < kWorkers; ++t) {
    workers.emplace_back([&, t] {
      my_reps[static_cast<std::size_t>(t)] = issue_shares(w, t, 0, 1 + t, helper_rounds);
    });
  }
  for (std::thread &worker : workers) worker.join();
  EXPECT_MPI_OK(MPI_Win_unlock_all(w.win()));
  // Every rank's operations are complete after this; the helpers still run.
  const std::vector<int> reps = exchange_reps(my_reps);
  poller.stop();
  resetter.stop();

  EXPECT_EQ(0, poller.failures()) << poller.first_failure();
  EXPECT_EQ(0, resetter.failures());
  MPI_Count puts_expected = 0;
  for (int s = 0; s < n; ++s) {
    for (int t = 0; t < kWorkers; ++t) puts_expected += reps_of(reps, s, t) * kPuts;
  }
  MPI_Count left = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 0, &left));
  EXPECT_EQ(puts_expected, resetter.sum(0) + left)
      << resetter.nonzero() << " non-zero resets summed " << resetter.sum(0) << ", " << left
      << " left";
  for (int t = 0; t < kWorkers; ++t) {
    MPI_Count accumulates_expected = 0;
    for (int s = 0; s < n; ++s) accumulates_expected += reps_of(reps, s, t) * kAccumulates;
    MPI_Count v = -1;
    EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 1 + t, &v));
    EXPECT_EQ(accumulates_expected, v) << "counter " << 1 + t << " on rank " << me;
  }
  int wrong = 0;
  std::string first;
  for (int s = 0; s < n; ++s) {
    for (int t = 0; t < kWorkers; ++t) {
      for (int k = 0; k < kOpsPerTarget; ++k) {
        const std::int64_t want = expected_value(s, t, k, reps_of(reps, s, t));
        if (slot(w, s, t, k) != want && wrong++ == 0)
          first = "origin " + std::to_string(s) + " thread " + std::to_string(t) + " op " +
                  std::to_string(k) + ": " + std::to_string(slot(w, s, t, k)) + " instead of " +
                  std::to_string(want);
      }
    }
  }
  EXPECT_EQ(0, wrong) << "wrong values on rank " << me << ", first " << first;
  MPI_Barrier(MPI_COMM_WORLD);
}

// SEMANTICS 6.2, 2.2: one window per worker (of every flavor the host can
// create). Each worker sets its window's count (a growing, collective
// MPI_Win_set_num_notify, concurrent with the other workers' on theirs),
// opens its own epoch and issues its share; a poller and a resetter work
// across all the windows meanwhile.
TEST_F(Threads, ConcurrentOpsSeparateWindows_6_2) {
  std::vector<Flavor> flavors;
  for (Flavor f : mpitest::all_flavors()) {
    if (mpitest::host_can_create(f)) flavors.push_back(f);
  }
  ASSERT_FALSE(flavors.empty());
  std::vector<std::unique_ptr<TestWindow>> windows;
  std::vector<MPI_Win> handles;
  for (int t = 0; t < kWorkers; ++t) {
    windows.push_back(std::make_unique<TestWindow>(
        flavors[static_cast<std::size_t>(t) % flavors.size()], window_bytes()));
    handles.push_back(windows.back()->win());
  }
  // Above the default reservation of 16: every window grows.
  const int count = 24;
  const int n = mpitest::size();
  const int me = mpitest::rank();
  auto accumulate_idx = [&](int t) { return count - 1 - t; };

  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::unique_ptr<Poller> poller;
  std::unique_ptr<Resetter> resetter;
  auto helper_rounds = [&] { return std::min(poller->rounds(), resetter->rounds()); };
  std::vector<int> my_reps(kWorkers, 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < kWorkers; ++t) {
    workers.emplace_back([&, t] {
      const TestWindow &w = *windows[static_cast<std::size_t>(t)];
      EXPECT_MPI_OK(MPI_Win_set_num_notify(w.win(), MPI_INFO_NULL, count));
      int got = -1;
      EXPECT_MPI_OK(MPI_Win_get_num_notify(w.win(), (me + 1) % n, &got));
      EXPECT_EQ(count, got);
      ready.fetch_add(1);
      while (!go.load()) pause_briefly();
      // Every rank has set its count (the call synchronizes the window's
      // group): notifying needs nothing more.
      EXPECT_MPI_OK(MPI_Win_lock_all(0, w.win()));
      my_reps[static_cast<std::size_t>(t)] =
          issue_shares(w, t, 0, accumulate_idx(t), helper_rounds);
      EXPECT_MPI_OK(MPI_Win_unlock_all(w.win()));
    });
  }
  // The helpers start once every window has its counters, the workers
  // once the helpers run.
  while (ready.load() < kWorkers) pause_briefly();
  std::vector<int> watched;
  for (int t = 0; t < kWorkers; ++t) watched.push_back(accumulate_idx(t));
  poller = std::make_unique<Poller>(handles, watched);
  resetter = std::make_unique<Resetter>(handles, 0);
  while (poller->rounds() == 0 || resetter->rounds() == 0) pause_briefly();
  go.store(true);
  for (std::thread &worker : workers) worker.join();
  const std::vector<int> reps = exchange_reps(my_reps);
  poller->stop();
  resetter->stop();

  EXPECT_EQ(0, poller->failures()) << poller->first_failure();
  EXPECT_EQ(0, resetter->failures());
  for (int t = 0; t < kWorkers; ++t) {
    const TestWindow &w = *windows[static_cast<std::size_t>(t)];
    const std::string name = "window " + std::to_string(t) + " (" +
                             mpitest::flavor_name(w.flavor()) + ") on rank " + std::to_string(me);
    MPI_Count puts_expected = 0;
    for (int s = 0; s < n; ++s) puts_expected += reps_of(reps, s, t) * kPuts;
    MPI_Count left = -1;
    EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 0, &left));
    EXPECT_EQ(puts_expected, resetter->sum(static_cast<std::size_t>(t)) + left) << name;
    MPI_Count v = -1;
    EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), accumulate_idx(t), &v));
    EXPECT_EQ(puts_expected / kPuts * kAccumulates, v) << name;
    // A counter nobody used stayed 0.
    EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 1, &v));
    EXPECT_EQ(0, v) << name;
    // Only worker t wrote into window t: its values are there, and the
    // slots of the other workers are still 0.
    int wrong = 0;
    std::string first;
    for (int s = 0; s < n; ++s) {
      for (int other = 0; other < kWorkers; ++other) {
        for (int k = 0; k < kOpsPerTarget; ++k) {
          const std::int64_t want =
              other == t ? expected_value(s, other, k, reps_of(reps, s, other)) : 0;
          if (slot(w, s, other, k) != want && wrong++ == 0)
            first = "origin " + std::to_string(s) + " thread " + std::to_string(other) + " op " +
                    std::to_string(k) + ": " + std::to_string(slot(w, s, other, k)) +
                    " instead of " + std::to_string(want);
        }
      }
    }
    EXPECT_EQ(0, wrong) << name << ", first " << first;
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// SEMANTICS 2.9, 6.2: several threads per rank each create and wait on a
// threshold request at once: kWorkers of them on counter 0 with rising
// thresholds (MPI_Wait, or an MPI_Test loop), one more in an MPI_Waitall
// together with an ordinary receive, while the main thread delivers the
// notifications phase by phase. After each phase exactly the waits whose
// threshold was reached have completed: none early, none missing.
TEST_F(Threads, ThresholdRequestsManyWaiters_2_9_6_2) {
  constexpr int kPhases = kWorkers;
  constexpr int kPerPhase = 3;  // notifications per phase from each rank
  TestWindow w(Flavor::allocate, 64);
  w.set_num_notify(2);
  const int n = mpitest::size();
  const int me = mpitest::rank();
  const MPI_Count per_phase = static_cast<MPI_Count>(n) * kPerPhase;

  std::atomic<int> finished{0};
  std::atomic<int> early{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> waiters;
  std::atomic<int> armed{0};
  for (int j = 0; j < kWorkers; ++j) {
    waiters.emplace_back([&, j] {
      const MPI_Count threshold = (j + 1) * per_phase;
      MPI_Request request = MPI_REQUEST_NULL;
      if (MPI_Win_notify_threshold(w.win(), 0, threshold, &request) != MPI_SUCCESS) ++failures;
      armed.fetch_add(1);
      if (j % 2 == 0) {
        if (MPI_Wait(&request, MPI_STATUS_IGNORE) != MPI_SUCCESS) ++failures;
      } else {
        int done = 0;
        while (done == 0) {
          if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) ++failures;
          if (done == 0) sched_yield();
        }
      }
      MPI_Count v = -1;
      if (MPI_Win_get_notify_value(w.win(), 0, &v) != MPI_SUCCESS) ++failures;
      if (v < threshold) ++early;
      finished.fetch_add(1);
    });
  }
  // A mixed wait: a threshold request on counter 1 and a receive from the
  // previous rank (which the main thread sends after all phases).
  int token = -1;
  waiters.emplace_back([&] {
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (MPI_Win_notify_threshold(w.win(), 1, n, &requests[0]) != MPI_SUCCESS) ++failures;
    if (MPI_Irecv(&token, 1, MPI_INT, (me + n - 1) % n, 77, MPI_COMM_WORLD, &requests[1]) !=
        MPI_SUCCESS)
      ++failures;
    armed.fetch_add(1);
    if (MPI_Waitall(2, requests, MPI_STATUSES_IGNORE) != MPI_SUCCESS) ++failures;
    MPI_Count v = -1;
    if (MPI_Win_get_notify_value(w.win(), 1, &v) != MPI_SUCCESS) ++failures;
    if (v < n) ++early;
    finished.fetch_add(1);
  });
  const int waiter_count = kWorkers + 1;
  while (armed.load() < waiter_count) pause_briefly();
  MPI_Barrier(MPI_COMM_WORLD);  // every rank's requests exist before anything arrives

  EXPECT_MPI_OK(MPI_Win_lock_all(0, w.win()));
  for (int phase = 0; phase < kPhases; ++phase) {
    for (int step = 0; step < n; ++step) {
      const int t = (me + step) % n;
      for (int k = 0; k < kPerPhase; ++k)
        EXPECT_MPI_OK(
            MPI_Put_notify(nullptr, 0, MPI_BYTE, t, w.disp(t, 0), 0, MPI_BYTE, 0, w.win()));
    }
    EXPECT_MPI_OK(MPI_Win_flush_all(w.win()));
    // Every rank's notifications of this phase are complete: counter 0 is
    // exactly (phase + 1) * per_phase everywhere. Waiters 0 .. phase must
    // complete; after a grace period for any early completion to show,
    // no other may have.
    MPI_Barrier(MPI_COMM_WORLD);
    const double phase_deadline = MPI_Wtime() + kDeadlineSeconds;
    while (finished.load() < phase + 1 && MPI_Wtime() < phase_deadline) pause_briefly();
    const double grace = MPI_Wtime() + 0.02;
    while (MPI_Wtime() < grace) pause_briefly();
    EXPECT_EQ(phase + 1, finished.load())
        << "threshold waits done after phase " << phase << " on rank " << me;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  for (int step = 0; step < n; ++step) {
    const int t = (me + step) % n;
    EXPECT_MPI_OK(MPI_Put_notify(nullptr, 0, MPI_BYTE, t, w.disp(t, 0), 0, MPI_BYTE, 1, w.win()));
  }
  EXPECT_MPI_OK(MPI_Win_unlock_all(w.win()));
  const int sent = me + 1000;
  MPI_Request send = MPI_REQUEST_NULL;
  EXPECT_MPI_OK(MPI_Isend(&sent, 1, MPI_INT, (me + 1) % n, 77, MPI_COMM_WORLD, &send));
  EXPECT_MPI_OK(MPI_Wait(&send, MPI_STATUS_IGNORE));

  // Watchdog: a wait that never completes is a failure, not a hang.
  const double deadline = MPI_Wtime() + kDeadlineSeconds;
  while (finished.load() < waiter_count && MPI_Wtime() < deadline) pause_briefly();
  if (finished.load() < waiter_count) {
    std::fprintf(stderr, "[rank %d] %d of %d threshold waits never completed; aborting\n", me,
                 waiter_count - finished.load(), waiter_count);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  for (std::thread &waiter : waiters) waiter.join();
  EXPECT_EQ(0, failures.load());
  EXPECT_EQ(0, early.load()) << "a threshold request completed below its threshold";
  EXPECT_EQ((me + n - 1) % n + 1000, token);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 0, &v));
  EXPECT_EQ(kPhases * per_phase, v);
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 1, &v));
  EXPECT_EQ(n, v);
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
