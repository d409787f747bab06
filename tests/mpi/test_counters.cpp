// SEMANTICS section 2: attached counts, growth, agreement, counter access.
#include <climits>
#include <cstdlib>

#include "harness.hpp"

namespace {

using mpitest::Flavor;
using mpitest::TestWindow;

class Counters : public mpitest::FlavorTest {};

// SEMANTICS 2.1: a new window has n = 0 at every rank.
TEST_P(Counters, NewWindowHasNoCounters_2_1) {
  TestWindow w(GetParam(), 64);
  for (int r = 0; r < mpitest::size(); ++r) {
    int n = -1;
    EXPECT_MPI_OK(MPI_Win_get_num_notify(w.win(), r, &n));
    EXPECT_EQ(0, n) << "rank " << r;
  }
  MPI_Count v = 0;
  EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION, MPI_Win_get_notify_value(w.win(), 0, &v));
}

// SEMANTICS 2.2: counts are local and may differ; every rank sees all of
// them; every counter reads 0 afterwards.
TEST_P(Counters, SetNumNotifyPerRankCounts_2_2) {
  TestWindow w(GetParam(), 64);
  const int me = mpitest::rank();
  EXPECT_MPI_OK(MPI_Win_set_num_notify(w.win(), MPI_INFO_NULL, 3 + me));
  for (int r = 0; r < mpitest::size(); ++r) {
    int n = -1;
    EXPECT_MPI_OK(MPI_Win_get_num_notify(w.win(), r, &n));
    EXPECT_EQ(3 + r, n) << "count of rank " << r << " seen from rank " << me;
  }
  for (int i = 0; i < 3 + me; ++i) {
    MPI_Count v = -1;
    EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), i, &v));
    EXPECT_EQ(0, v) << "counter " << i;
  }
  MPI_Count v = 0;
  EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION, MPI_Win_get_notify_value(w.win(), 3 + me, &v));
}

// SEMANTICS 2.2: set_num_notify clears counters that were incremented,
// including when the count is lowered; info keys it does not know are
// ignored.
TEST_P(Counters, SetNumNotifyClearsAndLowers_2_2) {
  TestWindow w(GetParam(), 64);
  const int me = mpitest::rank();
  const int n = mpitest::size();
  w.set_num_notify(8);
  MPI_Win_lock_all(0, w.win());
  for (int t = 0; t < n; ++t) {
    for (int idx = 0; idx < 8; ++idx) {
      EXPECT_MPI_OK(
          MPI_Put_notify(nullptr, 0, MPI_BYTE, t, w.disp(t, 0), 0, MPI_BYTE, idx, w.win()));
    }
  }
  MPI_Win_unlock_all(w.win());
  MPI_Barrier(MPI_COMM_WORLD);
  for (int idx = 0; idx < 8; ++idx) {
    EXPECT_EQ(n, mpitest::wait_for_counter(w.win(), idx, n)) << "counter " << idx;
  }
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "no_such_key_for_mpinotify", "whatever");
  EXPECT_MPI_OK(MPI_Win_set_num_notify(w.win(), info, 2));
  MPI_Info_free(&info);
  for (int idx = 0; idx < 2; ++idx) {
    MPI_Count v = -1;
    EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), idx, &v));
    EXPECT_EQ(0, v);
  }
  MPI_Count v = 0;
  EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION, MPI_Win_get_notify_value(w.win(), 2, &v));
  // Raising it again: the counters between 2 and 8 read 0 too.
  w.set_num_notify(8);
  for (int idx = 0; idx < 8; ++idx) {
    EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), idx, &v));
    EXPECT_EQ(0, v) << "counter " << idx << " on rank " << me;
  }
}

// Fills counter idx of every rank with `amount` notifications from each rank.
void notify_everyone(TestWindow &w, int idx, int amount) {
  MPI_Win_lock_all(0, w.win());
  for (int t = 0; t < mpitest::size(); ++t) {
    for (int k = 0; k < amount; ++k) {
      EXPECT_MPI_OK(
          MPI_Put_notify(nullptr, 0, MPI_BYTE, t, w.disp(t, 0), 0, MPI_BYTE, idx, w.win()));
    }
  }
  MPI_Win_unlock_all(w.win());
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(amount * mpitest::size(),
            mpitest::wait_for_counter(w.win(), idx, amount * mpitest::size()));
}

// Checks that counts are still `count` everywhere and counter idx still
// reads `value` (nothing changed after a refused call).
void expect_unchanged(TestWindow &w, int count, int idx, MPI_Count value) {
  for (int r = 0; r < mpitest::size(); ++r) {
    int n = -1;
    EXPECT_MPI_OK(MPI_Win_get_num_notify(w.win(), r, &n));
    EXPECT_EQ(count, n) << "count of rank " << r;
  }
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), idx, &v));
  EXPECT_EQ(value, v);
}

