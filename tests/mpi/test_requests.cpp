// SEMANTICS 2.9 (threshold requests) and 3.7 (request-based notified
// operations): completion under every MPI_Wait/MPI_Test form, mixed with
// point-to-point requests, and requests left untouched by failing calls.
#include <sched.h>

#include <array>
#include <chrono>
#include <climits>
#include <cstdint>
#include <memory>
#include <thread>

#include "harness.hpp"

namespace {

using mpitest::Flavor;
using mpitest::TestWindow;

// The ring every test uses: a rank notifies its right neighbour and is
// notified by its left one (itself on one process).
int right() { return (mpitest::rank() + 1) % mpitest::size(); }
int left() { return (mpitest::rank() + mpitest::size() - 1) % mpitest::size(); }

// Tells this rank's producer (left) that it may go on, and waits for the
// same word from this rank's consumer (right).
void handshake(int tag) {
  EXPECT_MPI_OK(MPI_Sendrecv(nullptr, 0, MPI_BYTE, left(), tag, nullptr, 0, MPI_BYTE, right(), tag,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

// One notification of counter `idx` at the right neighbour, complete there
// when this returns (inside a passive-target epoch).
void notify_right(const TestWindow &w, int idx) {
  EXPECT_MPI_OK(
      MPI_Put_notify(nullptr, 0, MPI_BYTE, right(), w.disp(right(), 0), 0, MPI_BYTE, idx, w.win()));
  EXPECT_MPI_OK(MPI_Win_flush(right(), w.win()));
}

// MPI_Test called `times` times must keep saying "not complete"; returns
// whether the request is still pending.
bool stays_pending(MPI_Request &request, int times = 20) {
  for (int k = 0; k < times; ++k) {
    int flag = -1;
    EXPECT_MPI_OK(MPI_Test(&request, &flag, MPI_STATUS_IGNORE));
    EXPECT_EQ(0, flag) << "completed early, at test " << k;
    if (flag != 0) return false;
    sched_yield();
  }
  return true;
}

// MPI_Test until complete or `seconds` pass; true if it completed.
bool completes(MPI_Request &request, MPI_Status *status = MPI_STATUS_IGNORE,
               double seconds = 30.0) {
  const double deadline = MPI_Wtime() + seconds;
  for (;;) {
    int flag = 0;
    EXPECT_MPI_OK(MPI_Test(&request, &flag, status));
    if (flag != 0) {
      EXPECT_EQ(MPI_REQUEST_NULL, request);
      return true;
    }
    if (MPI_Wtime() > deadline) {
      ADD_FAILURE() << "request did not complete within " << seconds << " s";
      return false;
    }
    sched_yield();
  }
}

// A threshold request that is still pending when a test gives up on it is
// cancelled, so that no test leaves work behind.
void discard(MPI_Request &request) {
  if (request == MPI_REQUEST_NULL) return;
  MPI_Cancel(&request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
}

// A request handle that no call under test makes: an inactive persistent
// receive. Failing calls must leave *request equal to it.
class SentinelRequest {
 public:
  SentinelRequest() {
    MPI_Recv_init(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &request_);
  }
  ~SentinelRequest() {
    if (request_ != MPI_REQUEST_NULL) MPI_Request_free(&request_);
  }
  SentinelRequest(const SentinelRequest &) = delete;
  SentinelRequest &operator=(const SentinelRequest &) = delete;
  MPI_Request value() const { return request_; }

 private:
  MPI_Request request_ = MPI_REQUEST_NULL;
};

// Creating a window costs more than most tests of this file (about 0.35 s
// at 4 processes on MPICH here), so they share one 64-byte window per
// flavor, freed at the end of each suite. Every test starts from
// fresh_window(), whose MPI_Win_set_num_notify clears every counter (2.2).
std::array<std::unique_ptr<TestWindow>, 4> &shared_windows() {
  static std::array<std::unique_ptr<TestWindow>, 4> windows;
  return windows;
}

// Collective.
TestWindow &fresh_window(Flavor flavor, int num_notify) {
  std::unique_ptr<TestWindow> &w = shared_windows()[static_cast<std::size_t>(flavor)];
  if (!w) w = std::make_unique<TestWindow>(flavor, 64);
  w->set_num_notify(num_notify);
  return *w;
}

// Collective: every rank created the same windows in the same order.
void free_shared_windows() {
  for (std::unique_ptr<TestWindow> &w : shared_windows()) w.reset();
}

// ---------------------------------------------------------------------------
// SEMANTICS 2.9: threshold requests. They concern counters only, which are
// separate from window data on every flavor (2.4): one MPI_Win_allocate
// window serves them all. NotifyRequests covers the flavors.

class ThresholdRequests : public testing::Test {
 protected:
  static void TearDownTestSuite() { free_shared_windows(); }
};

// SEMANTICS 2.9: MPI_Wait completes once the counter reaches the
// threshold, not before; the status is well-formed.
TEST_F(ThresholdRequests, WaitCompletesAtThreshold_2_9) {
  TestWindow &w = fresh_window(Flavor::allocate, 2);
  MPI_Win_lock_all(0, w.win());
  MPI_Request request = MPI_REQUEST_NULL;
  EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), 1, 2, &request));
  EXPECT_NE(MPI_REQUEST_NULL, request);
  notify_right(w, 1);
  EXPECT_EQ(1, mpitest::wait_for_counter(w.win(), 1, 1));
  // One of two: the producer waits for the handshake before the second.
  const bool pending = stays_pending(request);
  handshake(1);
  notify_right(w, 1);
  if (pending) {
    MPI_Status status;
    EXPECT_MPI_OK(MPI_Wait(&request, &status));
    EXPECT_EQ(MPI_REQUEST_NULL, request);
    int cancelled = -1;
    EXPECT_MPI_OK(MPI_Test_cancelled(&status, &cancelled));
    EXPECT_EQ(0, cancelled);
    int count = -1;
    EXPECT_MPI_OK(MPI_Get_count(&status, MPI_BYTE, &count));
    EXPECT_EQ(0, count);
  }
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 1, &v));
  EXPECT_EQ(2, v);
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 0, &v));
  EXPECT_EQ(0, v);
  MPI_Win_unlock_all(w.win());
}

