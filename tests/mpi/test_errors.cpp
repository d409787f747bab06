// SEMANTICS 6.1: every error goes through the right error handler, exactly
// once, with the code the call returns: the window's, MPI_COMM_WORLD's for
// MPI_WIN_NULL. Error routing does not depend on the window flavor: these
// tests use MPI_Win_allocate windows. (Creation errors, which go to the
// communicator's handler, are in test_windows.cpp; the fatal default
// handler is tests/mpi/fatal_error_program.c.)
#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "harness.hpp"

namespace {

using mpitest::Flavor;
using mpitest::TestWindow;

// What the counting handlers saw.
struct HandlerLog {
  int calls = 0;
  int last_code = MPI_SUCCESS;
  MPI_Win last_win = MPI_WIN_NULL;
  MPI_Comm last_comm = MPI_COMM_NULL;
};
HandlerLog handler_log;

void count_window_error(MPI_Win *win, int *code, ...) {
  ++handler_log.calls;
  handler_log.last_code = *code;
  handler_log.last_win = *win;
}

void count_comm_error(MPI_Comm *comm, int *code, ...) {
  ++handler_log.calls;
  handler_log.last_code = *code;
  handler_log.last_comm = *comm;
}

// Sets a counting error handler on a window for its lifetime, then puts
// MPI_ERRORS_RETURN back.
class CountingWindowHandler {
 public:
  explicit CountingWindowHandler(MPI_Win win) : win_(win) {
    MPI_Win_create_errhandler(count_window_error, &handler_);
    EXPECT_MPI_OK(MPI_Win_set_errhandler(win_, handler_));
    handler_log = HandlerLog{};
  }
  ~CountingWindowHandler() {
    MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&handler_);
  }
  CountingWindowHandler(const CountingWindowHandler &) = delete;
  CountingWindowHandler &operator=(const CountingWindowHandler &) = delete;

 private:
  MPI_Win win_;
  MPI_Errhandler handler_ = MPI_ERRHANDLER_NULL;
};

// The same on MPI_COMM_WORLD (the suite's MPI_ERRORS_RETURN comes back).
class CountingWorldHandler {
 public:
  CountingWorldHandler() {
    MPI_Comm_create_errhandler(count_comm_error, &handler_);
    EXPECT_MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler_));
    handler_log = HandlerLog{};
  }
  ~CountingWorldHandler() {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&handler_);
  }
  CountingWorldHandler(const CountingWorldHandler &) = delete;
  CountingWorldHandler &operator=(const CountingWorldHandler &) = delete;

 private:
  MPI_Errhandler handler_ = MPI_ERRHANDLER_NULL;
};

// `rc` must be of `expected_class` and must be the code the window's
// handler has just seen, in exactly one more call than `calls_before`.
void expect_reported_once(MPI_Win win, int expected_class, int rc, int calls_before,
                          const std::string &what) {
  EXPECT_MPI_CLASS(expected_class, rc) << what;
  EXPECT_EQ(calls_before + 1, handler_log.calls) << what << ": handler calls";
  EXPECT_EQ(rc, handler_log.last_code) << what << ": code given to the handler";
  EXPECT_EQ(win, handler_log.last_win) << what << ": window given to the handler";
}