// SEMANTICS 2.3: one rank's negative count fails the call on every rank,
// changes nothing, and nobody hangs.
TEST_P(Counters, BadCountOnOneRankFailsEverywhere_2_3) {
  TestWindow w(GetParam(), 64);
  w.set_num_notify(4);
  notify_everyone(w, 1, 2);
  const int bad_rank = mpitest::size() - 1;
  const int n = mpitest::rank() == bad_rank ? -5 : 100;
  EXPECT_MPI_CLASS(MPI_ERR_ARG, MPI_Win_set_num_notify(w.win(), MPI_INFO_NULL, n));
  expect_unchanged(w, 4, 1, 2 * mpitest::size());
  // The window still works afterwards.
  w.set_num_notify(6);
  notify_everyone(w, 5, 1);
}

// SEMANTICS 2.1, 2.3: counts that differ per rank (gathered after the
// agreement's reduction) and counts the same on every rank (known from the
// reduction alone) follow each other; after each call every rank knows
// every rank's count, refuses an index at or past a target's count, and
// reaches a target's last counter.
TEST_P(Counters, CountsThatDifferAndAgreeAlternate_2_3) {
  TestWindow w(GetParam(), 64);
  const int n = mpitest::size();
  const int me = mpitest::rank();
  const int right = (me + 1) % n;
  for (const bool differ : {true, false, true, false}) {
    const auto count_of = [differ](int r) { return differ ? 3 + r : 5; };
    w.set_num_notify(count_of(me));
    for (int r = 0; r < n; ++r) {
      int count = -1;
      EXPECT_MPI_OK(MPI_Win_get_num_notify(w.win(), r, &count));
      EXPECT_EQ(count_of(r), count) << "count of rank " << r << (differ ? " (differ)" : "");
    }
    MPI_Win_lock_all(0, w.win());
    EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION,
                     MPI_Put_notify(nullptr, 0, MPI_BYTE, right, w.disp(right, 0), 0, MPI_BYTE,
                                    count_of(right), w.win()));
    EXPECT_MPI_OK(MPI_Put_notify(nullptr, 0, MPI_BYTE, right, w.disp(right, 0), 0, MPI_BYTE,
                                 count_of(right) - 1, w.win()));
    MPI_Win_unlock_all(w.win());
    EXPECT_EQ(1, mpitest::wait_for_counter(w.win(), count_of(me) - 1, 1));
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

// SEMANTICS 2.3 and 4.2: a count above the rank's own assertion fails the
// call everywhere with MPI_ERR_ARG.
TEST_P(Counters, CountAboveAssertionFailsEverywhere_2_3) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY, "5");
  TestWindow w(GetParam(), 64, info);
  MPI_Info_free(&info);
  w.set_num_notify(5);
  notify_everyone(w, 4, 1);
  const int n = mpitest::rank() == 0 ? 6 : 1;
  EXPECT_MPI_CLASS(MPI_ERR_ARG, MPI_Win_set_num_notify(w.win(), MPI_INFO_NULL, n));
  expect_unchanged(w, 5, 4, mpitest::size());
}

// SEMANTICS 2.3: one rank that cannot allocate fails the call everywhere
// with MPI_ERR_NO_MEM; nothing changes. The suite runs with a counter
// memory limit so that the failure is certain.
TEST_P(Counters, FailedAllocationOnOneRankFailsEverywhere_2_3) {
  const char *limit_text = std::getenv("MPINOTIFY_COUNTER_MEMORY_LIMIT");
  if (limit_text == nullptr) GTEST_SKIP() << "needs MPINOTIFY_COUNTER_MEMORY_LIMIT";
  const long long limit = std::atoll(limit_text);
  ASSERT_GT(limit, 0);
  ASSERT_LT(limit / 8, INT_MAX);
  TestWindow w(GetParam(), 64);
  w.set_num_notify(3);
  notify_everyone(w, 2, 3);
  const int greedy = mpitest::size() > 1 ? 1 : 0;
  const int n = mpitest::rank() == greedy ? static_cast<int>(limit / 8 + 1) : 10;
  EXPECT_MPI_CLASS(MPI_ERR_NO_MEM, MPI_Win_set_num_notify(w.win(), MPI_INFO_NULL, n));
  expect_unchanged(w, 3, 2, 3 * mpitest::size());
}