// SEMANTICS 2.9: several requests pending on one counter with different
// (and equal) thresholds complete exactly as the counter passes each;
// MPI_Test loops complete them.
TEST_F(ThresholdRequests, SeveralPendingOnOneCounter_2_9) {
  TestWindow &w = fresh_window(Flavor::allocate, 3);
  MPI_Win_lock_all(0, w.win());
  const MPI_Count thresholds[] = {3, 1, 2, 2};
  MPI_Request requests[4];
  for (int k = 0; k < 4; ++k) {
    requests[k] = MPI_REQUEST_NULL;
    EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), 2, thresholds[k], &requests[k]));
  }
  for (int round = 1; round <= 3; ++round) {
    notify_right(w, 2);
    EXPECT_EQ(round, mpitest::wait_for_counter(w.win(), 2, round));
    for (int k = 0; k < 4; ++k) {
      if (thresholds[k] == round) {
        EXPECT_TRUE(completes(requests[k])) << "threshold " << thresholds[k] << ", round " << round;
      } else if (thresholds[k] > round) {
        stays_pending(requests[k], 5);
      } else {
        EXPECT_EQ(MPI_REQUEST_NULL, requests[k]) << "threshold " << thresholds[k];
      }
    }
    handshake(round);
  }
  for (MPI_Request &r : requests) discard(r);
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 2, &v));
  EXPECT_EQ(3, v);
  MPI_Win_unlock_all(w.win());
}