// Runs `call` (returning an error code) and checks it failed with
// `expected_class`, reported once to the window's handler.
#define EXPECT_REPORTED_ONCE(win, expected_class, call)                       \
  do {                                                                        \
    const int calls_before_ = handler_log.calls;                              \
    const int rc_ = (call);                                                   \
    expect_reported_once((win), (expected_class), rc_, calls_before_, #call); \
  } while (0)

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string error_string(int code) {
  char text[MPI_MAX_ERROR_STRING + 1] = {};
  int length = -1;
  EXPECT_MPI_OK(MPI_Error_string(code, text, &length));
  EXPECT_GE(length, 0);
  return std::string(text, static_cast<std::size_t>(std::max(length, 0)));
}

// SEMANTICS 6.1: a failing call reaches the window's own error handler
// exactly once, with the code it returns; successful calls never do.
// Library-detected and host-detected errors alike.
TEST(Errors, WindowHandlerCalledOncePerFailure_6_1) {
  TestWindow w(Flavor::allocate, 64);
  w.set_num_notify(2);
  const MPI_Win win = w.win();
  const int n = mpitest::size();
  const int t = (mpitest::rank() + 1) % n;
  const MPI_Datatype i64 = MPI_INT64_T;
  std::int64_t buf[2] = {1, 2};
  std::int64_t res[2] = {0, 0};
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Count v = 0;
  int count = 0;
  CountingWindowHandler handler(win);
  MPI_Win_lock_all(0, win);
  EXPECT_REPORTED_ONCE(win, MPI_ERR_RMA_NOTIFICATION,
                       MPI_Put_notify(buf, 1, i64, t, 0, 1, i64, 2, win));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_RMA_NOTIFICATION,
                       MPI_Get_notify_c(res, 1, i64, t, 0, 1, i64, -1, win));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_RMA_NOTIFICATION,
                       MPI_Rput_notify(buf, 1, i64, t, 0, 1, i64, INT_MAX, win, &r));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_OP,
                       MPI_Accumulate_notify(buf, 1, i64, t, 0, 1, i64, MPI_NO_OP, 0, win));
  EXPECT_REPORTED_ONCE(
      win, MPI_ERR_COUNT,
      MPI_Get_accumulate_notify(buf, -1, i64, res, 1, i64, t, 0, 1, i64, MPI_SUM, 0, win));
  EXPECT_REPORTED_ONCE(
      win, MPI_ERR_TYPE,
      MPI_Raccumulate_notify_c(buf, 1, MPI_DATATYPE_NULL, t, 0, 1, i64, MPI_SUM, 0, win, &r));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_RANK, MPI_Rget_notify(res, 1, i64, n, 0, 1, i64, 0, win, &r));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_DISP, MPI_Put_notify(buf, 1, i64, t, -8, 1, i64, 0, win));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_RMA_NOTIFICATION, MPI_Win_get_notify_value(win, 2, &v));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_RMA_NOTIFICATION, MPI_Win_reset_notify_value(win, -1, &v));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_RMA_NOTIFICATION, MPI_Win_notify_threshold(win, 2, 1, &r));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_ARG, MPI_Win_notify_threshold(win, 0, -1, &r));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_RANK, MPI_Win_get_num_notify(win, n, &count));
  // A datatype that was never committed: the host MPI finds the error, in
  // its own call on this window; it still reaches the handler only once.
  MPI_Datatype uncommitted = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(2, i64, &uncommitted);
  EXPECT_REPORTED_ONCE(win, MPI_ERR_TYPE,
                       MPI_Put_notify(buf, 1, uncommitted, t, 0, 1, uncommitted, 0, win));
  MPI_Type_free(&uncommitted);
  // Successful calls leave the handler alone.
  const int failures = handler_log.calls;
  EXPECT_MPI_OK(MPI_Put_notify(buf, 1, i64, t, 0, 1, i64, 1, win));
  EXPECT_MPI_OK(MPI_Rget_notify(res, 1, i64, MPI_PROC_NULL, 0, 1, i64, 0, win, &r));
  EXPECT_MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  EXPECT_MPI_OK(MPI_Win_get_notify_value(win, 1, &v));
  MPI_Win_unlock_all(win);
  EXPECT_EQ(failures, handler_log.calls) << "the handler ran for a call that succeeded";
  // Outside any epoch.
  EXPECT_REPORTED_ONCE(win, MPI_ERR_RMA_SYNC, MPI_Put_notify(buf, 1, i64, t, 0, 1, i64, 0, win));
  // A collective refused everywhere: once on every rank.
  EXPECT_REPORTED_ONCE(win, MPI_ERR_ARG, MPI_Win_set_num_notify(win, MPI_INFO_NULL, -1));
  const int before = handler_log.calls;
  EXPECT_MPI_OK(MPI_Win_set_num_notify(win, MPI_INFO_NULL, 3));
  EXPECT_EQ(before, handler_log.calls);
}

// SEMANTICS 6.1 and 1: the notification error class has a sentence that
// says what went wrong; codes of that class are told apart from every
// predefined class.
TEST(Errors, NotificationErrorIsExplained_6_1) {
  TestWindow w(Flavor::allocate, 64);
  w.set_num_notify(1);
  MPI_Count v = 0;
  const int code = MPI_Win_get_notify_value(w.win(), 1, &v);
  EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION, code);
  int cls = -1;
  EXPECT_MPI_OK(MPI_Error_class(code, &cls));
  EXPECT_EQ(MPI_ERR_RMA_NOTIFICATION, cls);
  EXPECT_GT(cls, MPI_ERR_LASTCODE) << "not a class of its own";
  int *last_used = nullptr;
  int flag = 0;
  EXPECT_MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last_used, &flag));
  EXPECT_EQ(1, flag);
  if (flag != 0 && last_used != nullptr) {
    EXPECT_LE(cls, *last_used);
  }
  for (int c : {code, MPI_ERR_RMA_NOTIFICATION}) {
    const std::string text = error_string(c);
    EXPECT_GT(text.size(), 10U) << "MPI_Error_string(" << c << ")";
    EXPECT_NE(std::string::npos, lower(text).find("notification")) << text;
  }
}

