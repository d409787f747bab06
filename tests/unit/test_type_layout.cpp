// The pure parts of type_layout (SEMANTICS 3.8): merging pieces and the
// runs of a subarray, no MPI run time.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "type_layout.hpp"

namespace {

using mpinotify::for_each_subarray_run;
using mpinotify::PieceList;
using mpinotify::TypeLayout;
using Runs = std::vector<std::pair<MPI_Count, MPI_Count>>;

Runs runs_of(const std::vector<MPI_Count> &sizes, const std::vector<MPI_Count> &subsizes,
             const std::vector<MPI_Count> &starts, bool c_order) {
  Runs runs;
  EXPECT_TRUE(
      for_each_subarray_run(sizes, subsizes, starts, c_order, [&](MPI_Count f, MPI_Count l) {
        runs.emplace_back(f, l);
        return true;
      }));
  return runs;
}

TEST(PieceList, MergesOnlyPiecesThatFollowInTypeMapOrder_3_8) {
  PieceList list;
  EXPECT_TRUE(list.add(0, 4));
  EXPECT_TRUE(list.add(4, 4));   // follows: merged
  EXPECT_TRUE(list.add(16, 0));  // empty: dropped
  EXPECT_TRUE(list.add(-8, 8));  // ends where the first starts, but comes later: kept apart
  EXPECT_TRUE(list.add(0, 4));   // follows the last piece: merged
  ASSERT_EQ(2U, list.pieces().size());
  EXPECT_EQ(0, list.pieces()[0].offset);
  EXPECT_EQ(8, list.pieces()[0].length);
  EXPECT_EQ(-8, list.pieces()[1].offset);
  EXPECT_EQ(12, list.pieces()[1].length);
}

TEST(PieceList, RefusesMoreThanTheLimit_3_8) {
  PieceList list;
  for (std::size_t i = 0; i < TypeLayout::kMaxPieces; ++i)
    ASSERT_TRUE(list.add(static_cast<MPI_Count>(2 * i), 1));
  EXPECT_FALSE(list.add(-100, 1));
  EXPECT_TRUE(list.add(2 * static_cast<MPI_Count>(TypeLayout::kMaxPieces) - 1, 1))
      << "a piece that merges needs no room";
}

TEST(SubarrayRuns, COrderWalksTheLastDimensionFastest_3_8) {
  // 4 x 6 array, rows 1-2, columns 2-4.
  EXPECT_EQ((Runs{{8, 3}, {14, 3}}), runs_of({4, 6}, {2, 3}, {1, 2}, true));
}

TEST(SubarrayRuns, FortranOrderWalksTheFirstDimensionFastest_3_8) {
  // 5 x 4 x 3 array (first index fastest), sub-box 2 x 2 x 2 at (1, 1, 0).
  EXPECT_EQ((Runs{{6, 2}, {11, 2}, {26, 2}, {31, 2}}),
            runs_of({5, 4, 3}, {2, 2, 2}, {1, 1, 0}, false));
}

TEST(SubarrayRuns, EmptyAndStoppedWalks_3_8) {
  EXPECT_TRUE(runs_of({4, 6}, {0, 3}, {0, 0}, true).empty());
  int calls = 0;
  EXPECT_FALSE(for_each_subarray_run({4, 6}, {4, 6}, {0, 0}, true,
                                     [&](MPI_Count, MPI_Count) { return ++calls < 2; }));
  EXPECT_EQ(2, calls);
  EXPECT_FALSE(for_each_subarray_run({}, {}, {}, true, [](MPI_Count, MPI_Count) { return true; }));
}

}  // namespace
