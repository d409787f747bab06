// SEMANTICS section 4 (window creation, the assertion, attributes, info,
// disabling, freeing) and 5.4 (the backend reported for each window).
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harness.hpp"

namespace {

using mpitest::Flavor;
using mpitest::TestWindow;

int right() { return (mpitest::rank() + 1) % mpitest::size(); }
int left() { return (mpitest::rank() + mpitest::size() - 1) % mpitest::size(); }

// A duplicate of MPI_COMM_WORLD whose errors return: creation errors go to
// the communicator's handler.
class ReturningComm {
 public:
  ReturningComm() {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  }
  ~ReturningComm() { MPI_Comm_free(&comm_); }
  ReturningComm(const ReturningComm &) = delete;
  ReturningComm &operator=(const ReturningComm &) = delete;
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// An info object with one key (none when key is nullptr).
class Info {
 public:
  explicit Info(const char *key = nullptr, const std::string &value = "") {
    MPI_Info_create(&info_);
    if (key != nullptr) set(key, value);
  }
  void set(const char *key, const std::string &value) {
    set_rc_ = MPI_Info_set(info_, key, value.c_str());
  }
  ~Info() { MPI_Info_free(&info_); }
  Info(const Info &) = delete;
  Info &operator=(const Info &) = delete;
  MPI_Info get() const { return info_; }
  int set_rc() const { return set_rc_; }

