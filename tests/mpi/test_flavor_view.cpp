// What a program sees of its window's flavor, whatever the backend did with
// the memory underneath (the sm backend places MPI_Win_allocate memory in
// shared memory): SEMANTICS 3.9, 4.1.
#include <string>

#include "harness.hpp"

namespace {

using mpitest::Flavor;
using mpitest::TestWindow;

// The error class the host gives for MPI_Win_shared_query on an
// MPI_Win_allocate window it made itself (asked directly, collective).
int host_shared_query_class_on_allocate() {
  MPI_Win win = MPI_WIN_NULL;
  void *base = nullptr;
  PMPI_Win_allocate(16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  PMPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Aint size = 0;
  int disp_unit = 0;
  void *other = nullptr;
  const int rc = PMPI_Win_shared_query(win, 0, &size, &disp_unit, &other);
  PMPI_Win_free(&win);
  return mpitest::error_class(rc);
}

class FlavorView : public mpitest::FlavorTest {};

// MPI_WIN_CREATE_FLAVOR, MPI_WIN_SIZE and MPI_Win_shared_query answer as
// for a window of the flavor the program asked for.
TEST_P(FlavorView, AttributesAndSharedQueryMatchTheRequest_3_9) {
  TestWindow w(GetParam(), 48);
  int *flavor = nullptr;
  int flag = 0;
  EXPECT_MPI_OK(MPI_Win_get_attr(w.win(), MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
  ASSERT_EQ(1, flag);
  EXPECT_EQ(flavor_constant(GetParam()), *flavor);
  if (GetParam() != Flavor::dynamic) {
    MPI_Aint *size = nullptr;
    EXPECT_MPI_OK(MPI_Win_get_attr(w.win(), MPI_WIN_SIZE, &size, &flag));
    ASSERT_EQ(1, flag);
    EXPECT_EQ(48, *size);
  }
  MPI_Aint size = -1;
  int disp_unit = -1;
  void *base = nullptr;
  const int rc = MPI_Win_shared_query(w.win(), mpitest::rank(), &size, &disp_unit, &base);
  if (GetParam() == Flavor::shared) {
    EXPECT_MPI_OK(rc);
    EXPECT_EQ(48, size);
    EXPECT_EQ(w.base(), base);
  } else if (GetParam() == Flavor::allocate) {
    // Refused, as the host refuses a window of that flavor of its own: with
    // MPI_ERR_RMA_FLAVOR, or with the class the host itself gives.
    const int cls = mpitest::error_class(rc);
    EXPECT_TRUE(cls == MPI_ERR_RMA_FLAVOR || cls == host_shared_query_class_on_allocate())
        << mpitest::class_name(cls);
  }
}

// The host window itself (asked of the host, past the library's view) has
// the flavor the program asked for: a backend that made an MPI_Win_create
// window under MPI_Win_allocate changed plain RMA (Open MPI keeps pair-type
// accumulates atomic on one and not on the other). Only sm and ucx may
// make an MPI_Win_allocate window as MPI_Win_allocate_shared, and only
// when every rank shares the node (the host's shared-memory component
// then serves its plain RMA).
TEST_P(FlavorView, HostWindowHasTheRequestedFlavor_3_9) {
  TestWindow w(GetParam(), 48);
  int *flavor = nullptr;
  int flag = 0;
  EXPECT_MPI_OK(PMPI_Win_get_attr(w.win(), MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
  ASSERT_EQ(1, flag);
  const std::string backend = mpitest::backend_of(w.win());
  if (GetParam() == Flavor::allocate && *flavor == MPI_WIN_FLAVOR_SHARED) {
    EXPECT_TRUE(backend == "sm" || backend == "ucx") << "placed in shared memory by " << backend;
    MPI_Comm node = MPI_COMM_NULL;
    EXPECT_MPI_OK(
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int on_node = 0;
    MPI_Comm_size(node, &on_node);
    MPI_Comm_free(&node);
    EXPECT_EQ(mpitest::size(), on_node) << "placed in shared memory across nodes";
    return;
  }
  EXPECT_EQ(flavor_constant(GetParam()), *flavor) << "host flavor under backend " << backend;
}

// A notified put into a shared window is visible through the memory the
// host's MPI_Win_shared_query hands out, as plain stores of the target are
// to the origin (SEMANTICS 3.1 with 2.6).
TEST(FlavorViewShared, NotifiedPutVisibleThroughSharedQuery_3_1) {
  if (!mpitest::host_can_create(Flavor::shared)) GTEST_SKIP() << "no shared windows here";
  TestWindow w(Flavor::shared, 64);
  w.set_num_notify(1);
  const int me = mpitest::rank();
  const int right = (me + 1) % mpitest::size();
  const long long value = 1000 + me;
  MPI_Win_lock_all(0, w.win());
  EXPECT_MPI_OK(MPI_Put_notify(&value, 1, MPI_LONG_LONG, right, 8, 1, MPI_LONG_LONG, 0, w.win()));
  MPI_Win_flush_all(w.win());
  EXPECT_EQ(1, mpitest::wait_for_counter(w.win(), 0, 1));
  MPI_Aint size = 0;
  int disp_unit = 0;
  long long *mine = nullptr;
  EXPECT_MPI_OK(MPI_Win_shared_query(w.win(), me, &size, &disp_unit, &mine));
  EXPECT_EQ(1000 + (me + mpitest::size() - 1) % mpitest::size(), mine[1]);
  MPI_Win_unlock_all(w.win());
}

INSTANTIATE_TEST_SUITE_P(AllFlavors, FlavorView, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

}  // namespace
