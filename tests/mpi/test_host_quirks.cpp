// Host MPI defects the library shields programs from.
#include "harness.hpp"

namespace {

class HostQuirks : public mpitest::AllocateTest {};

// MPICH 4.0.2 places other ranks' memory wrongly in MPI_Win_allocate
// windows whose per-rank size is not a multiple of 16 bytes; the library
// pads the host allocation. Data must land right, MPI_WIN_SIZE must still
// say what was asked for, and the range check must use that size (3.4, 3.9).
TEST_F(HostQuirks, AllocateWindowsOfOddSizesAddressTheRightRank_3_9) {
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  for (const MPI_Aint bytes : {4, 8, 12, 20, 24, 40, 64}) {
    char *base = nullptr;
    MPI_Win win = MPI_WIN_NULL;
    ASSERT_EQ(MPI_SUCCESS, MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Aint *size_attr = nullptr;
    int flag = 0;
    EXPECT_MPI_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &size_attr, &flag));
    EXPECT_EQ(1, flag);
    if (flag != 0) {
      EXPECT_EQ(bytes, *size_attr);
    }
    for (MPI_Aint i = 0; i < bytes; ++i) base[i] = -1;
    EXPECT_MPI_OK(MPI_Win_set_num_notify(win, MPI_INFO_NULL, 1));
    const char plain = static_cast<char>(me);
    const char notified = static_cast<char>(me + 100);
    MPI_Win_lock_all(0, win);
    EXPECT_MPI_OK(MPI_Put(&plain, 1, MPI_CHAR, right, 0, 1, MPI_CHAR, win));
    EXPECT_MPI_OK(MPI_Put_notify(&notified, 1, MPI_CHAR, right, bytes - 1, 1, MPI_CHAR, 0, win));
    EXPECT_MPI_CLASS(MPI_ERR_RMA_RANGE,
                     MPI_Put_notify(&notified, 1, MPI_CHAR, right, bytes, 1, MPI_CHAR, 0, win));
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_EQ(1, mpitest::wait_for_counter(win, 0, 1)) << bytes << " bytes";
    if (bytes > 1) {
      EXPECT_EQ(static_cast<char>(left), base[0]) << bytes << " bytes";
    }
    EXPECT_EQ(static_cast<char>(left + 100), base[bytes - 1]) << bytes << " bytes";
    EXPECT_MPI_OK(MPI_Win_free(&win));
  }
}

}  // namespace