// SEMANTICS 2.3: an argument error outranks an allocation error elsewhere.
TEST_P(Counters, ArgumentErrorOutranksAllocationError_2_3) {
  const char *limit_text = std::getenv("MPINOTIFY_COUNTER_MEMORY_LIMIT");
  if (limit_text == nullptr || mpitest::size() < 2) GTEST_SKIP() << "needs a limit and 2 ranks";
  const long long limit = std::atoll(limit_text);
  TestWindow w(GetParam(), 64);
  w.set_num_notify(1);
  const int n = mpitest::rank() == 0 ? static_cast<int>(limit / 8 + 1) : -1;
  EXPECT_MPI_CLASS(MPI_ERR_ARG, MPI_Win_set_num_notify(w.win(), MPI_INFO_NULL, n));
  expect_unchanged(w, 1, 0, 0);
}

// SEMANTICS 2.4: growth far beyond the initial reservation, every counter
// usable, the old ones cleared.
TEST_P(Counters, GrowsToThousandsOfCounters_2_4) {
  TestWindow w(GetParam(), 64);
  w.set_num_notify(4);
  notify_everyone(w, 3, 1);
  const int big = 5000 + 7 * mpitest::rank();
  w.set_num_notify(big);
  const int n = mpitest::size();
  MPI_Win_lock_all(0, w.win());
  for (int t = 0; t < n; ++t) {
    const int t_count = 5000 + 7 * t;
    for (int idx : {0, 3, 4999, t_count - 1}) {
      EXPECT_MPI_OK(
          MPI_Put_notify(nullptr, 0, MPI_BYTE, t, w.disp(t, 0), 0, MPI_BYTE, idx, w.win()));
    }
  }
  MPI_Win_unlock_all(w.win());
  MPI_Barrier(MPI_COMM_WORLD);
  const int last = big - 1;
  for (int idx : {0, 3, 4999}) {
    EXPECT_EQ(last == idx ? 2 * n : n, mpitest::wait_for_counter(w.win(), idx, n)) << idx;
  }
  if (last != 4999) {
    EXPECT_EQ(n, mpitest::wait_for_counter(w.win(), last, n));
  }
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 1, &v));
  EXPECT_EQ(0, v);
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 2000, &v));
  EXPECT_EQ(0, v);
  // Lowering after growth, then growing again within capacity.
  w.set_num_notify(10);
  w.set_num_notify(big);
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 4999, &v));
  EXPECT_EQ(0, v);
}

// SEMANTICS 2.5: get_num_notify is local; ranks outside the group fail.
TEST_P(Counters, GetNumNotifyRankOutsideGroup_2_5) {
  TestWindow w(GetParam(), 64);
  w.set_num_notify(2);
  int n = 77;
  EXPECT_MPI_CLASS(MPI_ERR_RANK, MPI_Win_get_num_notify(w.win(), mpitest::size(), &n));
  EXPECT_MPI_CLASS(MPI_ERR_RANK, MPI_Win_get_num_notify(w.win(), -1, &n));
  EXPECT_MPI_CLASS(MPI_ERR_RANK, MPI_Win_get_num_notify(w.win(), MPI_PROC_NULL, &n));
  EXPECT_EQ(77, n);
}

// SEMANTICS 2.7: reset returns the previous value and zeroes.
TEST_P(Counters, ResetReturnsPreviousValue_2_7) {
  TestWindow w(GetParam(), 64);
  w.set_num_notify(2);
  notify_everyone(w, 1, 3);
  MPI_Count old = -1;
  EXPECT_MPI_OK(MPI_Win_reset_notify_value(w.win(), 1, &old));
  EXPECT_EQ(3 * mpitest::size(), old);
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 1, &v));
  EXPECT_EQ(0, v);
  EXPECT_MPI_OK(MPI_Win_reset_notify_value(w.win(), 1, &old));
  EXPECT_EQ(0, old);
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 0, &v));
  EXPECT_EQ(0, v);
}

// SEMANTICS 2.8: bad indices in get/reset fail and change nothing.
TEST_P(Counters, BadIndexInGetAndReset_2_8) {
  TestWindow w(GetParam(), 64);
  w.set_num_notify(3);
  notify_everyone(w, 2, 1);
  for (int idx : {-1, 3, 1000, INT_MAX}) {
    MPI_Count v = 42;
    EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION, MPI_Win_get_notify_value(w.win(), idx, &v));
    EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION, MPI_Win_reset_notify_value(w.win(), idx, &v));
    EXPECT_EQ(42, v) << "output changed on error";
  }
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 2, &v));
  EXPECT_EQ(mpitest::size(), v);
}

INSTANTIATE_TEST_SUITE_P(AllFlavors, Counters, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

}  // namespace