 private:
  MPI_Info info_ = MPI_INFO_NULL;
  int set_rc_ = MPI_SUCCESS;
};

// Creates a 64-byte window of `flavor` with the MPI constructors themselves
// (no attach for dynamic windows); returns the error code. `memory` backs
// MPI_Win_create windows.
int create_window(Flavor flavor, MPI_Info info, MPI_Comm comm, MPI_Win *win, char *memory) {
  void *base = nullptr;
  switch (flavor) {
    case Flavor::create: return MPI_Win_create(memory, 64, 1, info, comm, win);
    case Flavor::allocate: return MPI_Win_allocate(64, 1, info, comm, &base, win);
    case Flavor::shared: return MPI_Win_allocate_shared(64, 1, info, comm, &base, win);
    case Flavor::dynamic: return MPI_Win_create_dynamic(info, comm, win);
  }
  return MPI_ERR_INTERN;
}

// Collective over MPI_COMM_WORLD: creation on this rank with `value` for
// `key` (the bad rank) or `good` (the others) must fail everywhere with
// MPI_ERR_INFO and leave MPI_WIN_NULL.
void expect_creation_refused(Flavor flavor, MPI_Comm comm, const char *key, const char *value,
                             const char *good) {
  const bool bad_rank = mpitest::rank() == mpitest::size() - 1;
  Info info(key, bad_rank ? value : good);
  EXPECT_MPI_OK(info.set_rc());
  MPI_Win win = MPI_WIN_NULL;
  char memory[64] = {};
  const int rc = create_window(flavor, info.get(), comm, &win, memory);
  EXPECT_MPI_CLASS(MPI_ERR_INFO, rc)
      << key << "=\"" << value << "\" on rank " << mpitest::size() - 1;
  EXPECT_EQ(MPI_WIN_NULL, win);
  // Free a window made in error only if every rank has one: never hang.
  if (mpitest::all_ranks(win != MPI_WIN_NULL)) MPI_Win_free(&win);
}

// A window attribute of this library: {flag, value}.
template <class T>
std::pair<int, T> attribute(MPI_Win win, int keyval) {
  T *value = nullptr;
  int flag = 0;
  EXPECT_MPI_OK(MPI_Win_get_attr(win, keyval, &value, &flag));
  if (flag == 0 || value == nullptr) return {flag, T{}};
  return {flag, *value};
}

// What MPI_Win_get_info says for `key` ("<absent>" if nothing).
std::string info_of(MPI_Win win, const char *key) {
  MPI_Info info = MPI_INFO_NULL;
  EXPECT_MPI_OK(MPI_Win_get_info(win, &info));
  if (info == MPI_INFO_NULL) return "<no info>";
  char value[MPI_MAX_INFO_VAL + 1] = {};
  int flag = 0;
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
  MPI_Info_free(&info);
  return flag != 0 ? value : "<absent>";
}

// SEMANTICS 4.3: the reservation without an assertion.
int default_reservation() {
  const char *text = std::getenv("MPINOTIFY_NUM_COUNTERS");
  if (text == nullptr || *text == '\0') return 16;
  long long value = 0;
  for (const char *c = text; *c != '\0'; ++c) {
    if (*c < '0' || *c > '9' || value > INT_MAX) return 16;
    value = value * 10 + (*c - '0');
  }
  return value > INT_MAX ? 16 : static_cast<int>(value);
}

// SEMANTICS 5.4 through 4.4: the backend serving a notifying window.
void expect_backend(MPI_Win win) {
  const std::string backend = mpitest::backend_of(win);
  if (!mpitest::expected_backend().empty()) {
    EXPECT_EQ(mpitest::expected_backend(), backend);
  } else {
    EXPECT_NE("", backend);
    EXPECT_NE("none", backend);
  }
}

// Every rank puts `value_of(rank)` into slot 0 of its right neighbour with
// counter `idx` (a valid index at every rank), then checks what its left
// neighbour sent: the window notifies.
void expect_notifies(const TestWindow &w, int idx) {
  const std::int64_t mine = 1000 + mpitest::rank();
  MPI_Win_lock_all(0, w.win());
  EXPECT_MPI_OK(MPI_Put_notify(&mine, 1, MPI_INT64_T, right(), w.disp(right(), 0), 1, MPI_INT64_T,
                               idx, w.win()));
  MPI_Win_unlock_all(w.win());
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(1, mpitest::wait_for_counter(w.win(), idx, 1));
  EXPECT_EQ(1000 + left(), w.as<std::int64_t>()[0]);
}

class Windows : public mpitest::FlavorTest {};
class WindowsOneFlavor : public mpitest::AllocateTest {};

// SEMANTICS 4.2: a malformed assertion on one rank fails creation on every
// rank with MPI_ERR_INFO and no window; nothing hangs, and a creation with
// good info on the same communicator then works. SEMANTICS 4.1, 4.3, 4.4,
// 5.4: that window (of every flavor) notifies, its attributes and info
// follow its assertion (a different one per rank), MPI_Win_set_info cannot
// change it, and the backend is reported.
TEST_P(Windows, AssertionMalformedOnOneRankThenValid_4_2_4_3_4_4) {
  ReturningComm comm;
  for (const char *bad : {"abc", "-1", "12x", "99999999999", "2147483648", "0x10", "1.5"}) {
    expect_creation_refused(GetParam(), comm.get(), MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY, bad, "5");
  }
  const int me = mpitest::rank();
  const int assertion = 3 + me;
  Info info(MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY, std::to_string(assertion));
  TestWindow w(GetParam(), 64, info.get(), comm.get());
  EXPECT_EQ(assertion, (attribute<int>(w.win(), MPI_WIN_NOTIFICATION_NUM_SB).second));
  EXPECT_EQ(assertion, (attribute<int>(w.win(), MPI_WIN_NOTIFICATION_NUM_UB).second));
  EXPECT_EQ(MPI_Count{INT64_MAX},
            (attribute<MPI_Count>(w.win(), MPI_WIN_NOTIFICATION_VALUE_UB).second));
  EXPECT_EQ(std::to_string(assertion), info_of(w.win(), MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY));
  expect_backend(w.win());
  // MPI_Win_set_info with another assertion: nothing changes.
  Info other(MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY, "100");
  EXPECT_MPI_OK(MPI_Win_set_info(w.win(), other.get()));
  EXPECT_EQ(std::to_string(assertion), info_of(w.win(), MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY));
  EXPECT_EQ(assertion, (attribute<int>(w.win(), MPI_WIN_NOTIFICATION_NUM_UB).second));
  EXPECT_MPI_CLASS(MPI_ERR_ARG, MPI_Win_set_num_notify(w.win(), MPI_INFO_NULL, assertion + 1));
  w.set_num_notify(assertion);
  expect_notifies(w, 2);  // below every rank's count of 3 + rank
}

// SEMANTICS 4.2b: mpi_assert_same_num_notifications is "true" or "false";
// anything else on one rank fails creation everywhere with MPI_ERR_INFO.
// MPI_Win_get_info reports each rank's value ("false" when not given), and
// MPI_Win_set_info cannot change it. With it on every rank, equal counts
// work as without it, and counts that differ fail everywhere with
// MPI_ERR_ARG, changing nothing.
TEST_P(Windows, SameNumNotificationsAssertion_4_2b) {
  ReturningComm comm;
  for (const char *bad : {"yes", "1", "TRUE", "true "}) {
    expect_creation_refused(GetParam(), comm.get(), MPI_INFO_KEY_ASSERT_SAME_NUM_NOTIFICATIONS, bad,
                            "true");
  }
  {
    TestWindow plain(GetParam(), 64, MPI_INFO_NULL, comm.get());
    EXPECT_EQ("false", info_of(plain.win(), MPI_INFO_KEY_ASSERT_SAME_NUM_NOTIFICATIONS));
  }
  Info info(MPI_INFO_KEY_ASSERT_SAME_NUM_NOTIFICATIONS, "true");
  TestWindow w(GetParam(), 64, info.get(), comm.get());
  EXPECT_EQ("true", info_of(w.win(), MPI_INFO_KEY_ASSERT_SAME_NUM_NOTIFICATIONS));
  Info other(MPI_INFO_KEY_ASSERT_SAME_NUM_NOTIFICATIONS, "false");
  EXPECT_MPI_OK(MPI_Win_set_info(w.win(), other.get()));
  EXPECT_EQ("true", info_of(w.win(), MPI_INFO_KEY_ASSERT_SAME_NUM_NOTIFICATIONS));
  w.set_num_notify(3);  // checks every rank's count
  expect_notifies(w, 2);
  // Growth and lowering keep every rank's count and clear the counters.
  w.set_num_notify(40);
  expect_notifies(w, 39);
  w.set_num_notify(5);
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 4, &v));
  EXPECT_EQ(0, v);
  MPI_Barrier(MPI_COMM_WORLD);  // every rank has looked before anyone notifies
  expect_notifies(w, 4);
  // A rank that breaks the assertion: refused on every rank, nothing moves.
  if (mpitest::size() > 1) {
    const int n = mpitest::rank() == mpitest::size() - 1 ? 7 : 6;
    EXPECT_MPI_CLASS(MPI_ERR_ARG, MPI_Win_set_num_notify(w.win(), MPI_INFO_NULL, n));
    for (int r = 0; r < mpitest::size(); ++r) {
      int count = -1;
      EXPECT_MPI_OK(MPI_Win_get_num_notify(w.win(), r, &count));
      EXPECT_EQ(5, count) << "count of rank " << r;
    }
    EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 4, &v));
    EXPECT_EQ(1, v) << "the refused call cleared a counter";
  }
}

