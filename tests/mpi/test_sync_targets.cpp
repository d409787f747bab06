// SEMANTICS 3.9: synchronisation calls naming a target that is no rank of
// the window (MPI_PROC_NULL, or a rank outside the group), also while
// notified operations are outstanding: a flush does nothing for
// MPI_PROC_NULL and gets MPI_ERR_RANK otherwise, lock and unlock answer
// as on a window the library does not serve, and the window goes on
// working.
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

using mpitest::Flavor;
using mpitest::TestWindow;

class SyncTargets : public mpitest::FlavorTest {};

int error_class_of(int rc) { return mpitest::error_class(rc); }

// A window the library leaves to the host: the reference.
class DisabledInfo {
 public:
  DisabledInfo() {
    MPI_Info_create(&info_);
    MPI_Info_set(info_, MPINOTIFY_INFO_KEY_DISABLE, "true");
  }
  ~DisabledInfo() { MPI_Info_free(&info_); }
  DisabledInfo(const DisabledInfo &) = delete;
  DisabledInfo &operator=(const DisabledInfo &) = delete;
  MPI_Info get() const { return info_; }

 private:
  MPI_Info info_ = MPI_INFO_NULL;
};

// The classes that calls naming `rank` return on `win`: the flush family
// inside a lock_all epoch, lock and unlock outside any.
std::vector<int> flush_classes(MPI_Win win, int rank) {
  return {error_class_of(MPI_Win_flush(rank, win)), error_class_of(MPI_Win_flush_local(rank, win))};
}
std::vector<int> lock_classes(MPI_Win win, int rank) {
  const int lock = error_class_of(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
  return {lock, error_class_of(MPI_Win_unlock(rank, win))};
}

TEST_P(SyncTargets, ProcNullAndBadRanksWithNotificationsOutstanding_3_9) {
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int target = (me + 1) % n;
  const int origin = (me + n - 1) % n;
  TestWindow w(GetParam(), 64);
  w.set_num_notify(1);
  DisabledInfo disabled;
  TestWindow reference(GetParam(), 64, disabled.get());
  const std::vector<int> bad_ranks{n, n + 5, -7};

  // Notified puts in flight (not flushed) while the calls name no rank.
  const int value = 100 + me;
  EXPECT_MPI_OK(MPI_Win_lock_all(0, w.win()));
  EXPECT_MPI_OK(MPI_Win_lock_all(0, reference.win()));
  EXPECT_MPI_OK(
      MPI_Put_notify(&value, 1, MPI_INT, target, w.disp(target, 0), 1, MPI_INT, 0, w.win()));
  // The library answers flushes naming no rank itself on every window:
  // Open MPI 4.1's osc/rdma crashes there.
  const std::vector<int> nothing_to_do(2, MPI_SUCCESS);
  const std::vector<int> no_such_rank(2, MPI_ERR_RANK);
  EXPECT_EQ(nothing_to_do, flush_classes(reference.win(), MPI_PROC_NULL));
  EXPECT_EQ(nothing_to_do, flush_classes(w.win(), MPI_PROC_NULL));
  EXPECT_MPI_OK(MPI_Win_flush_all(w.win()));
  EXPECT_MPI_OK(
      MPI_Put_notify(&value, 1, MPI_INT, target, w.disp(target, 4), 1, MPI_INT, 0, w.win()));
  for (int bad : bad_ranks)
    EXPECT_EQ(flush_classes(reference.win(), bad), flush_classes(w.win(), bad)) << "rank " << bad;
  EXPECT_MPI_OK(MPI_Win_flush(target, w.win()));
  EXPECT_MPI_OK(MPI_Win_unlock_all(reference.win()));
  EXPECT_MPI_OK(MPI_Win_unlock_all(w.win()));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Count count = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 0, &count));
  EXPECT_EQ(2, count) << "notifications from rank " << origin << " on rank " << me;
  EXPECT_EQ(100 + origin, w.as<int>()[0]);
  EXPECT_EQ(100 + origin, w.as<int>()[1]);

  // Lock and unlock naming no rank, outside any epoch.
  EXPECT_EQ(lock_classes(reference.win(), MPI_PROC_NULL), lock_classes(w.win(), MPI_PROC_NULL));
  for (int bad : bad_ranks)
    EXPECT_EQ(lock_classes(reference.win(), bad), lock_classes(w.win(), bad)) << "rank " << bad;

  // The window still works: a lock epoch on the real target.
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w.win()));
  EXPECT_MPI_OK(
      MPI_Put_notify(&value, 1, MPI_INT, target, w.disp(target, 8), 1, MPI_INT, 0, w.win()));
  EXPECT_MPI_OK(MPI_Win_unlock(target, w.win()));
  EXPECT_EQ(3, mpitest::wait_for_counter(w.win(), 0, 3, 30.0))
      << "the window stopped delivering on rank " << me;
  EXPECT_EQ(100 + origin, w.as<int>()[2]);
  MPI_Barrier(MPI_COMM_WORLD);
}

INSTANTIATE_TEST_SUITE_P(AllFlavors, SyncTargets, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

}  // namespace