// SEMANTICS 6.1: a notification error returns the class value itself, as
// native implementations do, so both styles of checking work: the code
// compared with MPI_ERR_RMA_NOTIFICATION directly, and its class from
// MPI_Error_class. A handler on the window receives the same code.
TEST(Errors, NotificationCodeIsTheClassItself_6_1) {
  TestWindow w(Flavor::allocate, 64);
  w.set_num_notify(2);
  const MPI_Win win = w.win();
  const int t = (mpitest::rank() + 1) % mpitest::size();
  std::int64_t buf[1] = {1};
  MPI_Count v = 0;
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Win_lock_all(0, win);
  const int returned[] = {
      MPI_Win_get_notify_value(win, 2, &v),
      MPI_Win_reset_notify_value(win, -1, &v),
      MPI_Win_notify_threshold(win, 5, 1, &r),
      MPI_Put_notify(buf, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, 2, win),
      MPI_Rget_notify(buf, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, -3, win, &r),
      MPI_Accumulate_notify_c(buf, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, MPI_SUM, 9, win)};
  for (const int rc : returned) {
    EXPECT_EQ(MPI_ERR_RMA_NOTIFICATION, rc) << "under MPI_ERRORS_RETURN";
    int cls = -1;
    EXPECT_MPI_OK(MPI_Error_class(rc, &cls));
    EXPECT_EQ(MPI_ERR_RMA_NOTIFICATION, cls) << "MPI_Error_class(" << rc << ")";
  }
  EXPECT_EQ(MPI_REQUEST_NULL, r) << "a failed call wrote its request";
  {
    CountingWindowHandler handler(win);
    const int rc = MPI_Put_notify(buf, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, 7, win);
    EXPECT_EQ(MPI_ERR_RMA_NOTIFICATION, rc);
    EXPECT_EQ(1, handler_log.calls);
    EXPECT_EQ(MPI_ERR_RMA_NOTIFICATION, handler_log.last_code) << "the handler got another code";
  }
  MPI_Win_unlock_all(win);
  // The predefined classes still answer as the host says.
  int cls = -1;
  EXPECT_MPI_OK(MPI_Error_class(MPI_ERR_RMA_RANGE, &cls));
  EXPECT_EQ(MPI_ERR_RMA_RANGE, cls);
}

// SEMANTICS 6.1: NULL output pointers are MPI_ERR_ARG, reported once to
// the window's handler; nothing is written.
TEST(Errors, NullOutputPointers_6_1) {
  TestWindow w(Flavor::allocate, 64);
  w.set_num_notify(1);
  const MPI_Win win = w.win();
  const int t = (mpitest::rank() + 1) % mpitest::size();
  const MPI_Datatype i64 = MPI_INT64_T;
  const MPI_Count one = 1;
  std::int64_t buf[1] = {1};
  std::int64_t res[1] = {-1};
  CountingWindowHandler handler(win);
  MPI_Win_lock_all(0, win);
  EXPECT_REPORTED_ONCE(win, MPI_ERR_ARG, MPI_Win_get_notify_value(win, 0, nullptr));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_ARG, MPI_Win_reset_notify_value(win, 0, nullptr));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_ARG, MPI_Win_get_num_notify(win, 0, nullptr));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_ARG, MPI_Win_notify_threshold(win, 0, 0, nullptr));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_ARG,
                       MPI_Rput_notify(buf, 1, i64, t, 0, 1, i64, 0, win, nullptr));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_ARG,
                       MPI_Rget_notify(res, 1, i64, t, 0, 1, i64, 0, win, nullptr));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_ARG,
                       MPI_Raccumulate_notify(buf, 1, i64, t, 0, 1, i64, MPI_SUM, 0, win, nullptr));
  EXPECT_REPORTED_ONCE(
      win, MPI_ERR_ARG,
      MPI_Rget_accumulate_notify(buf, 1, i64, res, 1, i64, t, 0, 1, i64, MPI_SUM, 0, win, nullptr));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_ARG,
                       MPI_Rput_notify_c(buf, one, i64, t, 0, one, i64, 0, win, nullptr));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_ARG,
                       MPI_Rget_notify_c(res, one, i64, t, 0, one, i64, 0, win, nullptr));
  EXPECT_REPORTED_ONCE(
      win, MPI_ERR_ARG,
      MPI_Raccumulate_notify_c(buf, one, i64, t, 0, one, i64, MPI_SUM, 0, win, nullptr));
  EXPECT_REPORTED_ONCE(win, MPI_ERR_ARG,
                       MPI_Rget_accumulate_notify_c(buf, one, i64, res, one, i64, t, 0, one, i64,
                                                    MPI_SUM, 0, win, nullptr));
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(-1, res[0]) << "a failing call wrote the result buffer";
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(win, 0, &v));
  EXPECT_EQ(0, v) << "a failing call incremented a counter";
}

