// Choosing the backend per window with the creation info key
// "mpinotify_backend" (SEMANTICS 4.4, 5.4).
#include "harness.hpp"

namespace {

using mpitest::Flavor;

// A communicator whose errors return, for creation errors.
struct ReturningWorld {
  MPI_Comm comm = MPI_COMM_NULL;
  ReturningWorld() {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  }
  ~ReturningWorld() { MPI_Comm_free(&comm); }
};

int create_with_backend(const char *backend, MPI_Comm comm, MPI_Win *win) {
  MPI_Info info = MPI_INFO_NULL;
  if (backend != nullptr) {
    MPI_Info_create(&info);
    MPI_Info_set(info, MPINOTIFY_INFO_KEY_BACKEND, backend);
  }
  char *base = nullptr;
  const int rc = MPI_Win_allocate(64, 1, info, comm, &base, win);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  return rc;
}

// The portable backend serves any window when asked for, whatever
// MPINOTIFY_BACKEND says, and the window works.
TEST(BackendChoice, InfoKeyChoosesTheBackend_5_4) {
  ReturningWorld world;
  MPI_Win win = MPI_WIN_NULL;
  EXPECT_MPI_OK(create_with_backend("pmpi", world.comm, &win));
  ASSERT_TRUE(mpitest::all_ranks(win != MPI_WIN_NULL));
  EXPECT_EQ("pmpi", mpitest::backend_of(win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  EXPECT_MPI_OK(MPI_Win_set_num_notify(win, MPI_INFO_NULL, 1));
  MPI_Win_lock_all(0, win);
  EXPECT_MPI_OK(MPI_Put_notify(nullptr, 0, MPI_BYTE, (mpitest::rank() + 1) % mpitest::size(), 0, 0,
                               MPI_BYTE, 0, win));
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(1, mpitest::wait_for_counter(win, 0, 1));
  EXPECT_MPI_OK(MPI_Win_free(&win));
}

// A name no backend has, given by one rank only: creation fails on every
// rank with MPI_ERR_INFO and makes no window.
TEST(BackendChoice, UnknownNameOnOneRankFailsEverywhere_5_4) {
  ReturningWorld world;
  MPI_Win win = MPI_WIN_NULL;
  const bool asks = mpitest::rank() == mpitest::size() - 1;
  EXPECT_MPI_CLASS(MPI_ERR_INFO,
                   create_with_backend(asks ? "no-such-backend" : nullptr, world.comm, &win));
  EXPECT_EQ(MPI_WIN_NULL, win);
}

}  // namespace
