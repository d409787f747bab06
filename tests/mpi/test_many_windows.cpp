// Many windows live at once, each used, grown and used again. The ucx and
// ofi backends publish a window's keys in their process's key table (256
// slots, osc_base/key_slots.hpp) and peers read them there on first use;
// windows past the table, or any window where a rank cannot publish
// (conformance.key_table_fault: MPINOTIFY_FAULT=keys:ucx@1, keys:ofi@1),
// gather their keys instead. Either way every window reaches its peers, counts their
// notifications, and does so again after a growth has brought new keys
// (SEMANTICS 2.1, 2.2).
#include <memory>
#include <string>

#include "harness.hpp"

namespace {

using mpitest::Flavor;
using mpitest::TestWindow;

class ManyLiveWindows : public mpitest::AllocateTest {};

TEST_F(ManyLiveWindows, EachReachesItsPeersBeforeAndAfterGrowth) {
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  std::vector<std::unique_ptr<TestWindow>> windows;
  windows.push_back(std::make_unique<TestWindow>(Flavor::allocate, 8));
  // Past the key table and the probes of its last windows where a backend
  // with one serves; a few elsewhere (the same test, cheaper).
  const std::string backend = mpitest::backend_of(windows[0]->win());
  const int count = backend == "ucx" || backend == "ofi" ? 264 : 16;
  while (static_cast<int>(windows.size()) < count)
    windows.push_back(std::make_unique<TestWindow>(Flavor::allocate, 8));

  // Each window: a put of a value naming window and origin, and a
  // notification on its last counter, to the right neighbour.
  auto round = [&](int counters, std::int64_t tag) {
    for (auto &w : windows) w->set_num_notify(counters);
    for (int i = 0; i < count; ++i) {
      MPI_Win win = windows[static_cast<std::size_t>(i)]->win();
      const std::int64_t value = tag + i * 16 + me;
      MPI_Win_lock_all(0, win);
      EXPECT_MPI_OK(MPI_Put_notify(&value, 1, MPI_INT64_T, right,
                                   windows[static_cast<std::size_t>(i)]->disp(right, 0), 1,
                                   MPI_INT64_T, counters - 1, win))
          << "window " << i;
      MPI_Win_unlock_all(win);
    }
    for (int i = 0; i < count; ++i) {
      TestWindow &w = *windows[static_cast<std::size_t>(i)];
      EXPECT_EQ(1, mpitest::wait_for_counter(w.win(), counters - 1, 1)) << "window " << i;
      MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w.win());
      EXPECT_EQ(tag + i * 16 + left, *w.as<std::int64_t>()) << "window " << i;
      MPI_Win_unlock(me, w.win());
    }
    MPI_Barrier(MPI_COMM_WORLD);
  };
  round(2, 1'000'000);
  round(4096, 2'000'000);  // new counter storage, new keys
}

}  // namespace
