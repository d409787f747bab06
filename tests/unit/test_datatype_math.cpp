// Datatype arithmetic (SEMANTICS 3.4, 3.8): element_span and split_count,
// pure functions, no MPI run time.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <limits>

#include "datatype.hpp"

namespace {

using mpinotify::ByteSpan;
using mpinotify::CountSplit;
using mpinotify::element_span;
using mpinotify::split_count;

constexpr MPI_Count kMax = std::numeric_limits<MPI_Count>::max();
constexpr MPI_Count kMin = std::numeric_limits<MPI_Count>::min();

void expect_span(MPI_Count lo, MPI_Count hi, const ByteSpan &got) {
  EXPECT_EQ(lo, got.lo);
  EXPECT_EQ(hi, got.hi);
}

TEST(ElementSpan, CountZeroIsEmpty_3_4) {
  expect_span(0, 0, element_span(0, 8, 0, 8));
  expect_span(0, 0, element_span(0, -8, 16, 8));
  expect_span(0, 0, element_span(0, 8, 4, 100));
}

TEST(ElementSpan, NegativeCountOrEmptyTypeIsEmpty_3_4) {
  expect_span(0, 0, element_span(-1, 8, 0, 8));
  expect_span(0, 0, element_span(5, 0, 0, 0));
  expect_span(0, 0, element_span(5, 8, 0, 0));
}

TEST(ElementSpan, ContiguousElements_3_4) {
  expect_span(0, 8, element_span(1, 8, 0, 8));
  expect_span(0, 24, element_span(3, 8, 0, 8));
  expect_span(0, 1000, element_span(1000, 1, 0, 1));
}

// The true lower bound shifts the span; gaps between elements (extent >
// true extent) leave the tail after the last element's data out.
TEST(ElementSpan, TrueLowerBoundAndGaps_3_4) {
  expect_span(4, 12, element_span(1, 16, 4, 8));
  expect_span(4, 44, element_span(3, 16, 4, 8));  // last element at 36, data to 44
  expect_span(-4, 4, element_span(1, 8, -4, 8));
  expect_span(-4, 36, element_span(3, 16, -4, 8));  // last element at 28
}

// An extent smaller than the true extent (a resized type) overlaps elements.
TEST(ElementSpan, ExtentSmallerThanTrueExtent_3_4) {
  expect_span(0, 16, element_span(3, 4, 0, 8));
  expect_span(2, 18, element_span(3, 4, 2, 8));
}

// A negative extent walks down: elements at true_lb, true_lb - |extent|, ...
TEST(ElementSpan, NegativeExtent_3_4) {
  expect_span(-16, 8, element_span(3, -8, 0, 8));
  expect_span(0, 8, element_span(1, -8, 0, 8));
  expect_span(-12, 12, element_span(3, -8, 4, 8));
  expect_span(-30, 2, element_span(4, -10, 0, 2));
}

// Overflow saturates instead of wrapping: a span that large can never fit a
// window, and must not look small.
TEST(ElementSpan, OverflowSaturates_3_4) {
  ByteSpan s = element_span(kMax, 8, 0, 8);
  EXPECT_EQ(0, s.lo);
  EXPECT_EQ(kMax, s.hi);
  s = element_span(kMax / 2, 4, 0, 4);
  EXPECT_EQ(0, s.lo);
  EXPECT_EQ(kMax, s.hi);
  s = element_span(2, kMax - 4, 0, 8);  // the last offset fits, its end does not
  EXPECT_EQ(0, s.lo);
  EXPECT_EQ(kMax, s.hi);
  s = element_span(2, kMax, 0, 8);
  EXPECT_EQ(kMax, s.hi);
  s = element_span(3, 8, kMax - 8, 8);  // offsets themselves overflow
  EXPECT_EQ(kMax - 8, s.lo);
  EXPECT_EQ(kMax, s.hi);
  s = element_span(kMax, -8, 0, 8);
  EXPECT_EQ(kMin, s.lo);
  EXPECT_EQ(8, s.hi);
  s = element_span(3, -8, kMin + 4, 8);
  EXPECT_EQ(kMin, s.lo);
  EXPECT_LE(s.lo, s.hi);
}

TEST(SplitCount, SmallCountsAreNotSplit_3_8) {
  for (MPI_Count c : {MPI_Count{0}, MPI_Count{1}, MPI_Count{1000}, MPI_Count{INT_MAX}}) {
    const CountSplit s = split_count(c);
    EXPECT_EQ(0, s.blocks) << c;
    EXPECT_EQ(0, s.block_len) << c;
    EXPECT_EQ(c, s.remainder) << c;
  }
}

TEST(SplitCount, LargeCountsSplitIntoIntSizedBlocks_3_8) {
  const MPI_Count block = MPI_Count{1} << 30;
  CountSplit s = split_count(MPI_Count{INT_MAX} + 1);
  EXPECT_EQ(2, s.blocks);
  EXPECT_EQ(block, s.block_len);
  EXPECT_EQ(0, s.remainder);
  s = split_count((MPI_Count{1} << 31) + 5);
  EXPECT_EQ(2, s.blocks);
  EXPECT_EQ(5, s.remainder);
  s = split_count(5 * block + 7);
  EXPECT_EQ(5, s.blocks);
  EXPECT_EQ(block, s.block_len);
  EXPECT_EQ(7, s.remainder);
}

TEST(SplitCount, PiecesAddUpAndFitInInt_3_8) {
  for (MPI_Count c : {MPI_Count{INT_MAX} + 1, MPI_Count{INT_MAX} * 2 + 1, MPI_Count{3000000000},
                      MPI_Count{1} << 40, (MPI_Count{1} << 40) + 12345,
                      MPI_Count{INT_MAX} * MPI_Count{INT_MAX}}) {
    const CountSplit s = split_count(c);
    EXPECT_EQ(c, s.blocks * s.block_len + s.remainder) << c;
    EXPECT_GT(s.block_len, 0) << c;
    EXPECT_LE(s.block_len, INT_MAX) << c;
    EXPECT_GE(s.remainder, 0) << c;
    EXPECT_LT(s.remainder, s.block_len) << c;
  }
}

}  // namespace
