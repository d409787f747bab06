// The hot path of MPI_Put_notify (osc_core/hot_path.hpp) takes the common
// case and hands everything else to the general path. These tests sit on
// the boundary between the two: calls the hot path accepts must move the
// data and make exactly one increment (SEMANTICS 3.1, 3.3), calls it
// declines must still succeed or fail as SEMANTICS 3.4 says, with nothing
// moved and nothing counted. Every rank puts to its right neighbour and
// checks what arrived from its left one.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "harness.hpp"

namespace {

using mpitest::Flavor;
using mpitest::TestWindow;

constexpr int kInts = 16;  // the window: 16 ints per rank
constexpr MPI_Aint kBytes = kInts * static_cast<MPI_Aint>(sizeof(int));

int right() { return (mpitest::rank() + 1) % mpitest::size(); }
int left() { return (mpitest::rank() + mpitest::size() - 1) % mpitest::size(); }

// A window of kInts ints per rank, filled with -1, one counter.
class HotPathTest : public mpitest::FlavorTest {
 protected:
  void SetUp() override {
    FlavorTest::SetUp();
    if (IsSkipped()) return;
    window_ = std::make_unique<TestWindow>(GetParam(), kBytes);
    window_->set_num_notify(1);
    for (int i = 0; i < kInts; ++i) window_->as<int>()[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  void TearDown() override { window_.reset(); }

  MPI_Win win() const { return window_->win(); }
  MPI_Aint disp(MPI_Aint offset) const { return window_->disp(right(), offset); }
  // This rank's counter, read after every rank's epoch closed.
  MPI_Count counter() const {
    MPI_Count value = -1;
    EXPECT_MPI_OK(MPI_Win_get_notify_value(win(), 0, &value));
    return value;
  }
  const int *mine() const { return window_->as<int>(); }

  std::unique_ptr<TestWindow> window_;
};

TEST_P(HotPathTest, APutFillingTheWholeWindowArrivesWithOneIncrement) {
  std::vector<int> data(kInts);
  for (int i = 0; i < kInts; ++i) data[static_cast<std::size_t>(i)] = mpitest::rank() * 100 + i;
  MPI_Win_lock_all(0, win());
  EXPECT_MPI_OK(
      MPI_Put_notify(data.data(), kInts, MPI_INT, right(), disp(0), kInts, MPI_INT, 0, win()));
  MPI_Win_unlock_all(win());
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(1, counter());
  for (int i = 0; i < kInts; ++i) EXPECT_EQ(left() * 100 + i, mine()[i]) << "int " << i;
}

TEST_P(HotPathTest, OneIntPastTheEndIsARangeErrorAndMovesNothing) {
  std::vector<int> data(kInts, 7);
  MPI_Win_lock_all(0, win());
  // The last int fits; one int further does not.
  EXPECT_MPI_OK(
      MPI_Put_notify(data.data(), 1, MPI_INT, right(), disp(kBytes - 4), 1, MPI_INT, 0, win()));
  EXPECT_MPI_CLASS(MPI_ERR_RMA_RANGE, MPI_Put_notify(data.data(), kInts, MPI_INT, right(), disp(4),
                                                     kInts, MPI_INT, 0, win()));
  EXPECT_MPI_CLASS(MPI_ERR_RMA_RANGE, MPI_Put_notify(data.data(), 1, MPI_INT, right(), disp(kBytes),
                                                     1, MPI_INT, 0, win()));
  MPI_Win_unlock_all(win());
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(1, counter());
  for (int i = 0; i < kInts - 1; ++i) EXPECT_EQ(-1, mine()[i]) << "int " << i;
  EXPECT_EQ(7, mine()[kInts - 1]);
}

TEST_P(HotPathTest, HugeDisplacementsAreRangeErrorsNotCrashes) {
  if (GetParam() == Flavor::dynamic)
    GTEST_SKIP() << "a dynamic window's displacement is an address";
  int value = 5;
  MPI_Win_lock_all(0, win());
  for (const MPI_Aint d : {MPI_Aint{1} << 40, (MPI_Aint{1} << 62) - 1, MPI_Aint{1} << 62,
                           std::numeric_limits<MPI_Aint>::max()}) {
    EXPECT_MPI_CLASS(MPI_ERR_RMA_RANGE,
                     MPI_Put_notify(&value, 1, MPI_INT, right(), d, 1, MPI_INT, 0, win()))
        << "disp " << d;
  }
  MPI_Win_unlock_all(win());
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(0, counter());
}

TEST_P(HotPathTest, AZeroCountPutAtTheEndStillIncrements) {
  int value = 5;
  MPI_Win_lock_all(0, win());
  EXPECT_MPI_OK(MPI_Put_notify(&value, 0, MPI_INT, right(), disp(kBytes), 0, MPI_INT, 0, win()));
  MPI_Win_unlock_all(win());
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(1, counter());  // SEMANTICS 3.3: a zero-count operation still increments
  for (int i = 0; i < kInts; ++i) EXPECT_EQ(-1, mine()[i]);
}

TEST_P(HotPathTest, BadIndexRankAndCountAreRefusedWithNothingMoved) {
  int value = 9;
  MPI_Win_lock_all(0, win());
  EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION,
                   MPI_Put_notify(&value, 1, MPI_INT, right(), disp(0), 1, MPI_INT, 1, win()));
  EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION,
                   MPI_Put_notify(&value, 1, MPI_INT, right(), disp(0), 1, MPI_INT, -1, win()));
  EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION, MPI_Put_notify(&value, 1, MPI_INT, right(), disp(0), 1,
                                                            MPI_INT, INT_MIN, win()));
  EXPECT_MPI_CLASS(MPI_ERR_RANK, MPI_Put_notify(&value, 1, MPI_INT, mpitest::size(), disp(0), 1,
                                                MPI_INT, 0, win()));
  EXPECT_MPI_CLASS(MPI_ERR_RANK,
                   MPI_Put_notify(&value, 1, MPI_INT, -5, disp(0), 1, MPI_INT, 0, win()));
  EXPECT_MPI_CLASS(MPI_ERR_COUNT,
                   MPI_Put_notify(&value, -1, MPI_INT, right(), disp(0), -1, MPI_INT, 0, win()));
  EXPECT_MPI_CLASS(MPI_ERR_COUNT, MPI_Put_notify_c(&value, MPI_Count{-1}, MPI_INT, right(), disp(0),
                                                   MPI_Count{-1}, MPI_INT, 0, win()));
  // MPI_PROC_NULL: success, and nothing anywhere.
  EXPECT_MPI_OK(MPI_Put_notify(&value, 1, MPI_INT, MPI_PROC_NULL, disp(0), 1, MPI_INT, 0, win()));
  MPI_Win_unlock_all(win());
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(0, counter());
  for (int i = 0; i < kInts; ++i) EXPECT_EQ(-1, mine()[i]);
}

