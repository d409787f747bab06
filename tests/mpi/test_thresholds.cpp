// SEMANTICS 2.9: threshold requests: completion under every MPI_Wait/MPI_Test
// form, mixed with point-to-point requests, cancellation, freeing the
// window, and requests left untouched by failing calls. Request-based
// notified operations (3.7): test_request_ops.cpp.
#include <sched.h>

#include <climits>
#include <memory>

#include "request_helpers.hpp"

namespace mpitest::requests {
namespace {

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

// ---------------------------------------------------------------------------
// SEMANTICS 2.9: threshold requests. They concern counters only, which are
// separate from window data on every flavor (2.4): one MPI_Win_allocate
// window serves them all. NotifyRequests (test_request_ops.cpp) covers the
// flavors.

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

}  // namespace
}  // namespace mpitest::requests
