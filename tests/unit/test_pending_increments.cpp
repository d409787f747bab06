// osc_base/pending_increments.hpp: the increments an origin gathers until a
// synchronisation call publishes them (SEMANTICS 3.6), in both modes: the
// concurrent one (MPI_THREAD_MULTIPLE) and the single-caller one, which
// uses plain loads and stores.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>
#include <utility>
#include <vector>

#include "osc_base/pending_increments.hpp"

namespace {

using mpinotify::PendingIncrements;
using Totals = std::map<std::pair<int, int>, std::int64_t>;

Totals drain(PendingIncrements &pending) {
  Totals totals;
  pending.drain([&](int target, int idx, std::int64_t amount) {
    EXPECT_GT(amount, 0);
    totals[{target, idx}] += amount;
  });
  return totals;
}

class PendingIncrementsTest : public testing::TestWithParam<bool> {};

TEST_P(PendingIncrementsTest, GathersPerTargetAndCounterAndDrainsOnce) {
  PendingIncrements pending(GetParam());
  EXPECT_FALSE(pending.any());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(pending.add(1, 0));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(pending.add(1, 7));
  ASSERT_TRUE(pending.add(0, 0));
  EXPECT_TRUE(pending.any());
  const Totals totals = drain(pending);
  EXPECT_EQ((Totals{{{1, 0}, 5}, {{1, 7}, 3}, {{0, 0}, 1}}), totals);
  EXPECT_FALSE(pending.any());
  EXPECT_TRUE(drain(pending).empty());  // nothing twice
  // Slots stay claimed: the same pair counts again from zero.
  ASSERT_TRUE(pending.add(1, 7));
  EXPECT_EQ((Totals{{{1, 7}, 1}}), drain(pending));
}

TEST_P(PendingIncrementsTest, LargeTargetsAndIndicesKeepTheirIdentity) {
  PendingIncrements pending(GetParam());
  ASSERT_TRUE(pending.add(2147483647, 2147483646));
  ASSERT_TRUE(pending.add(0, 2147483646));
  EXPECT_EQ((Totals{{{2147483647, 2147483646}, 1}, {{0, 2147483646}, 1}}), drain(pending));
}

TEST_P(PendingIncrementsTest, RefusesWhenFullAndLosesNothing) {
  PendingIncrements pending(GetParam());
  // Many pairs: some find no slot within the probe limit; those the caller
  // must increment itself, so accepted + refused is every add.
  Totals accepted;
  int refused = 0;
  for (int target = 0; target < 200; ++target) {
    if (pending.add(target, 1))
      ++accepted[{target, 1}];
    else
      ++refused;
  }
  EXPECT_GT(refused, 0);
  EXPECT_LE(accepted.size(), PendingIncrements::kSlots);
  EXPECT_EQ(accepted, drain(pending));
}

TEST_P(PendingIncrementsTest, ClearForgetsEverySlot) {
  PendingIncrements pending(GetParam());
  for (int target = 0; target < 64; ++target) static_cast<void>(pending.add(target, 0));
  static_cast<void>(drain(pending));
  pending.clear();
  EXPECT_FALSE(pending.any());
  // The slots are free again for new pairs.
  ASSERT_TRUE(pending.add(1000, 3));
  EXPECT_EQ((Totals{{{1000, 3}, 1}}), drain(pending));
}

INSTANTIATE_TEST_SUITE_P(Modes, PendingIncrementsTest, testing::Values(true, false),
                         [](const testing::TestParamInfo<bool> &mode) {
                           return mode.param ? "concurrent" : "single_caller";
                         });

TEST(PendingIncrementsConcurrent, ThreadsAddingWhileOneDrainsLoseNothing) {
  PendingIncrements pending(true);
  constexpr int kThreads = 4;
  constexpr int kAdds = 20000;
  std::atomic<bool> done{false};
  std::vector<std::thread> adders;
  std::atomic<std::int64_t> refused{0};
  for (int t = 0; t < kThreads; ++t) {
    adders.emplace_back([&, t] {
      for (int i = 0; i < kAdds; ++i)
        if (!pending.add(t % 2, i % 3)) refused.fetch_add(1);
    });
  }
  std::int64_t drained = 0;
  std::thread drainer([&] {
    while (!done.load()) pending.drain([&](int, int, std::int64_t n) { drained += n; });
  });
  for (std::thread &t : adders) t.join();
  done.store(true);
  drainer.join();
  pending.drain([&](int, int, std::int64_t n) { drained += n; });
  EXPECT_EQ(std::int64_t{kThreads} * kAdds, drained + refused.load());
}

}  // namespace
