// SEMANTICS 2.9: freeing a threshold request's handle, cancelling it,
// completing it and freeing its window are safe in any order, on both MPIs
// (run under AddressSanitizer in CI). MPI_Request_free on a pending
// threshold request withdraws it: it never completes observably and costs
// nothing afterwards. MPI_Cancel completes it as cancelled.
#include <memory>
#include <vector>

#include "request_helpers.hpp"

namespace mpitest::requests {
namespace {

constexpr MPI_Count kNever = INT64_MAX;

// One window of one counter per test: the orders below free windows.
std::unique_ptr<TestWindow> counter_window() {
  auto w = std::make_unique<TestWindow>(Flavor::allocate, 64);
  w->set_num_notify(1);
  return w;
}

// Notifies this rank's own counter 0 and completes it.
void notify_self(const TestWindow &w) {
  const int me = mpitest::rank();
  EXPECT_MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w.win()));
  EXPECT_MPI_OK(MPI_Put_notify(nullptr, 0, MPI_BYTE, me, w.disp(me, 0), 0, MPI_BYTE, 0, w.win()));
  EXPECT_MPI_OK(MPI_Win_unlock(me, w.win()));
}

// Waits on `request` and says whether its status reads cancelled.
bool wait_cancelled(MPI_Request &request) {
  MPI_Status status;
  EXPECT_MPI_OK(MPI_Wait(&request, &status));
  EXPECT_EQ(MPI_REQUEST_NULL, request);
  int cancelled = -1;
  EXPECT_MPI_OK(MPI_Test_cancelled(&status, &cancelled));
  return cancelled == 1;
}

// Drives the library's progress engine (a test of a finished request).
void drive_progress() {
  MPI_Request done = MPI_REQUEST_NULL;
  MPI_Irecv(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &done);
  int flag = 0;
  for (int i = 0; i < 5; ++i) MPI_Test(&done, &flag, MPI_STATUS_IGNORE);
  if (done != MPI_REQUEST_NULL) MPI_Request_free(&done);
}

TEST(RequestLifetimes, FreeHandleThenWindow_2_9) {
  auto w = counter_window();
  MPI_Request request = MPI_REQUEST_NULL;
  EXPECT_MPI_OK(MPI_Win_notify_threshold(w->win(), 0, kNever, &request));
  EXPECT_MPI_OK(MPI_Request_free(&request));
  EXPECT_EQ(MPI_REQUEST_NULL, request);
  drive_progress();
  w.reset();
  drive_progress();
}

TEST(RequestLifetimes, FreeHandleThenReachThreshold_2_9) {
  auto w = counter_window();
  MPI_Request request = MPI_REQUEST_NULL;
  EXPECT_MPI_OK(MPI_Win_notify_threshold(w->win(), 0, 1, &request));
  EXPECT_MPI_OK(MPI_Request_free(&request));
  notify_self(*w);
  drive_progress();
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w->win(), 0, &v));
  EXPECT_EQ(1, v) << "a withdrawn request changed the counter";
  w.reset();
}

TEST(RequestLifetimes, FreeWindowThenHandle_2_9) {
  auto w = counter_window();
  MPI_Request request = MPI_REQUEST_NULL;
  EXPECT_MPI_OK(MPI_Win_notify_threshold(w->win(), 0, kNever, &request));
  w.reset();  // completes it, as cancelled
  drive_progress();
  EXPECT_MPI_OK(MPI_Request_free(&request));
  drive_progress();
}

TEST(RequestLifetimes, FreeWindowThenWait_2_9) {
  auto w = counter_window();
  MPI_Request request = MPI_REQUEST_NULL;
  EXPECT_MPI_OK(MPI_Win_notify_threshold(w->win(), 0, kNever, &request));
  w.reset();
  EXPECT_TRUE(wait_cancelled(request));
}

TEST(RequestLifetimes, CancelThenFreeHandleThenWindow_2_9) {
  auto w = counter_window();
  MPI_Request request = MPI_REQUEST_NULL;
  EXPECT_MPI_OK(MPI_Win_notify_threshold(w->win(), 0, kNever, &request));
  EXPECT_MPI_OK(MPI_Cancel(&request));
  EXPECT_MPI_OK(MPI_Request_free(&request));
  drive_progress();
  w.reset();
}

TEST(RequestLifetimes, CancelThenFreeWindowThenWait_2_9) {
  auto w = counter_window();
  MPI_Request request = MPI_REQUEST_NULL;
  EXPECT_MPI_OK(MPI_Win_notify_threshold(w->win(), 0, kNever, &request));
  EXPECT_MPI_OK(MPI_Cancel(&request));
  w.reset();
  EXPECT_TRUE(wait_cancelled(request));
}

TEST(RequestLifetimes, CompleteThenFreeHandle_2_9) {
  auto w = counter_window();
  MPI_Request request = MPI_REQUEST_NULL;
  EXPECT_MPI_OK(MPI_Win_notify_threshold(w->win(), 0, 1, &request));
  notify_self(*w);
  drive_progress();  // completes it inside the engine; the handle stays
  EXPECT_MPI_OK(MPI_Request_free(&request));
  w.reset();
  drive_progress();
}

TEST(RequestLifetimes, CompleteThenFreeWindowThenWait_2_9) {
  auto w = counter_window();
  MPI_Request request = MPI_REQUEST_NULL;
  EXPECT_MPI_OK(MPI_Win_notify_threshold(w->win(), 0, 1, &request));
  notify_self(*w);
  drive_progress();
  w.reset();
  EXPECT_FALSE(wait_cancelled(request)) << "completed before its window went";
}

// Many at once, freed, cancelled and left to the window in turn, mixed
// with a point-to-point request: a longer program in the pattern that
// corrupted the heap.
TEST(RequestLifetimes, ManyRequestsEveryOrder_2_9) {
  for (int round = 0; round < 3; ++round) {
    auto w = counter_window();
    std::vector<MPI_Request> requests(60, MPI_REQUEST_NULL);
    for (std::size_t i = 0; i < requests.size(); ++i)
      EXPECT_MPI_OK(MPI_Win_notify_threshold(w->win(), 0, i % 4 == 0 ? 1 : kNever, &requests[i]));
    for (std::size_t i = 0; i < requests.size(); i += 3)
      EXPECT_MPI_OK(MPI_Request_free(&requests[i]));
    for (std::size_t i = 1; i < requests.size(); i += 3) EXPECT_MPI_OK(MPI_Cancel(&requests[i]));
    notify_self(*w);
    drive_progress();
    w.reset();
    for (MPI_Request &r : requests) {
      if (r != MPI_REQUEST_NULL) {
        EXPECT_MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
      }
    }
  }
}

}  // namespace
}  // namespace mpitest::requests
