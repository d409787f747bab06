// Where the MPI runs on PMIx (Open MPI's mpirun), the ucx and ofi backends
// read a peer's address from the process manager's store on first use,
// by the peer's MPI_COMM_WORLD rank, instead of exchanging every member's
// address per group (osc_base/process_directory.hpp). A group uses the
// store after one allreduce that says every member published there, and
// any group without one once MPI_COMM_WORLD said so; where some member
// did not publish (conformance.address_directory_fault:
// MPINOTIFY_FAULT=directory:ucx@1, directory:ofi@1), or under MPICH, the
// group exchanges addresses. Under Open MPI's mpirun,
// conformance.address_directory makes every exchange fail
// (MPINOTIFY_FAULT=exchange:ucx, exchange:ofi): there the windows below
// are served only if the store serves them. Either way each window must reach the
// process its rank names: the groups below number their members unlike
// MPI_COMM_WORLD, so an address looked up by the window rank instead of
// the world rank lands the put on another process, whose check fails.
#include <memory>

#include "harness.hpp"

namespace {

using mpitest::Flavor;
using mpitest::TestWindow;

class AddressDirectory : public mpitest::AllocateTest {};

// Over `comm`: a put naming the origin's world rank and a notification to
// the comm's right neighbour; each rank checks that its left neighbour's
// world rank arrived, with one notification.
void ring_round(MPI_Comm comm, std::int64_t tag) {
  int me = 0;
  int n = 0;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  std::vector<int> world_of(static_cast<std::size_t>(n));
  const int world_me = mpitest::rank();
  MPI_Allgather(&world_me, 1, MPI_INT, world_of.data(), 1, MPI_INT, comm);

  TestWindow w(Flavor::allocate, 8, MPI_INFO_NULL, comm);
  w.set_num_notify(1);
  const std::int64_t value = tag + world_me;
  MPI_Win_lock_all(0, w.win());
  EXPECT_MPI_OK(
      MPI_Put_notify(&value, 1, MPI_INT64_T, right, w.disp(right, 0), 1, MPI_INT64_T, 0, w.win()));
  MPI_Win_unlock_all(w.win());
  EXPECT_EQ(1, mpitest::wait_for_counter(w.win(), 0, 1));
  MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w.win());
  EXPECT_EQ(tag + world_of[static_cast<std::size_t>(left)], *w.as<std::int64_t>())
      << "comm rank " << me << " of " << n;
  MPI_Win_unlock(me, w.win());
  MPI_Barrier(comm);
}

TEST_F(AddressDirectory, EveryGroupReachesTheProcessItsRankNames) {
  const int me = mpitest::rank();
  const int n = mpitest::size();
  // Numbered backwards: comm rank r is world rank n-1-r.
  MPI_Comm reversed = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, 0, n - me, &reversed);
  // Halves, each numbered backwards too (the first group to use the store
  // here is one smaller than MPI_COMM_WORLD: it agrees by its allreduce).
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, n - me, &half);

  // Host defect: Open MPI 4.1.4 sporadically fails (MPI_ERR_WIN) to create
  // windows over both halves of a split at once, so the halves take turns.
  auto halves_round = [&](std::int64_t tag) {
    for (int turn = 0; turn < 2; ++turn) {
      if (me % 2 == turn) ring_round(half, tag);
      MPI_Barrier(MPI_COMM_WORLD);
    }
  };
  halves_round(1'000'000);
  ring_round(reversed, 2'000'000);
  ring_round(MPI_COMM_WORLD, 3'000'000);
  // After MPI_COMM_WORLD agreed: groups known, and a new one (rotated by
  // one), without a collective of their own.
  halves_round(4'000'000);
  ring_round(reversed, 5'000'000);
  MPI_Comm rotated = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, 0, (me + 1) % n, &rotated);
  ring_round(rotated, 6'000'000);

  MPI_Comm_free(&rotated);
  MPI_Comm_free(&half);
  MPI_Comm_free(&reversed);
}

}  // namespace
