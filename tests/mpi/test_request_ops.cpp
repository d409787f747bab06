// SEMANTICS 3.7: request-based notified operations: completion under
// MPI_Waitall and MPI_Testall, mixed with point-to-point requests, visible
// at the target once complete at the origin, and requests left untouched by
// failing calls. Threshold requests (2.9): test_thresholds.cpp.
#include <sched.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <thread>

#include "request_helpers.hpp"

namespace mpitest::requests {
namespace {

// ---------------------------------------------------------------------------
// SEMANTICS 3.7: request-based notified operations. The window holds eight
// int64 slots; slot k is the target of form k and counter k its counter.

constexpr int kSlots = 8;
constexpr std::int64_t kGetBase = 5000;   // slots 2, 3: read by Rget
constexpr std::int64_t kAccBase = 100;    // slots 4, 5: Raccumulate adds here
constexpr std::int64_t kGaccBase = 1000;  // slots 6, 7: Rget_accumulate adds here

// Fills this rank's slots; collective (the epoch must be open).
void prepare_slots(TestWindow &w) {
  std::int64_t *slot = w.as<std::int64_t>();
  const int me = mpitest::rank();
  slot[0] = slot[1] = -1;
  slot[2] = kGetBase + me;
  slot[3] = kGetBase + 100 + me;
  slot[4] = slot[5] = kAccBase;
  slot[6] = slot[7] = kGaccBase;
  MPI_Win_sync(w.win());
  MPI_Barrier(MPI_COMM_WORLD);
}

// What origin `o` sends with each form.
std::int64_t put_value(int o, int k) { return 10 * o + k + 1; }
std::int64_t acc_value(int o, int k) { return 3 + o + k; }

// Buffers of one origin: what it sends and what comes back.
struct OriginBuffers {
  std::int64_t put[2];
  std::int64_t acc[2];
  std::int64_t gacc[2];
  std::int64_t got[2] = {-1, -1};      // Rget results
  std::int64_t fetched[2] = {-1, -1};  // Rget_accumulate results
};

// Issues the eight forms at `target`, form k with counter k, into requests[0..7].
void issue_all_forms(const TestWindow &w, int target, OriginBuffers &b, MPI_Request *requests) {
  const int o = mpitest::rank();
  for (int k = 0; k < 2; ++k) {
    b.put[k] = put_value(o, k);
    b.acc[k] = acc_value(o, 4 + k);
    b.gacc[k] = acc_value(o, 6 + k);
  }
  auto disp = [&](int slot) { return w.disp(target, slot * 8); };
  const MPI_Win win = w.win();
  const MPI_Datatype t = MPI_INT64_T;
  EXPECT_MPI_OK(MPI_Rput_notify(&b.put[0], 1, t, target, disp(0), 1, t, 0, win, &requests[0]));
  EXPECT_MPI_OK(MPI_Rput_notify_c(&b.put[1], MPI_Count{1}, t, target, disp(1), MPI_Count{1}, t, 1,
                                  win, &requests[1]));
  EXPECT_MPI_OK(MPI_Rget_notify(&b.got[0], 1, t, target, disp(2), 1, t, 2, win, &requests[2]));
  EXPECT_MPI_OK(MPI_Rget_notify_c(&b.got[1], MPI_Count{1}, t, target, disp(3), MPI_Count{1}, t, 3,
                                  win, &requests[3]));
  EXPECT_MPI_OK(MPI_Raccumulate_notify(&b.acc[0], 1, t, target, disp(4), 1, t, MPI_SUM, 4, win,
                                       &requests[4]));
  EXPECT_MPI_OK(MPI_Raccumulate_notify_c(&b.acc[1], MPI_Count{1}, t, target, disp(5), MPI_Count{1},
                                         t, MPI_SUM, 5, win, &requests[5]));
  EXPECT_MPI_OK(MPI_Rget_accumulate_notify(&b.gacc[0], 1, t, &b.fetched[0], 1, t, target, disp(6),
                                           1, t, MPI_SUM, 6, win, &requests[6]));
  EXPECT_MPI_OK(MPI_Rget_accumulate_notify_c(&b.gacc[1], MPI_Count{1}, t, &b.fetched[1],
                                             MPI_Count{1}, t, target, disp(7), MPI_Count{1}, t,
                                             MPI_SUM, 7, win, &requests[7]));
}

// At the origin, once the requests are complete: results are there.
void expect_origin_results(const OriginBuffers &b, int target) {
  EXPECT_EQ(kGetBase + target, b.got[0]) << "MPI_Rget_notify result";
  EXPECT_EQ(kGetBase + 100 + target, b.got[1]) << "MPI_Rget_notify_c result";
  EXPECT_EQ(kGaccBase, b.fetched[0]) << "MPI_Rget_accumulate_notify result";
  EXPECT_EQ(kGaccBase, b.fetched[1]) << "MPI_Rget_accumulate_notify_c result";
}

// At the target of origin `o`: every counter exactly 1 and the data in place.
void expect_target_state(const TestWindow &w, int o) {
  for (int k = 0; k < kSlots; ++k) {
    MPI_Count v = -1;
    EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), k, &v));
    EXPECT_EQ(1, v) << "counter " << k;
  }
  const std::int64_t *slot = w.as<std::int64_t>();
  const int me = mpitest::rank();
  EXPECT_EQ(put_value(o, 0), slot[0]);
  EXPECT_EQ(put_value(o, 1), slot[1]);
  EXPECT_EQ(kGetBase + me, slot[2]);
  EXPECT_EQ(kGetBase + 100 + me, slot[3]);
  EXPECT_EQ(kAccBase + acc_value(o, 4), slot[4]);
  EXPECT_EQ(kAccBase + acc_value(o, 5), slot[5]);
  EXPECT_EQ(kGaccBase + acc_value(o, 6), slot[6]);
  EXPECT_EQ(kGaccBase + acc_value(o, 7), slot[7]);
}

