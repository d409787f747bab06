// SEMANTICS 3.4 on dynamic windows, every backend: a target range that
// leaves the memory the target attached (past the end of a region, before
// it, in memory never attached, in memory detached since) is
// MPI_ERR_RMA_RANGE, and nothing is written (guard bytes around the region
// are compared on the target) and no counter moves; ranges inside attached
// memory work, also right after an attach. A failed attach (injected with
// MPINOTIFY_FAULT=attach) is an MPI error, and attaches nothing.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

constexpr std::size_t kGuard = 64;   // bytes of guard on each side
constexpr std::size_t kRegion = 64;  // bytes attached: 8 int64 elements
constexpr unsigned char kGuardByte = 0x5A;

int right() { return (mpitest::rank() + 1) % mpitest::size(); }
int left() { return (mpitest::rank() + mpitest::size() - 1) % mpitest::size(); }

class DynamicRanges : public testing::Test {
 protected:
  void SetUp() override {
    if (!mpitest::host_can_create(mpitest::Flavor::dynamic))
      GTEST_SKIP() << "the host MPI cannot create dynamic windows with this many processes";
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win_);
    MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN);
    EXPECT_MPI_OK(MPI_Win_set_num_notify(win_, MPI_INFO_NULL, 1));
    memory_.assign(kGuard + kRegion + kGuard, kGuardByte);
    std::memset(region(), 0, kRegion);
  }
  void TearDown() override {
    if (win_ != MPI_WIN_NULL) MPI_Win_free(&win_);
  }

  char *region() { return memory_.data() + kGuard; }
  // Collective: attaches the region; returns the right neighbour's address.
  MPI_Aint attach() {
    EXPECT_MPI_OK(MPI_Win_attach(win_, region(), kRegion));
    return exchange_address();
  }
  MPI_Aint exchange_address() {
    MPI_Aint mine = 0;
    MPI_Get_address(region(), &mine);
    MPI_Aint theirs = 0;
    MPI_Sendrecv(&mine, 1, MPI_AINT, left(), 9, &theirs, 1, MPI_AINT, right(), 9, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    return theirs;
  }
  // On this rank (the right neighbour's target): the guard bytes are
  // untouched and counter 0 reads `expected`.
  void expect_guards_and_counter(MPI_Count expected, const std::string &when) {
    int changed = 0;
    for (std::size_t i = 0; i < kGuard; ++i) {
      changed += static_cast<unsigned char>(memory_[i]) != kGuardByte;
      changed += static_cast<unsigned char>(memory_[kGuard + kRegion + i]) != kGuardByte;
    }
    EXPECT_EQ(0, changed) << when << ": guard bytes of rank " << mpitest::rank() << " written";
    MPI_Count v = -1;
    EXPECT_MPI_OK(MPI_Win_get_notify_value(win_, 0, &v));
    EXPECT_EQ(expected, v) << when << ": counter of rank " << mpitest::rank();
  }

  MPI_Win win_ = MPI_WIN_NULL;
  std::vector<char> memory_;
};