// SEMANTICS 2.9: MPI_Waitany and MPI_Waitsome over a threshold request and
// point-to-point requests return what completed, and only that.
TEST_F(ThresholdRequests, WaitanyWaitsomeMixedWithPointToPoint_2_9) {
  TestWindow &w = fresh_window(Flavor::allocate, 2);
  MPI_Win_lock_all(0, w.win());
  const int me = mpitest::rank();
  for (int use_waitsome = 0; use_waitsome < 2; ++use_waitsome) {
    const int tag = 10 + use_waitsome;
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), use_waitsome, 1, &requests[0]));
    int received = -1;
    EXPECT_MPI_OK(MPI_Irecv(&received, 1, MPI_INT, left(), tag, MPI_COMM_WORLD, &requests[1]));
    MPI_Request send = MPI_REQUEST_NULL;
    EXPECT_MPI_OK(MPI_Isend(&me, 1, MPI_INT, right(), tag, MPI_COMM_WORLD, &send));
    // The left neighbour notifies only after the handshake below: the
    // receive must come first, alone.
    int index = -1;
    int outcount = -1;
    int indices[2] = {-1, -1};
    MPI_Status statuses[2];
    if (use_waitsome == 0) {
      EXPECT_MPI_OK(MPI_Waitany(2, requests, &index, &statuses[0]));
      EXPECT_EQ(1, index);
      EXPECT_EQ(left(), statuses[0].MPI_SOURCE);
    } else {
      EXPECT_MPI_OK(MPI_Waitsome(2, requests, &outcount, indices, statuses));
      EXPECT_EQ(1, outcount);
      EXPECT_EQ(1, indices[0]);
      EXPECT_EQ(left(), statuses[0].MPI_SOURCE);
    }
    EXPECT_EQ(left(), received);
    EXPECT_MPI_OK(MPI_Wait(&send, MPI_STATUS_IGNORE));
    const bool pending = stays_pending(requests[0], 5);
    handshake(tag);
    notify_right(w, use_waitsome);
    if (pending && use_waitsome == 0) {
      EXPECT_MPI_OK(MPI_Waitany(2, requests, &index, MPI_STATUS_IGNORE));
      EXPECT_EQ(0, index);
    } else if (pending) {
      EXPECT_MPI_OK(MPI_Waitsome(2, requests, &outcount, indices, statuses));
      EXPECT_EQ(1, outcount);
      EXPECT_EQ(0, indices[0]);
    }
    EXPECT_EQ(MPI_REQUEST_NULL, requests[0]);
    discard(requests[0]);
  }
  MPI_Win_unlock_all(w.win());
}

// SEMANTICS 2.9: MPI_Waitall over a threshold request and point-to-point
// requests.
TEST_F(ThresholdRequests, WaitallMixedWithPointToPoint_2_9) {
  TestWindow &w = fresh_window(Flavor::allocate, 1);
  MPI_Win_lock_all(0, w.win());
  const int me = mpitest::rank();
  MPI_Request requests[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  int received = -1;
  EXPECT_MPI_OK(MPI_Irecv(&received, 1, MPI_INT, left(), 5, MPI_COMM_WORLD, &requests[0]));
  EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), 0, 2, &requests[1]));
  EXPECT_MPI_OK(MPI_Isend(&me, 1, MPI_INT, right(), 5, MPI_COMM_WORLD, &requests[2]));
  notify_right(w, 0);
  notify_right(w, 0);
  MPI_Status statuses[3];
  EXPECT_MPI_OK(MPI_Waitall(3, requests, statuses));
  for (MPI_Request r : requests) EXPECT_EQ(MPI_REQUEST_NULL, r);
  EXPECT_EQ(left(), received);
  EXPECT_EQ(left(), statuses[0].MPI_SOURCE);
  int cancelled = -1;
  EXPECT_MPI_OK(MPI_Test_cancelled(&statuses[1], &cancelled));
  EXPECT_EQ(0, cancelled);
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 0, &v));
  EXPECT_EQ(2, v);
  MPI_Win_unlock_all(w.win());
}