// SEMANTICS 4.2b: the assertion binds only when every rank gives it; given
// by one rank alone, counts may differ per rank as without it.
TEST_F(WindowsOneFlavor, SameNumNotificationsOnOneRankOnly_4_2b) {
  Info info;
  if (mpitest::rank() == 0) info.set(MPI_INFO_KEY_ASSERT_SAME_NUM_NOTIFICATIONS, "true");
  TestWindow w(Flavor::allocate, 64, info.get());
  EXPECT_EQ(mpitest::rank() == 0 ? "true" : "false",
            info_of(w.win(), MPI_INFO_KEY_ASSERT_SAME_NUM_NOTIFICATIONS));
  EXPECT_MPI_OK(MPI_Win_set_num_notify(w.win(), MPI_INFO_NULL, 2 + mpitest::rank()));
  for (int r = 0; r < mpitest::size(); ++r) {
    int count = -1;
    EXPECT_MPI_OK(MPI_Win_get_num_notify(w.win(), r, &count));
    EXPECT_EQ(2 + r, count) << "count of rank " << r;
  }
}

// SEMANTICS 4.2: the largest valid assertion, INT_MAX, is accepted, also
// under the suite's counter memory limit (64 MiB): creation must not reserve
// 16 GiB of counters up front.
TEST_F(WindowsOneFlavor, LargestAssertionAccepted_4_2) {
  ReturningComm comm;
  Info info(MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY, "2147483647");
  MPI_Win win = MPI_WIN_NULL;
  const int rc = create_window(Flavor::allocate, info.get(), comm.get(), &win, nullptr);
  EXPECT_MPI_OK(rc);
  if (mpitest::all_ranks(win != MPI_WIN_NULL)) {
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    EXPECT_EQ(INT_MAX, (attribute<int>(win, MPI_WIN_NOTIFICATION_NUM_UB).second));
    // 4.3: NUM_SB is the assertion (creation reserves only part of it).
    EXPECT_EQ(INT_MAX, (attribute<int>(win, MPI_WIN_NOTIFICATION_NUM_SB).second));
    EXPECT_EQ("2147483647", info_of(win, MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY));
    EXPECT_MPI_OK(MPI_Win_set_num_notify(win, MPI_INFO_NULL, 4));
    MPI_Win_free(&win);
  }
}