TEST_P(HotPathTest, EveryEpochKindCoversAPutAndNoEpochIsASyncError) {
  int value = 3;
  // Outside any epoch.
  EXPECT_MPI_CLASS(MPI_ERR_RMA_SYNC,
                   MPI_Put_notify(&value, 1, MPI_INT, right(), disp(0), 1, MPI_INT, 0, win()));
  // A lock on the one target (not lock_all).
  MPI_Win_lock(MPI_LOCK_SHARED, right(), 0, win());
  EXPECT_MPI_OK(MPI_Put_notify(&value, 1, MPI_INT, right(), disp(0), 1, MPI_INT, 0, win()));
  MPI_Win_unlock(right(), win());
  // A fence epoch.
  value = 4;
  MPI_Win_fence(0, win());
  EXPECT_MPI_OK(MPI_Put_notify(&value, 1, MPI_INT, right(), disp(4), 1, MPI_INT, 0, win()));
  MPI_Win_fence(0, win());
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(2, counter());
  EXPECT_EQ(3, mine()[0]);
  EXPECT_EQ(4, mine()[1]);
}

TEST_P(HotPathTest, DifferentTypesOfOneSignatureTakeTheGeneralPath) {
  std::vector<int> data = {11, 12};
  MPI_Win_lock_all(0, win());
  // 8 bytes as MPI_BYTE into 2 MPI_INT, and 2 MPI_INT as 2 MPI_INT
  // described by a count of 1 of a contiguous type.
  EXPECT_MPI_OK(MPI_Put_notify(data.data(), 8, MPI_BYTE, right(), disp(0), 2, MPI_INT, 0, win()));
  MPI_Datatype pair = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  EXPECT_MPI_OK(MPI_Put_notify(data.data(), 1, pair, right(), disp(8), 1, pair, 0, win()));
  MPI_Win_unlock_all(win());
  MPI_Type_free(&pair);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(2, counter());
  EXPECT_EQ(11, mine()[0]);
  EXPECT_EQ(12, mine()[1]);
  EXPECT_EQ(11, mine()[2]);
  EXPECT_EQ(12, mine()[3]);
}

TEST_P(HotPathTest, AStreamOfPutsCountsEveryOne) {
  // Where ranks outnumber cores, MPICH's flushes, which wait for a target
  // that polls without yielding, take a scheduler slice each (a minute for
  // 10000 puts on pmpi at np 3 on 2 cores).
  const bool crowded = mpitest::size() > static_cast<int>(std::thread::hardware_concurrency());
  const int puts = crowded ? 1024 : 10000;  // whole passes over the window
  MPI_Win_lock_all(0, win());
  for (int i = 0; i < puts; ++i) {
    ASSERT_EQ(MPI_SUCCESS,
              MPI_Put_notify(&i, 1, MPI_INT, right(), disp((i % kInts) * 4), 1, MPI_INT, 0, win()));
    // Two puts to one place with no flush between conflict (MPI leaves
    // the result undefined): a flush after each pass over the window.
    if (i % kInts == kInts - 1) MPI_Win_flush(right(), win());
  }
  MPI_Win_unlock_all(win());
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(puts, counter());
  for (int i = 0; i < kInts; ++i) EXPECT_EQ(puts - kInts + i, mine()[i]) << "int " << i;
}