// SEMANTICS 2.9: MPI_Testany, MPI_Testall and MPI_Testsome over a threshold
// request and a point-to-point receive: nothing completes early, and
// polling alone completes the threshold request.
TEST_F(ThresholdRequests, TestanyTestallTestsomeMixedWithPointToPoint_2_9) {
  TestWindow &w = fresh_window(Flavor::allocate, 3);
  MPI_Win_lock_all(0, w.win());
  const int me = mpitest::rank();
  for (int form = 0; form < 3; ++form) {  // Testany, Testall, Testsome
    const int tag = 20 + form;
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), form, 1, &requests[0]));
    int received = -1;
    EXPECT_MPI_OK(MPI_Irecv(&received, 1, MPI_INT, left(), tag, MPI_COMM_WORLD, &requests[1]));
    EXPECT_MPI_OK(MPI_Send(&me, 1, MPI_INT, right(), tag, MPI_COMM_WORLD));
    // Before the handshake only the receive can complete.
    const double deadline = MPI_Wtime() + 30.0;
    bool received_done = false;
    for (int k = 0; (k < 20 || !received_done) && MPI_Wtime() < deadline; ++k) {
      int flag = -1;
      int index = -1;
      int outcount = -1;
      int indices[2] = {-1, -1};
      if (form == 0) {
        EXPECT_MPI_OK(MPI_Testany(2, requests, &index, &flag, MPI_STATUS_IGNORE));
        if (flag != 0 && index != MPI_UNDEFINED) {
          EXPECT_EQ(1, index);
          received_done = true;
        }
      } else if (form == 1) {
        EXPECT_MPI_OK(MPI_Testall(2, requests, &flag, MPI_STATUSES_IGNORE));
        EXPECT_EQ(0, flag) << "Testall completed before the threshold was reached";
        received_done = true;  // MPI_Testall completes nothing unless all
      } else {
        EXPECT_MPI_OK(MPI_Testsome(2, requests, &outcount, indices, MPI_STATUSES_IGNORE));
        if (outcount > 0) {
          EXPECT_EQ(1, outcount);
          EXPECT_EQ(1, indices[0]);
          received_done = true;
        }
      }
      sched_yield();
    }
    EXPECT_TRUE(received_done);
    EXPECT_NE(MPI_REQUEST_NULL, requests[0]);
    handshake(tag);
    notify_right(w, form);
    bool done = false;
    while (!done && MPI_Wtime() < deadline) {
      int flag = 0;
      int index = -1;
      int outcount = 0;
      int indices[2] = {-1, -1};
      if (form == 0) {
        EXPECT_MPI_OK(MPI_Testany(2, requests, &index, &flag, MPI_STATUS_IGNORE));
        if (flag != 0) {
          EXPECT_EQ(0, index);
          done = true;
        }
      } else if (form == 1) {
        EXPECT_MPI_OK(MPI_Testall(2, requests, &flag, MPI_STATUSES_IGNORE));
        done = flag != 0;
      } else {
        EXPECT_MPI_OK(MPI_Testsome(2, requests, &outcount, indices, MPI_STATUSES_IGNORE));
        if (outcount != 0) {
          EXPECT_EQ(1, outcount);
          EXPECT_EQ(0, indices[0]);
          done = true;
        }
      }
      if (!done) sched_yield();
    }
    EXPECT_TRUE(done) << "form " << form << " never completed the threshold request";
    EXPECT_EQ(MPI_REQUEST_NULL, requests[0]);
    EXPECT_EQ(MPI_REQUEST_NULL, requests[1]);
    EXPECT_EQ(left(), received);
    discard(requests[0]);
    if (requests[1] != MPI_REQUEST_NULL) MPI_Wait(&requests[1], MPI_STATUS_IGNORE);
  }
  MPI_Win_unlock_all(w.win());
}

// SEMANTICS 2.9: threshold 0, and a threshold already reached, complete at
// once: the first MPI_Test says so.
TEST_F(ThresholdRequests, ReachedThresholdCompletesAtOnce_2_9) {
  TestWindow &w = fresh_window(Flavor::allocate, 2);
  MPI_Win_lock_all(0, w.win());
  MPI_Request request = MPI_REQUEST_NULL;
  int flag = -1;
  EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), 0, 0, &request));
  EXPECT_MPI_OK(MPI_Test(&request, &flag, MPI_STATUS_IGNORE));
  EXPECT_EQ(1, flag) << "threshold 0 on a counter at 0";
  discard(request);
  notify_right(w, 1);
  notify_right(w, 1);
  EXPECT_EQ(2, mpitest::wait_for_counter(w.win(), 1, 2));
  for (MPI_Count threshold : {MPI_Count{0}, MPI_Count{1}, MPI_Count{2}}) {
    request = MPI_REQUEST_NULL;
    flag = -1;
    EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), 1, threshold, &request));
    EXPECT_MPI_OK(MPI_Test(&request, &flag, MPI_STATUS_IGNORE));
    EXPECT_EQ(1, flag) << "threshold " << threshold << " on a counter at 2";
    discard(request);
  }
  // MPI_Wait on one returns at once too.
  request = MPI_REQUEST_NULL;
  EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), 1, 2, &request));
  EXPECT_MPI_OK(MPI_Wait(&request, MPI_STATUS_IGNORE));
  EXPECT_EQ(MPI_REQUEST_NULL, request);
  // One above stays pending.
  request = MPI_REQUEST_NULL;
  EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), 1, 3, &request));
  stays_pending(request, 5);
  discard(request);
  MPI_Win_unlock_all(w.win());
}