// Polls counters 0..kSlots-1 until each is at least 1, for at most `seconds`.
bool all_counters_reach_one(MPI_Win win, double seconds) {
  const double deadline = MPI_Wtime() + seconds;
  for (int k = 0; k < kSlots; ++k) {
    if (mpitest::wait_for_counter(win, k, 1, deadline - MPI_Wtime()) < 1) return false;
  }
  return true;
}

std::int64_t monotonic_ns() {
  // steady_clock is CLOCK_MONOTONIC on Linux: one clock for every process
  // of the machine, which is where the suite runs.
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class NotifyRequests : public mpitest::FlavorTest {
 protected:
  static void TearDownTestSuite() { free_shared_windows(); }
};

// SEMANTICS 3.7: after MPI_Waitall on the origin, the results are at the
// origin and the target sees every increment and the data without the
// origin entering MPI again: the origin sleeps outside MPI while the target
// polls. Even ranks are origins of the next odd rank; a rank without a
// partner is its own target.
TEST_P(NotifyRequests, CompleteAtOriginAndVisibleAtTarget_3_7) {
  TestWindow &w = fresh_window(GetParam(), kSlots);
  MPI_Win_lock_all(0, w.win());
  prepare_slots(w);
  const int me = mpitest::rank();
  const bool origin = me % 2 == 0;
  const int partner = origin ? (me + 1 < mpitest::size() ? me + 1 : me) : me - 1;
  constexpr auto kSleep = std::chrono::milliseconds(200);
  if (origin) {
    OriginBuffers b;
    MPI_Request requests[kSlots];
    for (MPI_Request &r : requests) r = MPI_REQUEST_NULL;
    issue_all_forms(w, partner, b, requests);
    MPI_Status statuses[kSlots];
    EXPECT_MPI_OK(MPI_Waitall(kSlots, requests, statuses));
    for (MPI_Request r : requests) EXPECT_EQ(MPI_REQUEST_NULL, r);
    expect_origin_results(b, partner);
    if (partner == me) {
      expect_target_state(w, me);
    } else {
      // Outside MPI from here until the wake-up time is sent.
      std::this_thread::sleep_for(kSleep);
      const std::int64_t woke = monotonic_ns();
      EXPECT_MPI_OK(MPI_Send(&woke, 1, MPI_INT64_T, partner, 7, MPI_COMM_WORLD));
    }
  } else {
    const bool seen = all_counters_reach_one(w.win(), 30.0);
    const std::int64_t seen_at = monotonic_ns();
    EXPECT_TRUE(seen) << "the increments never arrived";
    std::int64_t woke = 0;
    EXPECT_MPI_OK(MPI_Recv(&woke, 1, MPI_INT64_T, partner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    EXPECT_LT(seen_at, woke) << "the target saw the increments only after the origin, "
                                "sleeping outside MPI since its MPI_Waitall, entered MPI again";
    expect_target_state(w, partner);
  }
  MPI_Win_unlock_all(w.win());
}

INSTANTIATE_TEST_SUITE_P(AllFlavors, NotifyRequests, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

// The request machinery does not depend on the flavor: one window.
class NotifyRequestsOneFlavor : public testing::Test {
 protected:
  static void TearDownTestSuite() { free_shared_windows(); }
};

// SEMANTICS 3.7: the request forms complete under MPI_Waitall and under an
// MPI_Testall loop, mixed with point-to-point requests; afterwards the
// target's counters and data are complete.
TEST_F(NotifyRequestsOneFlavor, CompleteUnderWaitallAndTestallWithPointToPoint_3_7) {
  const int me = mpitest::rank();
  for (int use_testall = 0; use_testall < 2; ++use_testall) {
    TestWindow &w = fresh_window(Flavor::allocate, kSlots);
    MPI_Win_lock_all(0, w.win());
    prepare_slots(w);
    OriginBuffers b;
    MPI_Request requests[kSlots + 2];
    for (MPI_Request &r : requests) r = MPI_REQUEST_NULL;
    int received = -1;
    EXPECT_MPI_OK(MPI_Irecv(&received, 1, MPI_INT, left(), 30, MPI_COMM_WORLD, &requests[kSlots]));
    issue_all_forms(w, right(), b, requests);
    EXPECT_MPI_OK(MPI_Isend(&me, 1, MPI_INT, right(), 30, MPI_COMM_WORLD, &requests[kSlots + 1]));
    MPI_Status statuses[kSlots + 2];
    if (use_testall == 0) {
      EXPECT_MPI_OK(MPI_Waitall(kSlots + 2, requests, statuses));
    } else {
      const double deadline = MPI_Wtime() + 30.0;
      int flag = 0;
      while (flag == 0 && MPI_Wtime() < deadline) {
        EXPECT_MPI_OK(MPI_Testall(kSlots + 2, requests, &flag, statuses));
        if (flag == 0) sched_yield();
      }
      EXPECT_EQ(1, flag) << "MPI_Testall never completed the requests";
      if (flag == 0) MPI_Waitall(kSlots + 2, requests, statuses);
    }
    for (MPI_Request r : requests) EXPECT_EQ(MPI_REQUEST_NULL, r);
    EXPECT_EQ(left(), received);
    EXPECT_EQ(left(), statuses[kSlots].MPI_SOURCE);
    expect_origin_results(b, right());
    MPI_Barrier(MPI_COMM_WORLD);
    // The origin's requests are complete: the increments are there already.
    expect_target_state(w, left());
    MPI_Win_unlock_all(w.win());
  }
}

// SEMANTICS 3.7 (and 3.2, 3.5): a failing request-based call leaves
// *request untouched and increments nothing. A call that succeeds on
// MPI_PROC_NULL returns a request that completes.
TEST_F(NotifyRequestsOneFlavor, FailureLeavesRequestUntouched_3_7) {
  const int me = mpitest::rank();
  TestWindow &w = fresh_window(Flavor::allocate, 2 + me);
  const int t = right();
  const int bad_idx = 2 + t;  // one past the target's count
  const int n = mpitest::size();
  const MPI_Win win = w.win();
  const MPI_Datatype i64 = MPI_INT64_T;
  const MPI_Aint d = w.disp(t, 0);
  SentinelRequest sentinel;
  MPI_Request r = sentinel.value();
  std::int64_t buf[2] = {7, 7};
  std::int64_t res[2] = {-3, -3};
  MPI_Win_lock_all(0, win);
  prepare_slots(w);
  // Out-of-range index at the target (3.2).
  EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION,
                   MPI_Rput_notify(buf, 1, i64, t, d, 1, i64, bad_idx, win, &r));
  EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION,
                   MPI_Rget_notify(res, 1, i64, t, d, 1, i64, -1, win, &r));
  EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION,
                   MPI_Raccumulate_notify(buf, 1, i64, t, d, 1, i64, MPI_SUM, bad_idx, win, &r));
  EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION,
                   MPI_Rget_accumulate_notify(buf, 1, i64, res, 1, i64, t, d, 1, i64, MPI_SUM,
                                              bad_idx, win, &r));
  EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION,
                   MPI_Rput_notify_c(buf, 1, i64, t, d, 1, i64, INT_MAX, win, &r));
  EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION,
                   MPI_Rget_notify_c(res, 1, i64, t, d, 1, i64, bad_idx, win, &r));
  EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION,
                   MPI_Raccumulate_notify_c(buf, 1, i64, t, d, 1, i64, MPI_SUM, bad_idx, win, &r));
  EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION,
                   MPI_Rget_accumulate_notify_c(buf, 1, i64, res, 1, i64, t, d, 1, i64, MPI_SUM,
                                                bad_idx, win, &r));
  EXPECT_EQ(sentinel.value(), r);
  // Bad arguments of the base operation (3.4).
  EXPECT_MPI_CLASS(MPI_ERR_COUNT, MPI_Rput_notify(buf, -1, i64, t, d, 1, i64, 0, win, &r));
  EXPECT_MPI_CLASS(MPI_ERR_COUNT,
                   MPI_Rget_notify_c(res, 1, i64, t, d, MPI_Count{-1}, i64, 0, win, &r));
  EXPECT_MPI_CLASS(MPI_ERR_TYPE,
                   MPI_Rget_notify(res, 1, MPI_DATATYPE_NULL, t, d, 1, i64, 0, win, &r));
  EXPECT_MPI_CLASS(MPI_ERR_RANK, MPI_Rput_notify_c(buf, 1, i64, n, d, 1, i64, 0, win, &r));
  EXPECT_MPI_CLASS(MPI_ERR_RANK, MPI_Rput_notify(buf, 1, i64, -7, d, 1, i64, 0, win, &r));
  EXPECT_MPI_CLASS(MPI_ERR_OP,
                   MPI_Raccumulate_notify(buf, 1, i64, t, d, 1, i64, MPI_NO_OP, 0, win, &r));
  EXPECT_MPI_CLASS(MPI_ERR_OP, MPI_Rget_accumulate_notify_c(buf, 1, i64, res, 1, i64, t, d, 1, i64,
                                                            MPI_OP_NULL, 0, win, &r));
  EXPECT_EQ(sentinel.value(), r);
  EXPECT_EQ(-3, res[0]) << "result buffer written by a failing call";
  // MPI_PROC_NULL succeeds and gives a request that completes (3.3).
  EXPECT_MPI_OK(MPI_Rput_notify(buf, 1, i64, MPI_PROC_NULL, d, 1, i64, 0, win, &r));
  EXPECT_NE(sentinel.value(), r);
  EXPECT_MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  EXPECT_EQ(MPI_REQUEST_NULL, r);
  MPI_Win_unlock_all(win);
  // Outside any epoch, and in a fence epoch, request forms are refused.
  r = sentinel.value();
  EXPECT_MPI_CLASS(MPI_ERR_RMA_SYNC, MPI_Rput_notify(buf, 1, i64, t, d, 1, i64, 0, win, &r));
  EXPECT_EQ(sentinel.value(), r);
  MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
  EXPECT_MPI_CLASS(MPI_ERR_RMA_SYNC, MPI_Rget_notify(res, 1, i64, t, d, 1, i64, 0, win, &r));
  EXPECT_EQ(sentinel.value(), r);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int idx = 0; idx < 2 + me; ++idx) {
    MPI_Count v = -1;
    EXPECT_MPI_OK(MPI_Win_get_notify_value(win, idx, &v));
    EXPECT_EQ(0, v) << "counter " << idx << " moved after failing calls";
  }
  EXPECT_EQ(-1, w.as<std::int64_t>()[0]) << "window written by a failing call";
}

