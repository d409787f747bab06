// The range check of dynamic windows (SEMANTICS 3.4) without MPI: a rank's
// published table and an origin's copies, with the table read in place.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "attached_regions.hpp"

namespace {

using mpinotify::Errc;
using mpinotify::LocalRegions;
using mpinotify::PeerRegions;
using mpinotify::RegionTable;
using mpinotify::Status;

// One target (rank 0) whose table an origin reads by copying it.
struct Pair {
  std::unique_ptr<RegionTable> table = std::make_unique<RegionTable>();  // zeros
  LocalRegions target;
  PeerRegions origin;
  int fetches = 0;
  int fetched_from = -1;
  Pair() { target.place(table.get()); }
  Status check(std::uint64_t lo, std::uint64_t hi, std::uint64_t stamp = 0, int rank = 0) {
    return origin.check(rank, lo, hi, stamp, [this](int from, RegionTable &copy) {
      ++fetches;
      fetched_from = from;
      std::memcpy(&copy, table.get(), sizeof copy);
      return Status{};
    });
  }
};

TEST(AttachedRegions, RangesInsideAttachedMemoryOnly_3_4) {
  Pair p;
  EXPECT_EQ(Errc::rma_range, p.check(100, 108).code()) << "nothing attached";
  p.target.attach(100, 64);
  p.target.attach(1000, 8);
  EXPECT_TRUE(p.check(100, 164).ok());
  EXPECT_TRUE(p.check(1000, 1008).ok());
  EXPECT_EQ(Errc::rma_range, p.check(100, 165).code()) << "one byte past the end";
  EXPECT_EQ(Errc::rma_range, p.check(99, 101).code()) << "straddles the start";
  EXPECT_EQ(Errc::rma_range, p.check(164, 1000).code()) << "between the regions";
  EXPECT_EQ(0U, p.table->version % 2) << "a published table has an even version";
}

// A covered range needs no read; a miss reads again (attached since); a
// new stamp reads again (detached since) even for a covered range.
TEST(AttachedRegions, CopiesAreReadAgainOnMissOrNewStamp_3_4) {
  Pair p;
  p.target.attach(100, 64);
  EXPECT_TRUE(p.check(100, 108).ok());
  const int first = p.fetches;
  EXPECT_TRUE(p.check(120, 130).ok());
  EXPECT_EQ(first, p.fetches) << "a covered range read the table again";
  p.target.attach(500, 10);
  EXPECT_TRUE(p.check(500, 510).ok()) << "attached since the copy";
  EXPECT_GT(p.fetches, first);
  EXPECT_TRUE(p.target.detach(100));
  EXPECT_FALSE(p.target.detach(100)) << "detached twice";
  EXPECT_TRUE(p.check(100, 108, 0).ok()) << "same stamp: the copy still stands";
  EXPECT_EQ(Errc::rma_range, p.check(100, 108, 1).code()) << "new stamp: read again";
}

// An origin keeps copies of the targets it checked only, however large
// their ranks (none are made for a group it never reads), each its own.
TEST(AttachedRegions, CopiesOfAnyRankKeptApart_3_4) {
  Pair p;
  p.target.attach(100, 64);
  constexpr int kFar = 1 << 30;
  EXPECT_TRUE(p.check(100, 108, 0, kFar).ok());
  EXPECT_EQ(kFar, p.fetched_from);
  const int first = p.fetches;
  EXPECT_TRUE(p.check(100, 108, 0, kFar).ok());
  EXPECT_EQ(first, p.fetches) << "the copy of that rank was read again";
  EXPECT_TRUE(p.check(100, 108, 0, 7).ok());
  EXPECT_EQ(first + 2, p.fetches) << "another rank's copy is read for itself (twice)";
  EXPECT_EQ(7, p.fetched_from);
}

// More regions than the table lists: ranges not in it are not refused.
TEST(AttachedRegions, RegionsPastTheCapacityAreNotRefused_3_4) {
  Pair p;
  const auto capacity = static_cast<std::uint64_t>(RegionTable::kCapacity);
  for (std::uint64_t r = 0; r <= capacity; ++r) p.target.attach(4096 * (r + 1), 16);
  EXPECT_EQ(capacity + 1, p.table->count);
  EXPECT_TRUE(p.check(4096, 4112).ok());
  EXPECT_TRUE(p.check(4096 * (capacity + 1), 4096 * (capacity + 1) + 16).ok())
      << "an unlisted region";
  EXPECT_TRUE(p.check(1, 2).ok()) << "the table is incomplete: left to the host";
}

}  // namespace
