// Choosing the backend per window with the creation info key
// "mpinotify_backend" (SEMANTICS 4.4, 5.4), and falling back when the
// chosen one fails.
#include <sys/stat.h>

#include <cstdlib>
#include <string>
#include <vector>

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

// Collective: the window notifies (every rank its right neighbour); then
// it is freed.
void expect_notifies_then_free(MPI_Win &win) {
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

// The portable backend serves any window when asked for, whatever
// MPINOTIFY_BACKEND says, and the window works.
TEST(BackendChoice, InfoKeyChoosesTheBackend_5_4) {
  ReturningWorld world;
  MPI_Win win = MPI_WIN_NULL;
  EXPECT_MPI_OK(create_with_backend("pmpi", world.comm, &win));
  ASSERT_TRUE(mpitest::all_ranks(win != MPI_WIN_NULL));
  EXPECT_EQ("pmpi", mpitest::backend_of(win));
  expect_notifies_then_free(win);
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

// The backends MPINOTIFY_FAULT makes fail at creation ("reserve:<name>",
// or ucx's "addresses:ucx"; on every rank or on one), each followed by a
// comma.
std::string faulted_backends() {
  const char *faults = std::getenv("MPINOTIFY_FAULT");
  std::string names;
  if (faults == nullptr) return names;
  const std::string text = std::string(faults) + ",";
  for (std::size_t at = 0; at < text.size(); at = text.find(',', at) + 1) {
    for (const std::string point : {"reserve:", "addresses:"}) {
      if (text.compare(at, point.size(), point) != 0) continue;
      const std::size_t name = at + point.size();
      names += text.substr(name, text.find_first_of("@,", name) - name) + ",";
    }
  }
  return names;
}

// SEMANTICS 5.4, 3.9: a backend that fails on any rank after accepting a
// window (its counter storage, or the group's addresses after every rank
// agreed to the window: injected with MPINOTIFY_FAULT) fails on every rank, and the next backend
// serves the window, which works; only a forced backend makes the failure the program's. When every
// backend fails, creation fails on every rank with their error, and no window is left. Run by ctest
// with the fault set; skipped without it.
TEST(BackendChoice, FailedBackendFallsBack_5_4) {
  const std::string faulted = faulted_backends();
  if (faulted.empty()) GTEST_SKIP() << "run with MPINOTIFY_FAULT=reserve:<backend>";
  ReturningWorld world;
  MPI_Win win = MPI_WIN_NULL;
  const int rc = create_with_backend(nullptr, world.comm, &win);
  if (faulted.find("pmpi,") != std::string::npos) {
    // pmpi serves last: nothing is left to fall back on.
    EXPECT_MPI_CLASS(MPI_ERR_NO_MEM, rc);
    EXPECT_EQ(MPI_WIN_NULL, win);
    return;
  }
  EXPECT_MPI_OK(rc);
  ASSERT_TRUE(mpitest::all_ranks(win != MPI_WIN_NULL));
  const std::string backend = mpitest::backend_of(win);
  EXPECT_EQ(std::string::npos, faulted.find(backend + ",")) << backend << " failed, yet serves";
  expect_notifies_then_free(win);
  // Forced, each failed backend is the program's error, on every rank.
  for (std::size_t at = 0; at < faulted.size(); at = faulted.find(',', at) + 1) {
    const std::string name = faulted.substr(at, faulted.find(',', at) - at);
    win = MPI_WIN_NULL;
    EXPECT_MPI_CLASS(MPI_ERR_NO_MEM, create_with_backend(name.c_str(), world.comm, &win)) << name;
    EXPECT_EQ(MPI_WIN_NULL, win);
  }
}

// Whether the ranks of `comm` see one /dev/shm (the same device): the
// test's own view of what sm needs, apart from how the library finds out.
bool share_dev_shm(MPI_Comm comm) {
  struct stat st {};
  const long long mine = stat("/dev/shm", &st) == 0 ? static_cast<long long>(st.st_dev) : -1;
  int n = 0;
  MPI_Comm_size(comm, &n);
  std::vector<long long> all(static_cast<std::size_t>(n));
  MPI_Allgather(&mine, 1, MPI_LONG_LONG, all.data(), 1, MPI_LONG_LONG, comm);
  for (const long long d : all) {
    if (d != all[0] || d < 0) return false;
  }
  return true;
}

bool backend_forced() {
  const char *forced = std::getenv("MPINOTIFY_BACKEND");
  return forced != nullptr && *forced != '\0';
}

// SEMANTICS 5.4: by default sm serves a window exactly when its ranks
// share memory: over the host's node-local communicator when that one
// shares /dev/shm, and never over a communicator that spans hosts (nor
// over "hosts" that share name and boot id but not /dev/shm). The
// multi-host runs (scripts/multihost.sh) cover the spanning cases.
TEST(BackendChoice, DefaultBackendIsSmExactlyWhereRanksShareMemory_5_4) {
  if (backend_forced()) GTEST_SKIP() << "MPINOTIFY_BACKEND chooses the backend";
  ReturningWorld world;
  MPI_Comm node = MPI_COMM_NULL;
  ASSERT_EQ(MPI_SUCCESS,
            MPI_Comm_split_type(world.comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
  for (MPI_Comm comm : {world.comm, node}) {
    const bool shares = share_dev_shm(comm);
    MPI_Win win = MPI_WIN_NULL;
    EXPECT_MPI_OK(create_with_backend(nullptr, comm, &win));
    ASSERT_TRUE(mpitest::all_ranks(win != MPI_WIN_NULL));
    const std::string backend = mpitest::backend_of(win);
    if (shares) {
      EXPECT_EQ("sm", backend) << "the ranks share /dev/shm";
    } else {
      EXPECT_NE("sm", backend) << "the ranks do not share /dev/shm";
    }
    MPI_Win_free(&win);
  }
  MPI_Comm_free(&node);
}

// The shared-memory probe's answer is kept per group (world ranks in
// order) and reused: windows over the world, over the same processes in
// reverse order, over the lower half, and over the world again, interleaved, are
// each made by all their ranks together (a rank that skipped the probe
// while another ran it would hang or fail), get the same backend every
// time, and notify.
TEST(BackendChoice, TheProbeIsReusedPerGroupInLockstep_5_4) {
  ReturningWorld world;
  MPI_Comm reversed = MPI_COMM_NULL;
  MPI_Comm half = MPI_COMM_NULL;
  ASSERT_EQ(MPI_SUCCESS,
            MPI_Comm_split(world.comm, 0, mpitest::size() - mpitest::rank(), &reversed));
  // Only the lower half: two halves making windows at once would share a
  // context id, which Open MPI 4.1's osc/sm also uses to name its backing
  // file (one half's window then failed now and then with "open(2): No such
  // file or directory").
  const bool lower = mpitest::rank() < (mpitest::size() + 1) / 2;
  ASSERT_EQ(MPI_SUCCESS, MPI_Comm_split(world.comm, lower ? 0 : MPI_UNDEFINED, 0, &half));
  MPI_Comm_set_errhandler(reversed, MPI_ERRORS_RETURN);
  if (lower) MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
  std::vector<std::string> first(3);
  for (int round = 0; round < 3; ++round) {
    int which = 0;
    for (MPI_Comm comm : {world.comm, reversed, half}) {
      if (comm == MPI_COMM_NULL) {
        ++which;
        continue;
      }
      MPI_Win win = MPI_WIN_NULL;
      EXPECT_MPI_OK(create_with_backend(nullptr, comm, &win));
      if (win == MPI_WIN_NULL) {  // a failed creation fails on all of comm's ranks
        ADD_FAILURE() << "no window in round " << round;
        ++which;
        continue;
      }
      const std::string backend = mpitest::backend_of(win);
      if (round == 0) first[static_cast<std::size_t>(which)] = backend;
      EXPECT_EQ(first[static_cast<std::size_t>(which)], backend) << "round " << round;
      MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
      int size = 0;
      MPI_Comm_size(comm, &size);
      int rank = 0;
      MPI_Comm_rank(comm, &rank);
      EXPECT_MPI_OK(MPI_Win_set_num_notify(win, MPI_INFO_NULL, 1));
      MPI_Win_lock_all(0, win);
      EXPECT_MPI_OK(
          MPI_Put_notify(nullptr, 0, MPI_BYTE, (rank + 1) % size, 0, 0, MPI_BYTE, 0, win));
      MPI_Win_unlock_all(win);
      MPI_Barrier(comm);
      EXPECT_EQ(1, mpitest::wait_for_counter(win, 0, 1));
      EXPECT_MPI_OK(MPI_Win_free(&win));
      ++which;
    }
  }
  if (half != MPI_COMM_NULL) MPI_Comm_free(&half);
  MPI_Comm_free(&reversed);
}

// SEMANTICS 5.4: sm forced on a window whose ranks share no memory fails
// creation on every rank with MPI_ERR_UNSUPPORTED_OPERATION (why goes to
// stderr under MPINOTIFY_VERBOSE) and leaves nothing behind: the next
// window works.
TEST(BackendChoice, ForcedSmWithoutSharedMemoryFailsEverywhere_5_4) {
  ReturningWorld world;
  if (share_dev_shm(world.comm)) GTEST_SKIP() << "every rank shares /dev/shm";
  MPI_Win win = MPI_WIN_NULL;
  const int rc = create_with_backend("sm", world.comm, &win);
  EXPECT_MPI_CLASS(MPI_ERR_UNSUPPORTED_OPERATION, rc);
  EXPECT_EQ(MPI_WIN_NULL, win);
  if (backend_forced()) return;
  EXPECT_MPI_OK(create_with_backend(nullptr, world.comm, &win));
  ASSERT_TRUE(mpitest::all_ranks(win != MPI_WIN_NULL));
  expect_notifies_then_free(win);
}

}  // namespace