// SEMANTICS 3.7: once MPI_Wait has completed an MPI_Rput_notify request,
// the increment needs nothing more from the origin: rank 0 sees every
// origin's increment while the origins stay out of MPI (they sleep longer
// than rank 0 waits). Over transports that emulate atomics (UCX over tcp)
// this is where a counter poll that does not make progress would hang.
TEST_F(NotifyRequestsOneFlavor, IncrementArrivesWhileOriginStaysOutOfMpi_3_7) {
  if (mpitest::size() < 2) GTEST_SKIP() << "needs an origin apart from the target";
  constexpr double kTargetWaitSeconds = 1.0;
  constexpr auto kOriginAbsence = std::chrono::milliseconds(1600);
  const int me = mpitest::rank();
  TestWindow &w = fresh_window(Flavor::allocate, 1);
  MPI_Win_lock_all(0, w.win());
  prepare_slots(w);
  if (me == 0) {
    const MPI_Count seen = wait_for_counter(w.win(), 0, mpitest::size() - 1, kTargetWaitSeconds);
    EXPECT_EQ(mpitest::size() - 1, seen)
        << "the increments did not arrive while their origins were out of MPI";
  } else {
    std::int64_t value = put_value(me, 0);
    MPI_Request request = MPI_REQUEST_NULL;
    EXPECT_MPI_OK(MPI_Rput_notify(&value, 1, MPI_INT64_T, 0, w.disp(0, 8 * me), 1, MPI_INT64_T, 0,
                                  w.win(), &request));
    EXPECT_MPI_OK(MPI_Wait(&request, MPI_STATUS_IGNORE));
    EXPECT_EQ(MPI_REQUEST_NULL, request);
    std::this_thread::sleep_for(kOriginAbsence);  // no MPI call in here
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) {
    MPI_Win_sync(w.win());
    for (int o = 1; o < mpitest::size(); ++o)
      EXPECT_EQ(put_value(o, 0), w.as<std::int64_t>()[o]) << "data of origin " << o;
  }
  MPI_Win_unlock_all(w.win());
}

}  // namespace
}  // namespace mpitest::requests