// SEMANTICS 6.1: MPI_WIN_NULL, given to every entry point, is MPI_ERR_WIN
// through MPI_COMM_WORLD's handler, once per call; outputs stay untouched.
TEST(Errors, WinNullGoesToCommWorldHandler_6_1) {
  std::int64_t buf[1] = {1};
  std::int64_t res[1] = {-1};
  const MPI_Datatype t = MPI_INT64_T;
  const MPI_Count one = 1;
  const MPI_Win nw = MPI_WIN_NULL;
  MPI_Request sentinel = MPI_REQUEST_NULL;
  MPI_Recv_init(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &sentinel);
  MPI_Request r = sentinel;
  int count = 77;
  MPI_Count v = 77;
  std::vector<std::pair<std::string, int>> codes;
  {
    CountingWorldHandler handler;
    auto record = [&](const char *what, int rc) {
      codes.emplace_back(what, rc);
      EXPECT_EQ(static_cast<int>(codes.size()), handler_log.calls) << what << ": handler calls";
      EXPECT_EQ(rc, handler_log.last_code) << what << ": code given to the handler";
      EXPECT_EQ(MPI_COMM_WORLD, handler_log.last_comm) << what;
    };
    record("MPI_Put_notify", MPI_Put_notify(buf, 1, t, 0, 0, 1, t, 0, nw));
    record("MPI_Get_notify", MPI_Get_notify(res, 1, t, 0, 0, 1, t, 0, nw));
    record("MPI_Accumulate_notify", MPI_Accumulate_notify(buf, 1, t, 0, 0, 1, t, MPI_SUM, 0, nw));
    record("MPI_Get_accumulate_notify",
           MPI_Get_accumulate_notify(buf, 1, t, res, 1, t, 0, 0, 1, t, MPI_SUM, 0, nw));
    record("MPI_Rput_notify", MPI_Rput_notify(buf, 1, t, 0, 0, 1, t, 0, nw, &r));
    record("MPI_Rget_notify", MPI_Rget_notify(res, 1, t, 0, 0, 1, t, 0, nw, &r));
    record("MPI_Raccumulate_notify",
           MPI_Raccumulate_notify(buf, 1, t, 0, 0, 1, t, MPI_SUM, 0, nw, &r));
    record("MPI_Rget_accumulate_notify",
           MPI_Rget_accumulate_notify(buf, 1, t, res, 1, t, 0, 0, 1, t, MPI_SUM, 0, nw, &r));
    record("MPI_Put_notify_c", MPI_Put_notify_c(buf, one, t, 0, 0, one, t, 0, nw));
    record("MPI_Get_notify_c", MPI_Get_notify_c(res, one, t, 0, 0, one, t, 0, nw));
    record("MPI_Accumulate_notify_c",
           MPI_Accumulate_notify_c(buf, one, t, 0, 0, one, t, MPI_SUM, 0, nw));
    record("MPI_Get_accumulate_notify_c",
           MPI_Get_accumulate_notify_c(buf, one, t, res, one, t, 0, 0, one, t, MPI_SUM, 0, nw));
    record("MPI_Rput_notify_c", MPI_Rput_notify_c(buf, one, t, 0, 0, one, t, 0, nw, &r));
    record("MPI_Rget_notify_c", MPI_Rget_notify_c(res, one, t, 0, 0, one, t, 0, nw, &r));
    record("MPI_Raccumulate_notify_c",
           MPI_Raccumulate_notify_c(buf, one, t, 0, 0, one, t, MPI_SUM, 0, nw, &r));
    record(
        "MPI_Rget_accumulate_notify_c",
        MPI_Rget_accumulate_notify_c(buf, one, t, res, one, t, 0, 0, one, t, MPI_SUM, 0, nw, &r));
    record("MPI_Win_set_num_notify", MPI_Win_set_num_notify(nw, MPI_INFO_NULL, 1));
    record("MPI_Win_get_num_notify", MPI_Win_get_num_notify(nw, 0, &count));
    record("MPI_Win_get_notify_value", MPI_Win_get_notify_value(nw, 0, &v));
    record("MPI_Win_reset_notify_value", MPI_Win_reset_notify_value(nw, 0, &v));
    record("MPI_Win_notify_threshold", MPI_Win_notify_threshold(nw, 0, 0, &r));
  }
  EXPECT_EQ(21U, codes.size());
  for (const auto &[what, rc] : codes) EXPECT_MPI_CLASS(MPI_ERR_WIN, rc) << what;
  EXPECT_EQ(sentinel, r) << "a failing call changed *request";
  EXPECT_EQ(77, count);
  EXPECT_EQ(77, v);
  EXPECT_EQ(-1, res[0]);
  MPI_Request_free(&sentinel);
}

}  // namespace
