// Dynamic windows whose memory changes while notified operations target
// it (SEMANTICS 3.1 on MPI_Win_create_dynamic windows): memory attached
// after the first operation, memory detached and replaced inside one
// epoch, and in a later one. Each rank targets its right neighbour; the
// addresses travel by MPI_Sendrecv, as a program would send them.
#include <cstdint>
#include <memory>
#include <vector>

#include "harness.hpp"

namespace {

constexpr std::size_t kWords = 4096;  // 32 KiB per buffer
constexpr double kDeadlineSeconds = 60.0;

int right() { return (mpitest::rank() + 1) % mpitest::size(); }
int left() { return (mpitest::rank() + mpitest::size() - 1) % mpitest::size(); }

// What `origin` puts in `round`, word i.
std::uint64_t word(int origin, int round, std::size_t i) {
  return (static_cast<std::uint64_t>(origin) << 48) ^ (static_cast<std::uint64_t>(round) << 32) ^ i;
}

// A dynamic window with one counter; buffers come and go.
class DynamicWindow {
 public:
  DynamicWindow() {
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win_);
    MPI_Win_set_num_notify(win_, MPI_INFO_NULL, 1);
  }
  ~DynamicWindow() { MPI_Win_free(&win_); }
  DynamicWindow(const DynamicWindow &) = delete;
  DynamicWindow &operator=(const DynamicWindow &) = delete;
  MPI_Win win() const { return win_; }

  // Collective: attaches a fresh buffer here; returns the right
  // neighbour's new buffer address (the left neighbour learns this one's).
  MPI_Aint attach_fresh() {
    buffer_ = std::make_unique<std::vector<std::uint64_t>>(kWords, 0);
    EXPECT_MPI_OK(MPI_Win_attach(win_, buffer_->data(), sizeof(std::uint64_t) * kWords));
    MPI_Aint mine = 0;
    MPI_Get_address(buffer_->data(), &mine);
    MPI_Aint theirs = 0;
    MPI_Sendrecv(&mine, 1, MPI_AINT, left(), 5, &theirs, 1, MPI_AINT, right(), 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    return theirs;
  }
  // Collective: detaches and frees this rank's buffer (after everyone is
  // done with it).
  void detach() {
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_MPI_OK(MPI_Win_detach(win_, buffer_->data()));
    buffer_.reset();
  }
  // Puts round `round` into the right neighbour's buffer at `address`,
  // waits for the left neighbour's put, checks it (on this rank, which knows
  // what arrived).
  void exchange(MPI_Aint address, int round, MPI_Count expected_count) {
    std::vector<std::uint64_t> out(kWords);
    for (std::size_t i = 0; i < kWords; ++i) out[i] = word(mpitest::rank(), round, i);
    EXPECT_MPI_OK(MPI_Put_notify(out.data(), static_cast<int>(kWords), MPI_UINT64_T, right(),
                                 address, static_cast<int>(kWords), MPI_UINT64_T, 0, win_));
    EXPECT_MPI_OK(MPI_Win_flush(right(), win_));
    EXPECT_EQ(expected_count, mpitest::wait_for_counter(win_, 0, expected_count, kDeadlineSeconds))
        << "round " << round << ": no notification from rank " << left();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < kWords; ++i) wrong += (*buffer_)[i] != word(left(), round, i);
    EXPECT_EQ(0U, wrong) << "words wrong in round " << round << " from rank " << left();
    MPI_Barrier(MPI_COMM_WORLD);
  }

 private:
  MPI_Win win_ = MPI_WIN_NULL;
  std::unique_ptr<std::vector<std::uint64_t>> buffer_;
};

// SEMANTICS 3.1: a target's memory attached after an origin's first
// operation on the window, then memory detached and replaced in the same
// epoch (the replacement often reuses the old address), then in a new one:
// every notified put lands in the memory attached at the time.
TEST(DynamicWindows, MemoryChangesUnderNotifiedPuts_3_1) {
  if (!mpitest::host_can_create(mpitest::Flavor::dynamic))
    GTEST_SKIP() << "the host MPI cannot create dynamic windows with this many processes";
  DynamicWindow w;
  MPI_Win_lock_all(0, w.win());
  MPI_Aint target = w.attach_fresh();
  w.exchange(target, 1, 1);
  // Inside the same epoch: detach, free, attach a new buffer.
  w.detach();
  target = w.attach_fresh();
  w.exchange(target, 2, 2);
  MPI_Win_unlock_all(w.win());
  // A new epoch after another replacement.
  w.detach();
  target = w.attach_fresh();
  MPI_Win_lock_all(0, w.win());
  w.exchange(target, 3, 3);
  MPI_Win_unlock_all(w.win());
  w.detach();
}

}  // namespace
