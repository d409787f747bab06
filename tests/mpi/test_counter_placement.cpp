// Counters and window memory never overlap (SEMANTICS 2.2, 3.1), wherever
// a backend keeps the counters: sm places an MPI_Win_allocate window's
// first counters right after each rank's memory in the host's allocation,
// and moves them to a segment of their own when they grow. Ranks ask for
// different, odd sizes (some none), every rank fills its memory with a
// pattern, and notified puts land on the last byte of each neighbour's
// memory: every counter must count exactly its own operations and every
// other byte must keep the pattern, before and after a growth.
#include <memory>
#include <vector>

#include "harness.hpp"

namespace {

using mpitest::Flavor;
using mpitest::TestWindow;

// Bytes of `rank`'s window: none, one, or sizes that end off a cache line.
MPI_Aint bytes_of(int rank) {
  constexpr MPI_Aint kSizes[] = {100, 1, 0, 4095, 63};
  return kSizes[rank % 5];
}

char pattern(int rank, MPI_Aint offset) { return static_cast<char>(rank * 31 + offset % 97); }

int right() { return (mpitest::rank() + 1) % mpitest::size(); }
int left() { return (mpitest::rank() + mpitest::size() - 1) % mpitest::size(); }

class CounterPlacementTest : public mpitest::FlavorTest {
 protected:
  void SetUp() override {
    FlavorTest::SetUp();
    if (IsSkipped()) return;
    window_ = std::make_unique<TestWindow>(GetParam(), bytes_of(mpitest::rank()));
    for (MPI_Aint i = 0; i < bytes_of(mpitest::rank()); ++i)
      window_->base()[i] = pattern(mpitest::rank(), i);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  void TearDown() override { window_.reset(); }

  // Counter k of `counters` gets k + 1 one-byte notified puts from the
  // left neighbour, on the last byte of this rank's memory, or, where this
  // rank has none, k + 1 notified gets of that byte from the right
  // neighbour. Then every rank checks its counters and its memory.
  void notify_and_check(int first, int counters) {
    const MPI_Win win = window_->win();
    const MPI_Aint target_bytes = bytes_of(right());
    const char mark = static_cast<char>(-1 - mpitest::rank());
    char landed = 0;
    MPI_Win_lock_all(0, win);
    for (int k = first; k < first + counters; ++k) {
      for (int n = 0; n <= k - first; ++n) {
        if (target_bytes > 0) {
          EXPECT_MPI_OK(MPI_Put_notify(&mark, 1, MPI_CHAR, right(),
                                       window_->disp(right(), target_bytes - 1), 1, MPI_CHAR, k,
                                       win));
        } else {
          EXPECT_MPI_OK(MPI_Get_notify(&landed, 0, MPI_CHAR, right(), window_->disp(right(), 0), 0,
                                       MPI_CHAR, k, win));
        }
      }
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = first; k < first + counters; ++k) {
      MPI_Count value = -1;
      EXPECT_MPI_OK(MPI_Win_get_notify_value(win, k, &value));
      EXPECT_EQ(k - first + 1, value) << "counter " << k;
    }
    const MPI_Aint mine = bytes_of(mpitest::rank());
    for (MPI_Aint i = 0; i < mine; ++i) {
      const char expected =
          i == mine - 1 ? static_cast<char>(-1 - left()) : pattern(mpitest::rank(), i);
      if (window_->base()[i] != expected) {
        ADD_FAILURE() << "byte " << i << " of " << mine << " changed";
        break;
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }

  std::unique_ptr<TestWindow> window_;
};

TEST_P(CounterPlacementTest, CountersAndMemoryStayApartBeforeAndAfterAGrowth) {
  const MPI_Win win = window_->win();
  // The size the program asked for, whatever the host allocated.
  MPI_Aint *size = nullptr;
  int flag = 0;
  EXPECT_MPI_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag));
  if (GetParam() != Flavor::dynamic) {
    ASSERT_TRUE(flag != 0 && size != nullptr);
    EXPECT_EQ(bytes_of(mpitest::rank()), *size);
  }
  // Within the creation's reservation (16 counters by default) ...
  window_->set_num_notify(16);
  notify_and_check(0, 16);
  // ... and grown past it: the counters move, the memory stays.
  window_->set_num_notify(300);
  notify_and_check(284, 16);
}

INSTANTIATE_TEST_SUITE_P(Flavors, CounterPlacementTest, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

}  // namespace
