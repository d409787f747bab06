// Epoch bookkeeping (SEMANTICS 3.6, 3.7): which synchronisation covers a
// notified operation to a target. Epochs is plain state, no MPI run time.
#include <gtest/gtest.h>

#include <vector>

#include "epochs.hpp"

namespace {

using mpinotify::EpochMode;
using mpinotify::Epochs;
using mpinotify::SyncCall;
using mpinotify::SyncKind;

SyncCall call(SyncKind kind, int rank = MPI_PROC_NULL, int assert_flags = 0,
              std::vector<int> group = {}) {
  SyncCall c;
  c.kind = kind;
  c.rank = rank;
  c.assert_flags = assert_flags;
  c.group = std::move(group);
  return c;
}

void expect_modes(const Epochs &e, const std::vector<EpochMode> &modes) {
  for (std::size_t t = 0; t < modes.size(); ++t)
    EXPECT_EQ(modes[t], e.mode_for(static_cast<int>(t))) << "target " << t;
}

constexpr EpochMode kNone = EpochMode::none;
constexpr EpochMode kPassive = EpochMode::passive;
constexpr EpochMode kFence = EpochMode::fence;
constexpr EpochMode kPscw = EpochMode::pscw;

TEST(Epochs, NothingOpenCoversNothing_3_6) {
  Epochs e(4);
  expect_modes(e, {kNone, kNone, kNone, kNone});
  EXPECT_EQ(kNone, e.mode_for(-1));
  EXPECT_EQ(kNone, e.mode_for(4));
  EXPECT_EQ(kNone, e.mode_for(MPI_PROC_NULL));
  EXPECT_TRUE(e.access_group().empty());
  EXPECT_TRUE(e.exposure_group().empty());
}

TEST(Epochs, LockCoversOnlyItsTarget_3_6) {
  Epochs e(4);
  e.apply(call(SyncKind::lock, 2, MPI_MODE_NOCHECK));
  expect_modes(e, {kNone, kNone, kPassive, kNone});
  e.apply(call(SyncKind::lock, 0));
  expect_modes(e, {kPassive, kNone, kPassive, kNone});
  e.apply(call(SyncKind::unlock, 2));
  expect_modes(e, {kPassive, kNone, kNone, kNone});
  e.apply(call(SyncKind::unlock, 0));
  expect_modes(e, {kNone, kNone, kNone, kNone});
}

// Where MPI_Win_flush_all is allowed: a lock of any target or lock_all.
TEST(Epochs, PassiveOpenWhileAnyLockIs_3_9) {
  Epochs e(3);
  EXPECT_FALSE(e.passive_open());
  e.apply(call(SyncKind::lock, 1));
  e.apply(call(SyncKind::lock, 2));
  EXPECT_TRUE(e.passive_open());
  e.apply(call(SyncKind::unlock, 1));
  EXPECT_TRUE(e.passive_open());
  e.apply(call(SyncKind::unlock, 2));
  EXPECT_FALSE(e.passive_open());
  e.apply(call(SyncKind::unlock, 2));  // refused by the host; counts nothing
  e.apply(call(SyncKind::lock_all));
  EXPECT_TRUE(e.passive_open());
  e.apply(call(SyncKind::unlock_all));
  EXPECT_FALSE(e.passive_open());
  e.apply(call(SyncKind::fence));
  EXPECT_FALSE(e.passive_open());
}

TEST(Epochs, LockOfRankOutsideTheGroupIsIgnored_3_6) {
  Epochs e(2);
  e.apply(call(SyncKind::lock, 5));
  e.apply(call(SyncKind::lock, -3));
  e.apply(call(SyncKind::lock, MPI_PROC_NULL));
  expect_modes(e, {kNone, kNone});
  EXPECT_EQ(kNone, e.mode_for(5));
  e.apply(call(SyncKind::unlock, 7));
  expect_modes(e, {kNone, kNone});
}

// In a group of a million ranks, locks of a few far-apart targets cover
// those only, and the targets still locked are listed in order.
TEST(Epochs, LocksInAHugeGroupCoverTheirTargets_3_6) {
  Epochs e(1'000'000);
  for (int target : {999'999, 3, 500'000}) e.apply(call(SyncKind::lock, target));
  EXPECT_EQ(kPassive, e.mode_for(999'999));
  EXPECT_EQ(kPassive, e.mode_for(3));
  EXPECT_EQ(kNone, e.mode_for(4));
  EXPECT_EQ(kNone, e.mode_for(1'000'000));
  EXPECT_EQ((std::vector<int>{3, 500'000, 999'999}), e.locked_targets());
  e.apply(call(SyncKind::unlock, 3));
  EXPECT_EQ(kNone, e.mode_for(3));
  EXPECT_EQ((std::vector<int>{500'000, 999'999}), e.locked_targets());
  e.apply(call(SyncKind::lock, 3));
  EXPECT_EQ(kPassive, e.mode_for(3));
  for (int target : {999'999, 3, 500'000}) e.apply(call(SyncKind::unlock, target));
  EXPECT_FALSE(e.passive_open());
  EXPECT_TRUE(e.locked_targets().empty());
}

TEST(Epochs, LockAllCoversEveryTarget_3_6) {
  Epochs e(3);
  e.apply(call(SyncKind::lock_all));
  expect_modes(e, {kPassive, kPassive, kPassive});
  // Flushes change nothing.
  for (SyncKind k :
       {SyncKind::flush, SyncKind::flush_all, SyncKind::flush_local, SyncKind::flush_local_all}) {
    e.apply(call(k, 1));
    expect_modes(e, {kPassive, kPassive, kPassive});
  }
  e.apply(call(SyncKind::unlock_all));
  expect_modes(e, {kNone, kNone, kNone});
}

TEST(Epochs, FenceOpensAnEpochUnlessNoSucceed_3_6) {
  Epochs e(3);
  e.apply(call(SyncKind::fence, MPI_PROC_NULL, 0));
  expect_modes(e, {kFence, kFence, kFence});
  e.apply(call(SyncKind::fence, MPI_PROC_NULL, MPI_MODE_NOPRECEDE | MPI_MODE_NOSTORE));
  expect_modes(e, {kFence, kFence, kFence});
  e.apply(call(SyncKind::fence, MPI_PROC_NULL, MPI_MODE_NOSUCCEED));
  expect_modes(e, {kNone, kNone, kNone});
  e.apply(call(SyncKind::fence, MPI_PROC_NULL, MPI_MODE_NOPRECEDE));
  expect_modes(e, {kFence, kFence, kFence});
  e.apply(call(SyncKind::fence, MPI_PROC_NULL, MPI_MODE_NOSUCCEED | MPI_MODE_NOPUT));
  expect_modes(e, {kNone, kNone, kNone});
}

TEST(Epochs, StartCoversItsGroupUntilComplete_3_6) {
  Epochs e(4);
  e.apply(call(SyncKind::start, MPI_PROC_NULL, 0, {1, 3}));
  expect_modes(e, {kNone, kPscw, kNone, kPscw});
  EXPECT_EQ((std::vector<int>{1, 3}), e.access_group());
  e.apply(call(SyncKind::complete));
  expect_modes(e, {kNone, kNone, kNone, kNone});
  EXPECT_TRUE(e.access_group().empty());
  e.apply(call(SyncKind::start, MPI_PROC_NULL, 0, {0}));
  expect_modes(e, {kPscw, kNone, kNone, kNone});
  e.apply(call(SyncKind::complete));
}

TEST(Epochs, PostExposureGroupUntilWaitOrSuccessfulTest_3_6) {
  Epochs e(4);
  e.apply(call(SyncKind::post, MPI_PROC_NULL, 0, {0, 2}));
  EXPECT_EQ((std::vector<int>{0, 2}), e.exposure_group());
  // An exposure epoch is no access epoch.
  expect_modes(e, {kNone, kNone, kNone, kNone});
  e.apply(call(SyncKind::wait));
  EXPECT_TRUE(e.exposure_group().empty());

  e.apply(call(SyncKind::post, MPI_PROC_NULL, 0, {3}));
  int flag = 0;
  SyncCall test = call(SyncKind::test);
  test.test_flag = &flag;
  EXPECT_FALSE(test.completed());
  e.apply(test);
  EXPECT_EQ((std::vector<int>{3}), e.exposure_group());
  flag = 1;
  EXPECT_TRUE(test.completed());
  e.apply(test);
  EXPECT_TRUE(e.exposure_group().empty());
}

TEST(Epochs, TestWithoutAnswerIsNotCompletion_3_6) {
  SyncCall test = call(SyncKind::test);
  EXPECT_FALSE(test.completed());
  for (SyncKind k :
       {SyncKind::lock, SyncKind::fence, SyncKind::wait, SyncKind::complete, SyncKind::flush}) {
    EXPECT_TRUE(call(k).completed());
  }
  Epochs e(2);
  e.apply(call(SyncKind::post, MPI_PROC_NULL, 0, {1}));
  e.apply(test);
  EXPECT_EQ((std::vector<int>{1}), e.exposure_group());
}

// Passive first: a program may lock after a fence that did not assert
// NOSUCCEED; the lock then decides how operations complete (3.7: flush is
// allowed, request-based forms are valid).
TEST(Epochs, PassiveWinsOverFence_3_7) {
  Epochs e(3);
  e.apply(call(SyncKind::fence));
  e.apply(call(SyncKind::lock, 1));
  expect_modes(e, {kFence, kPassive, kFence});
  e.apply(call(SyncKind::unlock, 1));
  expect_modes(e, {kFence, kFence, kFence});
  e.apply(call(SyncKind::lock_all));
  expect_modes(e, {kPassive, kPassive, kPassive});
  e.apply(call(SyncKind::unlock_all));
  expect_modes(e, {kFence, kFence, kFence});
}

TEST(Epochs, PassiveWinsOverStartAndStartOverFence_3_7) {
  Epochs e(3);
  e.apply(call(SyncKind::fence));
  e.apply(call(SyncKind::start, MPI_PROC_NULL, 0, {2}));
  expect_modes(e, {kFence, kFence, kPscw});
  e.apply(call(SyncKind::lock, 2));
  expect_modes(e, {kFence, kFence, kPassive});
  e.apply(call(SyncKind::unlock, 2));
  e.apply(call(SyncKind::complete));
  expect_modes(e, {kFence, kFence, kFence});
}

TEST(Epochs, ZeroSizedGroup_3_6) {
  Epochs e(0);
  EXPECT_EQ(kNone, e.mode_for(0));
  e.apply(call(SyncKind::lock, 0));
  EXPECT_EQ(kNone, e.mode_for(0));
  e.apply(call(SyncKind::lock_all));
  EXPECT_EQ(kPassive, e.mode_for(0));
}

}  // namespace