// SEMANTICS 4.2, 4.3, 4.4, 5.4: without an assertion, or with "0" (the last
// rank), a window has the default attributes on every rank, MPI_Win_get_info
// reports "0" and the backend, the default reservation is attached and
// more counters than that too. Rank 0 also passes mpinotify_disable="false",
// which changes nothing.
TEST_F(WindowsOneFlavor, DefaultsWithoutAssertion_4_2_4_3_4_4) {
  Info info;
  if (mpitest::rank() == 0) info.set(MPINOTIFY_INFO_KEY_DISABLE, "false");
  if (mpitest::rank() == mpitest::size() - 1) info.set(MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY, "0");
  TestWindow w(Flavor::allocate, 64, info.get());
  const auto sb = attribute<int>(w.win(), MPI_WIN_NOTIFICATION_NUM_SB);
  const auto ub = attribute<int>(w.win(), MPI_WIN_NOTIFICATION_NUM_UB);
  const auto value_ub = attribute<MPI_Count>(w.win(), MPI_WIN_NOTIFICATION_VALUE_UB);
  EXPECT_EQ(1, sb.first);
  EXPECT_EQ(1, ub.first);
  EXPECT_EQ(1, value_ub.first);
  EXPECT_EQ(default_reservation(), sb.second);
  EXPECT_EQ(INT_MAX, ub.second);
  EXPECT_LE(sb.second, ub.second);
  EXPECT_EQ(MPI_Count{INT64_MAX}, value_ub.second);
  EXPECT_EQ("0", info_of(w.win(), MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY));
  expect_backend(w.win());
  w.set_num_notify(sb.second);
  expect_notifies(w, sb.second - 1);
  // No limit: far more than the reservation.
  w.set_num_notify(sb.second + 100);
  expect_notifies(w, sb.second + 99);
}

// SEMANTICS 4.2: an empty assertion on one rank is malformed too.
TEST_F(WindowsOneFlavor, EmptyAssertionOnOneRankFailsEverywhere_4_2) {
  Info probe("mpinotify_probe_key", "");
  if (!mpitest::all_ranks(probe.set_rc() == MPI_SUCCESS))
    GTEST_SKIP() << "the host MPI's MPI_Info_set refuses empty values (Open MPI 4.1 does)";
  ReturningComm comm;
  expect_creation_refused(Flavor::allocate, comm.get(), MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY, "",
                          "5");
}

// Every entry point of section 1 on `win` (in an open passive epoch) with
// otherwise valid arguments, target `target`: each must fail with
// `expected` and leave its outputs alone.
void expect_every_entry_point_fails(MPI_Win win, int target, int expected) {
  std::int64_t buf[1] = {5};
  std::int64_t res[1] = {-1};
  const MPI_Datatype t = MPI_INT64_T;
  const MPI_Count one = 1;
  MPI_Request sentinel = MPI_REQUEST_NULL;
  MPI_Recv_init(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &sentinel);
  MPI_Request r = sentinel;
  const std::string where = "target " + std::to_string(target);
  EXPECT_MPI_CLASS(expected, MPI_Put_notify(buf, 1, t, target, 0, 1, t, 0, win)) << where;
  EXPECT_MPI_CLASS(expected, MPI_Get_notify(res, 1, t, target, 0, 1, t, 0, win)) << where;
  EXPECT_MPI_CLASS(expected, MPI_Accumulate_notify(buf, 1, t, target, 0, 1, t, MPI_SUM, 0, win))
      << where;
  EXPECT_MPI_CLASS(
      expected, MPI_Get_accumulate_notify(buf, 1, t, res, 1, t, target, 0, 1, t, MPI_SUM, 0, win))
      << where;
  EXPECT_MPI_CLASS(expected, MPI_Rput_notify(buf, 1, t, target, 0, 1, t, 0, win, &r)) << where;
  EXPECT_MPI_CLASS(expected, MPI_Rget_notify(res, 1, t, target, 0, 1, t, 0, win, &r)) << where;
  EXPECT_MPI_CLASS(expected,
                   MPI_Raccumulate_notify(buf, 1, t, target, 0, 1, t, MPI_SUM, 0, win, &r))
      << where;
  EXPECT_MPI_CLASS(expected, MPI_Rget_accumulate_notify(buf, 1, t, res, 1, t, target, 0, 1, t,
                                                        MPI_SUM, 0, win, &r))
      << where;
  EXPECT_MPI_CLASS(expected, MPI_Put_notify_c(buf, one, t, target, 0, one, t, 0, win)) << where;
  EXPECT_MPI_CLASS(expected, MPI_Get_notify_c(res, one, t, target, 0, one, t, 0, win)) << where;
  EXPECT_MPI_CLASS(expected,
                   MPI_Accumulate_notify_c(buf, one, t, target, 0, one, t, MPI_SUM, 0, win))
      << where;
  EXPECT_MPI_CLASS(expected, MPI_Get_accumulate_notify_c(buf, one, t, res, one, t, target, 0, one,
                                                         t, MPI_SUM, 0, win))
      << where;
  EXPECT_MPI_CLASS(expected, MPI_Rput_notify_c(buf, one, t, target, 0, one, t, 0, win, &r))
      << where;
  EXPECT_MPI_CLASS(expected, MPI_Rget_notify_c(res, one, t, target, 0, one, t, 0, win, &r))
      << where;
  EXPECT_MPI_CLASS(expected,
                   MPI_Raccumulate_notify_c(buf, one, t, target, 0, one, t, MPI_SUM, 0, win, &r))
      << where;
  EXPECT_MPI_CLASS(expected, MPI_Rget_accumulate_notify_c(buf, one, t, res, one, t, target, 0, one,
                                                          t, MPI_SUM, 0, win, &r))
      << where;
  EXPECT_EQ(sentinel, r) << "a failing call changed *request";
  EXPECT_EQ(-1, res[0]) << "a failing call wrote the result buffer";
  int n = 77;
  MPI_Count v = 77;
  EXPECT_MPI_CLASS(expected, MPI_Win_get_num_notify(win, 0, &n));
  EXPECT_MPI_CLASS(expected, MPI_Win_get_notify_value(win, 0, &v));
  EXPECT_MPI_CLASS(expected, MPI_Win_reset_notify_value(win, 0, &v));
  EXPECT_MPI_CLASS(expected, MPI_Win_notify_threshold(win, 0, 0, &r));
  EXPECT_EQ(77, n);
  EXPECT_EQ(77, v);
  EXPECT_EQ(sentinel, r);
  MPI_Request_free(&sentinel);
}