// SEMANTICS 3.4: each way out of the attached region is refused, with
// every kind of operation; one inside is not.
TEST_F(DynamicRanges, OutsideAttachedMemoryIsRefused_3_4) {
  const MPI_Aint at = attach();
  const int t = right();
  const MPI_Datatype i64 = MPI_INT64_T;
  std::int64_t buf[4] = {7, 7, 7, 7};
  std::int64_t res[4] = {0, 0, 0, 0};
  MPI_Request r = MPI_REQUEST_NULL;
  const MPI_Aint last = at + static_cast<MPI_Aint>(kRegion) - 8;  // the last element
  MPI_Win_lock_all(0, win_);
  struct Case {
    const char *what;
    int rc;
  };
  const Case cases[] = {
      {"2 elements at the last", MPI_Put_notify(buf, 2, i64, t, last, 2, i64, 0, win_)},
      {"1 element past the end", MPI_Put_notify(buf, 1, i64, t, last + 8, 1, i64, 0, win_)},
      {"1 element before the start", MPI_Put_notify(buf, 1, i64, t, at - 8, 1, i64, 0, win_)},
      {"straddling the start", MPI_Put_notify(buf, 2, i64, t, at - 8, 2, i64, 0, win_)},
      {"far away", MPI_Put_notify(buf, 1, i64, t, at + (1 << 20), 1, i64, 0, win_)},
      {"get past the end", MPI_Get_notify(res, 2, i64, t, last, 2, i64, 0, win_)},
      {"accumulate past the end",
       MPI_Accumulate_notify(buf, 2, i64, t, last, 2, i64, MPI_SUM, 0, win_)},
      {"get_accumulate past the end",
       MPI_Get_accumulate_notify(buf, 2, i64, res, 2, i64, t, last, 2, i64, MPI_SUM, 0, win_)},
      {"rput past the end", MPI_Rput_notify(buf, 2, i64, t, last, 2, i64, 0, win_, &r)},
      {"_c put past the end", MPI_Put_notify_c(buf, 2, i64, t, last, 2, i64, 0, win_)},
  };
  for (const Case &c : cases) EXPECT_MPI_CLASS(MPI_ERR_RMA_RANGE, c.rc) << c.what;
  EXPECT_EQ(MPI_REQUEST_NULL, r);
  for (const std::int64_t v : res) EXPECT_EQ(0, v) << "a refused get wrote its buffer";
  // Inside: the whole region, and a zero-count operation anywhere.
  std::int64_t whole[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_MPI_OK(MPI_Put_notify(whole, 8, i64, t, at, 8, i64, 0, win_));
  EXPECT_MPI_OK(MPI_Put_notify(buf, 0, i64, t, at + (1 << 20), 0, i64, 0, win_));
  MPI_Win_unlock_all(win_);
  MPI_Barrier(MPI_COMM_WORLD);
  expect_guards_and_counter(2, "after refused and accepted operations");
  const auto *mine = reinterpret_cast<const std::int64_t *>(region());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(i + 1, mine[i]) << "element " << i;
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_MPI_OK(MPI_Win_detach(win_, region()));
}

// SEMANTICS 3.4: memory attached after an origin's first check is found;
// memory detached since is refused (also inside one epoch), and found
// again once attached anew.
TEST_F(DynamicRanges, AttachAndDetachChangeWhatIsInRange_3_4) {
  const int t = right();
  std::int64_t one = 1;
  const MPI_Aint at = exchange_address();
  MPI_Win_lock_all(0, win_);
  EXPECT_MPI_CLASS(MPI_ERR_RMA_RANGE,
                   MPI_Put_notify(&one, 1, MPI_INT64_T, t, at, 1, MPI_INT64_T, 0, win_))
      << "before the target attached anything";
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_MPI_OK(MPI_Win_attach(win_, region(), kRegion));
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_MPI_OK(MPI_Put_notify(&one, 1, MPI_INT64_T, t, at, 1, MPI_INT64_T, 0, win_));
  EXPECT_MPI_OK(MPI_Win_flush(t, win_));
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_MPI_OK(MPI_Win_detach(win_, region()));
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_MPI_CLASS(MPI_ERR_RMA_RANGE,
                   MPI_Put_notify(&one, 1, MPI_INT64_T, t, at, 1, MPI_INT64_T, 0, win_))
      << "after the target detached it";
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_MPI_OK(MPI_Win_attach(win_, region(), kRegion));
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_MPI_OK(MPI_Put_notify(&one, 1, MPI_INT64_T, t, at, 1, MPI_INT64_T, 0, win_));
  MPI_Win_unlock_all(win_);
  MPI_Barrier(MPI_COMM_WORLD);
  expect_guards_and_counter(2, "after attach, detach and attach");
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_MPI_OK(MPI_Win_detach(win_, region()));
}

// SEMANTICS 3.4: an origin's check reads the target's list of attached
// memory, and reads it again after every detach it hears of; a target that
// keeps attaching and detaching other memory meanwhile (the message
// exchange exposes and withdraws payloads this way) must not make a valid
// operation fail because the list changed during a read. Rank 0 attaches
// and detaches a scratch buffer after every put that lands until every
// other rank has put (and flushed) kPuts values into rank 0's region; every
// put must succeed, and rank 0 count them all.
TEST_F(DynamicRanges, PutsSucceedWhileTheTargetKeepsAttaching_3_4) {
  constexpr int kPuts = 200;
  const int me = mpitest::rank();
  const int n = mpitest::size();
  if (n < 2) GTEST_SKIP() << "needs an origin besides the target";
  EXPECT_MPI_OK(MPI_Win_attach(win_, region(), kRegion));
  MPI_Aint at = 0;
  MPI_Get_address(region(), &at);
  MPI_Bcast(&at, 1, MPI_AINT, 0, MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win_);
  MPI_Request origins_done = MPI_REQUEST_NULL;
  if (me == 0) {
    std::vector<char> scratch(4096);
    MPI_Ibarrier(MPI_COMM_WORLD, &origins_done);
    int done = 0;
    int detaches = 0;
    MPI_Count before = 0;
    while (done == 0) {
      EXPECT_MPI_OK(MPI_Win_attach(win_, scratch.data(), static_cast<MPI_Aint>(scratch.size())));
      EXPECT_MPI_OK(MPI_Win_detach(win_, scratch.data()));
      ++detaches;
      // The next change once a put landed: a target that never paused would
      // starve readers until MPINOTIFY_PEER_TIMEOUT, a limit of the library
      // (every read of a list that keeps changing is read again).
      MPI_Count now = before;
      while (now == before && done == 0) {
        EXPECT_MPI_OK(MPI_Win_get_notify_value(win_, 0, &now));
        MPI_Test(&origins_done, &done, MPI_STATUS_IGNORE);
      }
      before = now;
    }
    MPI_Count seen = -1;
    EXPECT_MPI_OK(MPI_Win_get_notify_value(win_, 0, &seen));
    EXPECT_EQ(static_cast<MPI_Count>(kPuts) * (n - 1), seen)
        << "puts counted on rank 0, which detached " << detaches << " times meanwhile";
  } else {
    int failed = 0;
    int first_error = MPI_SUCCESS;
    for (int i = 0; i < kPuts; ++i) {
      const std::int64_t value = me * 1000 + i;
      int rc =
          MPI_Put_notify(&value, 1, MPI_INT64_T, 0, at + 8 * (me % 8), 1, MPI_INT64_T, 0, win_);
      if (rc == MPI_SUCCESS) rc = MPI_Win_flush(0, win_);
      if (rc != MPI_SUCCESS && failed++ == 0) first_error = rc;
    }
    int first_class = MPI_SUCCESS;
    MPI_Error_class(first_error, &first_class);
    EXPECT_EQ(0, failed) << "puts refused while rank 0 attached and detached, the first with "
                         << mpitest::class_name(first_class);
    MPI_Ibarrier(MPI_COMM_WORLD, &origins_done);
    MPI_Wait(&origins_done, MPI_STATUS_IGNORE);
  }
  MPI_Win_unlock_all(win_);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_MPI_OK(MPI_Win_detach(win_, region()));
}

// SEMANTICS 6.1: with MPINOTIFY_FAULT=attach (a ctest run of its own), the
// library's part of MPI_Win_attach fails: the program gets MPI_ERR_NO_MEM
// through the window's handler, not an abort, and nothing is attached.
TEST_F(DynamicRanges, FailedAttachIsAnErrorAndAttachesNothing_6_1) {
  const char *faults = std::getenv("MPINOTIFY_FAULT");
  if (faults == nullptr || std::string(faults).find("attach") == std::string::npos)
    GTEST_SKIP() << "run with MPINOTIFY_FAULT=attach";
  EXPECT_MPI_CLASS(MPI_ERR_NO_MEM, MPI_Win_attach(win_, region(), kRegion));
  const MPI_Aint at = exchange_address();
  std::int64_t one = 1;
  MPI_Win_lock_all(0, win_);
  EXPECT_MPI_CLASS(MPI_ERR_RMA_RANGE,
                   MPI_Put_notify(&one, 1, MPI_INT64_T, right(), at, 1, MPI_INT64_T, 0, win_));
  MPI_Win_unlock_all(win_);
  MPI_Barrier(MPI_COMM_WORLD);
  expect_guards_and_counter(0, "after a failed attach");
}

}  // namespace