// SEMANTICS 2.9: a negative threshold gives MPI_ERR_ARG, a bad index
// MPI_ERR_RMA_NOTIFICATION (against this rank's own count); *request is
// untouched either way.
TEST_F(ThresholdRequests, BadArgumentsLeaveRequestUntouched_2_9) {
  TestWindow &w = fresh_window(Flavor::allocate, 0);
  const int me = mpitest::rank();
  SentinelRequest sentinel;
  MPI_Request request = sentinel.value();
  // No counters yet: index 0 is out of range.
  EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION, MPI_Win_notify_threshold(w.win(), 0, 1, &request));
  EXPECT_EQ(sentinel.value(), request);
  EXPECT_MPI_OK(MPI_Win_set_num_notify(w.win(), MPI_INFO_NULL, 1 + me));
  for (MPI_Count threshold : {MPI_Count{-1}, MPI_Count{LLONG_MIN}}) {
    EXPECT_MPI_CLASS(MPI_ERR_ARG, MPI_Win_notify_threshold(w.win(), 0, threshold, &request));
    EXPECT_EQ(sentinel.value(), request);
  }
  for (int idx : {-1, 1 + me, 2 + me, INT_MAX, INT_MIN}) {
    EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION, MPI_Win_notify_threshold(w.win(), idx, 1, &request));
    EXPECT_EQ(sentinel.value(), request) << "idx " << idx;
  }
  // The last index of this rank's own count is valid.
  request = MPI_REQUEST_NULL;
  EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), me, 0, &request));
  EXPECT_NE(sentinel.value(), request);
  discard(request);
}

// SEMANTICS 2.9: a pending threshold request can be cancelled; MPI_Wait
// then completes it and the status says cancelled. A completed one is not
// cancelled by MPI_Cancel. The counter is unaffected.
TEST_F(ThresholdRequests, CancelPendingRequest_2_9) {
  TestWindow &w = fresh_window(Flavor::allocate, 1);
  MPI_Request request = MPI_REQUEST_NULL;
  EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), 0, 1000, &request));
  EXPECT_TRUE(stays_pending(request, 3));
  EXPECT_MPI_OK(MPI_Cancel(&request));
  MPI_Status status;
  EXPECT_MPI_OK(MPI_Wait(&request, &status));
  EXPECT_EQ(MPI_REQUEST_NULL, request);
  int cancelled = -1;
  EXPECT_MPI_OK(MPI_Test_cancelled(&status, &cancelled));
  EXPECT_EQ(1, cancelled);

  EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), 0, 0, &request));
  EXPECT_MPI_OK(MPI_Cancel(&request));
  EXPECT_MPI_OK(MPI_Wait(&request, &status));
  cancelled = -1;
  EXPECT_MPI_OK(MPI_Test_cancelled(&status, &cancelled));
  EXPECT_EQ(0, cancelled) << "a request complete before MPI_Cancel is not cancelled";
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 0, &v));
  EXPECT_EQ(0, v);
}

// SEMANTICS 2.9 (docs/semantics.md: "freeing its window does the same" as
// MPI_Cancel): a threshold request pending when its window is freed
// completes, as cancelled.
TEST_F(ThresholdRequests, FreeingWindowCompletesPendingRequest_2_9) {
  auto w = std::make_unique<TestWindow>(Flavor::allocate, 64);
  w->set_num_notify(1);
  MPI_Request request = MPI_REQUEST_NULL;
  EXPECT_MPI_OK(MPI_Win_notify_threshold(w->win(), 0, 5, &request));
  EXPECT_TRUE(stays_pending(request, 3));
  w.reset();
  MPI_Status status;
  EXPECT_TRUE(completes(request, &status, 10.0));
  int cancelled = -1;
  EXPECT_MPI_OK(MPI_Test_cancelled(&status, &cancelled));
  EXPECT_EQ(1, cancelled);
  discard(request);
}

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

// SEMANTICS 3.7: the request forms complete under MPI_Waitall and under an
// MPI_Testall loop, mixed with point-to-point requests; afterwards the
// target's counters and data are complete.
INSTANTIATE_TEST_SUITE_P(AllFlavors, NotifyRequests, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

// The request machinery does not depend on the flavor: one window.
class NotifyRequestsOneFlavor : public testing::Test {
 protected:
  static void TearDownTestSuite() { free_shared_windows(); }
};

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

}  // namespace
