// How a window's prefault budget is spread over its ranks' memory.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "osc_base/shared_memory_window.hpp"

namespace {

using mpinotify::prefault_shares;
using Sizes = std::vector<std::uint64_t>;

std::uint64_t total(const Sizes &shares) {
  return std::accumulate(shares.begin(), shares.end(), std::uint64_t{0});
}

TEST(PrefaultShares, WholeWindowsWhenTheyFit) {
  EXPECT_EQ((Sizes{100, 0, 300}), prefault_shares({100, 0, 300}, 1000));
  EXPECT_EQ((Sizes{}), prefault_shares({}, 1000));
}

TEST(PrefaultShares, EqualSharesOfEqualWindows) {
  EXPECT_EQ((Sizes{250, 250, 250, 250}), prefault_shares({1000, 1000, 1000, 1000}, 1000));
  // The remainder of an uneven division goes to the ranks taken last.
  const Sizes shares = prefault_shares({1000, 1000, 1000}, 1000);
  EXPECT_EQ(1000u, total(shares));
  for (std::uint64_t share : shares) EXPECT_TRUE(share == 333 || share == 334) << share;
}

// What a rank with a small window (or none) leaves goes to the others.
TEST(PrefaultShares, SmallWindowsLeaveTheirShareToLargeOnes) {
  EXPECT_EQ((Sizes{0, 1000}), prefault_shares({0, 1u << 20}, 1000));
  EXPECT_EQ((Sizes{450, 100, 450}), prefault_shares({5000, 100, 5000}, 1000));
}

TEST(PrefaultShares, NeverMoreThanTheBudgetOrAWindow) {
  const Sizes sizes{7, 1u << 30, 12345, 0, 1u << 20, 999999};
  for (std::uint64_t budget : {0ull, 1ull, 64ull << 20, ~0ull}) {
    const Sizes shares = prefault_shares(sizes, budget);
    ASSERT_EQ(sizes.size(), shares.size());
    EXPECT_LE(total(shares), budget);
    for (std::size_t r = 0; r < sizes.size(); ++r) EXPECT_LE(shares[r], sizes[r]) << r;
    if (budget >= total(sizes)) {
      EXPECT_EQ(sizes, shares);
    }
  }
  EXPECT_EQ((Sizes{0, 0}), prefault_shares({10, 10}, 0));
}

}  // namespace
