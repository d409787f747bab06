// The sm backend's segment layout (sm_segment.hpp), SEMANTICS 5.1: header
// and rank table first, then each rank's counters on pages of their own.
#include <gtest/gtest.h>

#include "osc_sm/sm_segment.hpp"

namespace {

using mpinotify::sm::Layout;
using mpinotify::sm::plan_layout;
using mpinotify::sm::RankEntry;
using mpinotify::sm::SegmentHeader;

TEST(SmLayout, EachRankStartsOnItsOwnPage_5_1) {
  const Layout layout = plan_layout({16, 5000, 0, 1}, 64, 4096);
  ASSERT_EQ(4u, layout.offsets.size());
  EXPECT_EQ(64u, layout.stride);
  // Header and four rank entries fit in the first page.
  EXPECT_EQ(4096u, layout.offsets[0]);
  EXPECT_EQ(4096u + 4096u, layout.offsets[1]);                    // 16 * 64 = 1 KiB -> 1 page
  EXPECT_EQ(layout.offsets[1] + 79u * 4096u, layout.offsets[2]);  // 5000 * 64 B: 78.1 -> 79 pages
  for (std::size_t r = 0; r < layout.offsets.size(); ++r) {
    EXPECT_EQ(0u, layout.offsets[r] % 4096) << r;
  }
  EXPECT_EQ(layout.offsets[2], layout.offsets[3]);  // a rank with no counters takes no page
  EXPECT_EQ(layout.offsets[3] + 4096u, layout.total_bytes);
}

TEST(SmLayout, RoomForEveryCounterAtTheStride_5_1) {
  for (const std::uint32_t stride : {8u, 64u, 128u}) {
    const std::vector<std::int64_t> capacities{1, 63, 64, 65, 1000};
    const Layout layout = plan_layout(capacities, stride, 4096);
    for (std::size_t r = 0; r < capacities.size(); ++r) {
      const std::uint64_t end =
          r + 1 < capacities.size() ? layout.offsets[r + 1] : layout.total_bytes;
      EXPECT_GE(end - layout.offsets[r], static_cast<std::uint64_t>(capacities[r]) * stride)
          << "rank " << r << " stride " << stride;
    }
  }
}

TEST(SmLayout, HeaderAndEntriesAreCacheLineAligned_5_1) {
  EXPECT_EQ(0u, sizeof(SegmentHeader) % 64);
  EXPECT_EQ(0u, sizeof(RankEntry) % 64);
  EXPECT_EQ(64u, alignof(RankEntry));
}

}  // namespace