// SEMANTICS 4.5: a malformed mpinotify_disable on one rank fails creation
// everywhere with MPI_ERR_INFO. mpinotify_disable="true" gives a window
// whose three attributes read 0 and where every entry point returns
// MPI_ERR_UNSUPPORTED_OPERATION, MPI_PROC_NULL targets included, while
// plain RMA works.
TEST_P(Windows, DisabledWindow_4_5) {
  ReturningComm comm;
  for (const char *bad : {"yes", "1", "TRUE", "truefalse"}) {
    expect_creation_refused(GetParam(), comm.get(), MPINOTIFY_INFO_KEY_DISABLE, bad, "true");
  }
  Info info(MPINOTIFY_INFO_KEY_DISABLE, "true");
  TestWindow w(GetParam(), 64, info.get());
  for (int keyval : {MPI_WIN_NOTIFICATION_NUM_SB, MPI_WIN_NOTIFICATION_NUM_UB}) {
    const auto a = attribute<int>(w.win(), keyval);
    EXPECT_EQ(1, a.first);
    EXPECT_EQ(0, a.second);
  }
  const auto value_ub = attribute<MPI_Count>(w.win(), MPI_WIN_NOTIFICATION_VALUE_UB);
  EXPECT_EQ(1, value_ub.first);
  EXPECT_EQ(0, value_ub.second);
  EXPECT_MPI_CLASS(MPI_ERR_UNSUPPORTED_OPERATION,
                   MPI_Win_set_num_notify(w.win(), MPI_INFO_NULL, 1));
  MPI_Win_lock_all(0, w.win());
  expect_every_entry_point_fails(w.win(), right(), MPI_ERR_UNSUPPORTED_OPERATION);
  expect_every_entry_point_fails(w.win(), MPI_PROC_NULL, MPI_ERR_UNSUPPORTED_OPERATION);
  // Plain RMA: a put and an accumulate in this epoch, a get under fences.
  const std::int64_t mine = 2000 + mpitest::rank();
  const std::int64_t add = 3;
  EXPECT_MPI_OK(
      MPI_Put(&mine, 1, MPI_INT64_T, right(), w.disp(right(), 0), 1, MPI_INT64_T, w.win()));
  EXPECT_MPI_OK(MPI_Accumulate(&add, 1, MPI_INT64_T, right(), w.disp(right(), 8), 1, MPI_INT64_T,
                               MPI_SUM, w.win()));
  MPI_Win_unlock_all(w.win());
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(2000 + left(), w.as<std::int64_t>()[0]);
  EXPECT_EQ(3, w.as<std::int64_t>()[1]);
  std::int64_t got = -1;
  MPI_Win_fence(0, w.win());
  EXPECT_MPI_OK(MPI_Get(&got, 1, MPI_INT64_T, left(), w.disp(left(), 0), 1, MPI_INT64_T, w.win()));
  MPI_Win_fence(0, w.win());
  // The left neighbour holds what its own left neighbour put.
  EXPECT_EQ(2000 + (left() + mpitest::size() - 1) % mpitest::size(), got);
}