// The sm backend copies up to 16 bytes without memmove (two overlapping
// words): every small size at every offset moves exactly its bytes. Each
// case has a stretch of its own in one window, so that all of them go in
// one epoch (a barrier per case costs milliseconds where ranks outnumber
// cores).
TEST_P(HotPathTest, EverySmallSizeAtEveryOffsetMovesExactlyItsBytes_3_1) {
  constexpr int kLargest = 24;
  constexpr int kOffsets = 8;
  constexpr MPI_Aint kStretch = 40;  // above kOffsets - 1 + kLargest
  constexpr int kCases = kLargest * kOffsets;
  constexpr unsigned char kUntouched = 0xEE;
  TestWindow cases(GetParam(), kCases * kStretch);
  cases.set_num_notify(1);
  auto *bytes = cases.as<unsigned char>();
  std::fill(bytes, bytes + kCases * kStretch, kUntouched);
  std::vector<unsigned char> source(kLargest);
  for (int i = 0; i < kLargest; ++i)
    source[static_cast<std::size_t>(i)] = static_cast<unsigned char>(mpitest::rank() * 31 + i);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, cases.win());
  for (int size = 1; size <= kLargest; ++size) {
    for (int offset = 0; offset < kOffsets; ++offset) {
      const MPI_Aint at = ((size - 1) * kOffsets + offset) * kStretch + offset;
      EXPECT_MPI_OK(MPI_Put_notify(source.data(), size, MPI_BYTE, right(), cases.disp(right(), at),
                                   size, MPI_BYTE, 0, cases.win()));
    }
  }
  MPI_Win_unlock_all(cases.win());
  MPI_Barrier(MPI_COMM_WORLD);
  int wrong = 0;  // the first wrong byte is reported, then counted
  for (int size = 1; size <= kLargest; ++size) {
    for (int offset = 0; offset < kOffsets; ++offset) {
      const unsigned char *stretch = bytes + ((size - 1) * kOffsets + offset) * kStretch;
      for (int i = 0; i < kStretch; ++i) {
        const bool inside = i >= offset && i < offset + size;
        const auto expected =
            inside ? static_cast<unsigned char>(left() * 31 + i - offset) : kUntouched;
        if (stretch[i] != expected && wrong++ == 0)
          ADD_FAILURE() << "byte " << i << " is " << int{stretch[i]} << ", not " << int{expected}
                        << ", after " << size << " bytes at offset " << offset;
      }
    }
  }
  EXPECT_EQ(0, wrong) << "bytes wrong in all";
  MPI_Count counted = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(cases.win(), 0, &counted));
  EXPECT_EQ(kCases, counted);
}

INSTANTIATE_TEST_SUITE_P(Flavors, HotPathTest, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

// A displacement unit above 1: the range check scales by the target's unit.
class HotPathUnitTest : public mpitest::AllocateTest {};

TEST_F(HotPathUnitTest, TheDisplacementUnitScalesTheRangeCheck) {
  constexpr int kDoubles = 8;
  double *base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  ASSERT_EQ(MPI_SUCCESS,
            MPI_Win_allocate(kDoubles * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  EXPECT_MPI_OK(MPI_Win_set_num_notify(win, MPI_INFO_NULL, 1));
  for (int i = 0; i < kDoubles; ++i) base[i] = -1.0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double value = 2.5;
  MPI_Win_lock_all(0, win);
  EXPECT_MPI_OK(
      MPI_Put_notify(&value, 1, MPI_DOUBLE, right(), kDoubles - 1, 1, MPI_DOUBLE, 0, win));
  EXPECT_MPI_CLASS(MPI_ERR_RMA_RANGE,
                   MPI_Put_notify(&value, 1, MPI_DOUBLE, right(), kDoubles, 1, MPI_DOUBLE, 0, win));
  EXPECT_MPI_CLASS(MPI_ERR_RMA_RANGE, MPI_Put_notify(&value, 2, MPI_DOUBLE, right(), kDoubles - 1,
                                                     2, MPI_DOUBLE, 0, win));
  // disp * disp_unit overflows MPI_Aint.
  EXPECT_MPI_CLASS(MPI_ERR_RMA_RANGE, MPI_Put_notify(&value, 1, MPI_DOUBLE, right(),
                                                     MPI_Aint{1} << 61, 1, MPI_DOUBLE, 0, win));
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Count count = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(win, 0, &count));
  EXPECT_EQ(1, count);
  for (int i = 0; i < kDoubles - 1; ++i) EXPECT_EQ(-1.0, base[i]);
  EXPECT_EQ(2.5, base[kDoubles - 1]);
  MPI_Win_free(&win);
}

}  // namespace