// SEMANTICS 4.5 (docs/semantics.md: "Any rank asking for it disables the
// window for all"): mpinotify_disable="true" on the last rank only.
TEST_F(WindowsOneFlavor, DisabledByOneRankIsDisabledEverywhere_4_5) {
  Info info(mpitest::rank() == mpitest::size() - 1 ? MPINOTIFY_INFO_KEY_DISABLE : nullptr, "true");
  TestWindow w(Flavor::allocate, 64, info.get());
  EXPECT_EQ(0, (attribute<int>(w.win(), MPI_WIN_NOTIFICATION_NUM_SB).second));
  EXPECT_EQ(0, (attribute<int>(w.win(), MPI_WIN_NOTIFICATION_NUM_UB).second));
  EXPECT_EQ(0, (attribute<MPI_Count>(w.win(), MPI_WIN_NOTIFICATION_VALUE_UB).second));
  EXPECT_MPI_CLASS(MPI_ERR_UNSUPPORTED_OPERATION,
                   MPI_Win_set_num_notify(w.win(), MPI_INFO_NULL, 1));
  MPI_Win_lock_all(0, w.win());
  expect_every_entry_point_fails(w.win(), right(), MPI_ERR_UNSUPPORTED_OPERATION);
  MPI_Win_unlock_all(w.win());
}

// Resident memory of this process in bytes.
long long resident_bytes() {
  long long pages_total = 0;
  long long pages_resident = 0;
  std::FILE *f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  const int n = std::fscanf(f, "%lld %lld", &pages_total, &pages_resident);
  std::fclose(f);
  return n == 2 ? pages_resident * sysconf(_SC_PAGESIZE) : -1;
}

// SEMANTICS 4.6: MPI_Win_free releases what the library holds. Windows of
// every flavor are created, grown to 2^18 counters (2 MiB per rank) and
// more each time, used and freed in a loop: every step succeeds and the
// process does not keep the counter memory. 50 windows where each rank has
// a core; 3 where ranks share cores (a window costs over 1 s there).
TEST_F(WindowsOneFlavor, FreeReleasesEverything_4_6) {
  std::vector<Flavor> flavors;
  for (Flavor f : mpitest::all_flavors()) {
    if (mpitest::host_can_create(f)) flavors.push_back(f);
  }
  const bool crowded = mpitest::size() > static_cast<int>(std::thread::hardware_concurrency());
  const int windows = crowded ? 3 : 50;
  constexpr int kCounters = 1 << 18;
  long long before = 0;
  for (int i = 0; i <= windows; ++i) {
    if (i == 1) before = resident_bytes();  // after one warm-up window
    TestWindow w(flavors[static_cast<std::size_t>(i) % flavors.size()], 64);
    const int n = kCounters + 64 * i;
    EXPECT_MPI_OK(MPI_Win_set_num_notify(w.win(), MPI_INFO_NULL, n)) << "window " << i;
    MPI_Win_lock_all(0, w.win());
    EXPECT_MPI_OK(MPI_Put_notify(nullptr, 0, MPI_BYTE, right(), w.disp(right(), 0), 0, MPI_BYTE,
                                 n - 1, w.win()));
    MPI_Win_unlock_all(w.win());
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_EQ(1, mpitest::wait_for_counter(w.win(), n - 1, 1)) << "window " << i;
  }
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer keeps freed memory in quarantine; LeakSanitizer checks
  // leaks at exit instead.
  constexpr bool kMeasure = false;
#else
  constexpr bool kMeasure = true;
#endif
  const long long growth = resident_bytes() - before;
  const long long one_window = static_cast<long long>(kCounters) * 8;
  const long long held = windows * one_window;
  if (kMeasure) {
    // The allocator may keep one freed block resident: after a large free
    // glibc raises its mmap threshold, so the next block of that size comes
    // from the heap, which is not trimmed below it. A leak keeps them all.
    EXPECT_LT(growth, held / 4 + one_window)
        << "resident memory grew by " << growth << " bytes over " << windows
        << " windows of 2 MiB of counters each";
  }
}

// Whether the host MPI can create `flavor` windows on `comm` (asked with
// PMPI, as mpitest::host_can_create does for MPI_COMM_WORLD). Local to
// the members of `comm`.
bool host_can_create_here(Flavor flavor, MPI_Comm comm) {
  MPI_Comm dup = MPI_COMM_NULL;
  PMPI_Comm_dup(comm, &dup);
  PMPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  MPI_Win win = MPI_WIN_NULL;
  void *base = nullptr;
  static char memory[64];
  int rc = MPI_SUCCESS;
  switch (flavor) {
    case Flavor::create: rc = PMPI_Win_create(memory, 64, 1, MPI_INFO_NULL, dup, &win); break;
    case Flavor::allocate: rc = PMPI_Win_allocate(64, 1, MPI_INFO_NULL, dup, &base, &win); break;
    case Flavor::shared:
      rc = PMPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, dup, &base, &win);
      break;
    case Flavor::dynamic: rc = PMPI_Win_create_dynamic(MPI_INFO_NULL, dup, &win); break;
  }
  if (win != MPI_WIN_NULL) PMPI_Win_free(&win);
  PMPI_Comm_free(&dup);
  return rc == MPI_SUCCESS;
}

// Runs `step` on the ranks of half 0, then on those of half 1, with
// MPI_COMM_WORLD barriers between: Open MPI 4.1's osc/rdma names its
// shared-memory segment after the communicator's context id, which
// disjoint communicators share, so windows created at the same time on the
// two halves collide (creation fails with MPI_ERR_WIN, host MPI alone).
template <class Step>
void half_by_half(int color, Step &&step) {
  for (int turn = 0; turn < 2; ++turn) {
    if (color == turn) step();
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

// SEMANTICS 4.1 (and 2.2, 2.5, 3.2): windows on the two halves of
// MPI_COMM_WORLD, ranked in reverse, use the window's own ranks: counts per
// rank, the group's bounds and the targets all follow the sub-communicator.
TEST_P(Windows, SubCommunicatorHalves_4_1) {
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int color = me < (n + 1) / 2 ? 0 : 1;
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, color, n - me, &half);
  bool can = false;
  half_by_half(color, [&] { can = host_can_create_here(GetParam(), half); });
  if (!mpitest::all_ranks(can)) {
    MPI_Comm_free(&half);
    GTEST_SKIP() << "the host MPI cannot create " << mpitest::flavor_name(GetParam())
                 << " windows on a communicator of one process here";
  }
  int sr = -1;
  int ss = 0;
  MPI_Comm_rank(half, &sr);
  MPI_Comm_size(half, &ss);
  // World ranks of the half's members, by their rank in the half.
  std::vector<int> world(static_cast<std::size_t>(ss), -1);
  MPI_Allgather(&me, 1, MPI_INT, world.data(), 1, MPI_INT, half);
  std::unique_ptr<TestWindow> window;
  half_by_half(color,
               [&] { window = std::make_unique<TestWindow>(GetParam(), 64, MPI_INFO_NULL, half); });
  if (mpitest::all_ranks(window->win() != MPI_WIN_NULL)) {
    const TestWindow &w = *window;
    EXPECT_MPI_OK(MPI_Win_set_num_notify(w.win(), MPI_INFO_NULL, 2 + sr));
    for (int r = 0; r < ss; ++r) {
      int count = -1;
      EXPECT_MPI_OK(MPI_Win_get_num_notify(w.win(), r, &count));
      EXPECT_EQ(2 + r, count) << "rank " << r << " of the half";
    }
    int count = -1;
    EXPECT_MPI_CLASS(MPI_ERR_RANK, MPI_Win_get_num_notify(w.win(), ss, &count));
    const int t = (sr + 1) % ss;
    const int from = (sr + ss - 1) % ss;
    const std::int64_t mine = 3000 + me;
    MPI_Win_lock_all(0, w.win());
    EXPECT_MPI_CLASS(
        MPI_ERR_RMA_NOTIFICATION,
        MPI_Put_notify(&mine, 1, MPI_INT64_T, t, w.disp(t, 0), 1, MPI_INT64_T, 2 + t, w.win()));
    EXPECT_MPI_CLASS(MPI_ERR_RANK, MPI_Put_notify(&mine, 1, MPI_INT64_T, ss, w.disp(t, 0), 1,
                                                  MPI_INT64_T, 0, w.win()));
    // The last counter of the target, whose count is 2 + its rank.
    EXPECT_MPI_OK(
        MPI_Put_notify(&mine, 1, MPI_INT64_T, t, w.disp(t, 0), 1, MPI_INT64_T, 1 + t, w.win()));
    MPI_Win_unlock_all(w.win());
    MPI_Barrier(half);
    EXPECT_EQ(1, mpitest::wait_for_counter(w.win(), 1 + sr, 1));
    for (int idx = 0; idx < 1 + sr; ++idx) {
      MPI_Count v = -1;
      EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), idx, &v));
      EXPECT_EQ(0, v) << "counter " << idx;
    }
    EXPECT_EQ(3000 + world[static_cast<std::size_t>(from)], w.as<std::int64_t>()[0]);
    expect_backend(w.win());
  }
  half_by_half(color, [&] { window.reset(); });
  MPI_Comm_free(&half);
}

// SEMANTICS 4.1: windows made at the same time on the two halves of one
// MPI_Comm_split, round after round. Open MPI 4.1 names a window's
// shared-memory file by the communicator's context id, which the halves
// share: without the library's turns (osc_core/host_creation_turn.hpp)
// their windows open one file, and creation fails or memory is shared.
// Each half's memory and counters must be its own.
TEST_P(Windows, SplitHalvesCreateAtTheSameTime_4_1) {
  const int me = mpitest::rank();
  if (mpitest::size() < 4) GTEST_SKIP() << "needs two halves of 2 ranks";
  constexpr int kRounds = 8;
  const int color = me % 2;
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, color, me, &half);
  bool can = false;
  half_by_half(color, [&] { can = host_can_create_here(GetParam(), half); });
  if (!mpitest::all_ranks(can)) {
    MPI_Comm_free(&half);
    GTEST_SKIP() << "the host MPI cannot create " << mpitest::flavor_name(GetParam())
                 << " windows on this communicator here";
  }
  int sr = -1;
  int ss = 0;
  MPI_Comm_rank(half, &sr);
  MPI_Comm_size(half, &ss);
  const int t = (sr + 1) % ss;
  const int from = (sr + ss - 1) % ss;
  for (int round = 0; round < kRounds; ++round) {
    MPI_Barrier(MPI_COMM_WORLD);  // both halves create at once
    TestWindow w(GetParam(), 64, MPI_INFO_NULL, half);
    ASSERT_TRUE(mpitest::all_ranks(w.win() != MPI_WIN_NULL)) << "round " << round;
    w.set_num_notify(1);
    auto value = [&](int rank_in_half) {
      return std::int64_t{1000} * color + 10 * round + rank_in_half;
    };
    const std::int64_t mine = value(sr);
    EXPECT_MPI_OK(MPI_Win_lock_all(0, w.win()));
    EXPECT_MPI_OK(
        MPI_Put_notify(&mine, 1, MPI_INT64_T, t, w.disp(t, 0), 1, MPI_INT64_T, 0, w.win()));
    EXPECT_MPI_OK(MPI_Win_unlock_all(w.win()));
    EXPECT_EQ(1, mpitest::wait_for_counter(w.win(), 0, 1)) << "round " << round;
    EXPECT_EQ(value(from), w.as<std::int64_t>()[0])
        << "round " << round << ": the other half's data, or none";
    MPI_Barrier(half);
  }
  MPI_Comm_free(&half);
}

// SEMANTICS 4.1 (and 2.5, 3.4): a window on MPI_COMM_SELF is a group of
// one, whatever the size of MPI_COMM_WORLD.
TEST_P(Windows, CommSelfWindow_4_1) {
  if (!mpitest::all_ranks(host_can_create_here(GetParam(), MPI_COMM_SELF)))
    GTEST_SKIP() << "the host MPI cannot create " << mpitest::flavor_name(GetParam())
                 << " windows on MPI_COMM_SELF here";
  TestWindow w(GetParam(), 64, MPI_INFO_NULL, MPI_COMM_SELF);
  EXPECT_MPI_OK(MPI_Win_set_num_notify(w.win(), MPI_INFO_NULL, 3));
  int count = -1;
  EXPECT_MPI_OK(MPI_Win_get_num_notify(w.win(), 0, &count));
  EXPECT_EQ(3, count);
  EXPECT_MPI_CLASS(MPI_ERR_RANK, MPI_Win_get_num_notify(w.win(), 1, &count));
  const std::int64_t mine = 4000 + mpitest::rank();
  MPI_Win_lock_all(0, w.win());
  EXPECT_MPI_CLASS(MPI_ERR_RANK, MPI_Put_notify(&mine, 1, MPI_INT64_T, 1, w.disp(0, 0), 1,
                                                MPI_INT64_T, 0, w.win()));
  EXPECT_MPI_OK(MPI_Put_notify(&mine, 1, MPI_INT64_T, 0, w.disp(0, 0), 1, MPI_INT64_T, 2, w.win()));
  MPI_Win_unlock_all(w.win());
  EXPECT_EQ(1, mpitest::wait_for_counter(w.win(), 2, 1));
  EXPECT_EQ(4000 + mpitest::rank(), w.as<std::int64_t>()[0]);
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 0, &v));
  EXPECT_EQ(0, v);
}

INSTANTIATE_TEST_SUITE_P(AllFlavors, Windows, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

}  // namespace
