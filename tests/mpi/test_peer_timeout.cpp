// SEMANTICS 6.1 across a network: a peer that stops answering (a dead host,
// a cut link) turns the backend's waits into MPI errors through the
// window's error handler within MPINOTIFY_PEER_TIMEOUT, instead of a hang.
//
// A stopped process (SIGSTOP) is such a peer on one host, provided the
// transport needs the target's own progress to complete an operation: over
// UCX's tcp it does. The test runs where its ctest entry asks for it
// (MPINOTIFY_PEER_TIMEOUT of a few seconds, ucx over tcp); elsewhere it
// skips, since a flush to a stopped peer over shared memory just completes.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

using mpitest::rank;

// The test's own deadline setting, or 0 where it was not asked for.
int asked_timeout() {
  const char *text = std::getenv("MPINOTIFY_PEER_TIMEOUT");  // NOLINT(concurrency-mt-unsafe)
  const int seconds = text != nullptr ? std::atoi(text) : 0;
  return seconds > 0 && seconds <= 10 ? seconds : 0;
}

// Whether process `pid` is stopped, from /proc (same host).
bool is_stopped(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const std::size_t end = line.rfind(')');
  return end != std::string::npos && end + 2 < line.size() && line[end + 2] == 'T';
}

bool wait_until_stopped(pid_t pid) {
  const double start = MPI_Wtime();
  while (!is_stopped(pid)) {
    if (MPI_Wtime() - start > 30.0) return false;
    usleep(1000);
  }
  return true;
}

class PeerTimeout : public mpitest::AllocateTest {};

TEST_F(PeerTimeout, WaitsOnAStoppedPeerFailThenTheWindowWorksAgain_6_1) {
  const int timeout = asked_timeout();
  if (timeout == 0) GTEST_SKIP() << "runs in conformance.peer_timeout (MPINOTIFY_PEER_TIMEOUT=2)";
  if (mpitest::size() < 2) GTEST_SKIP() << "needs a peer";
  constexpr int kBytes = 1 << 16;
  mpitest::TestWindow w(mpitest::Flavor::allocate, kBytes);
  ASSERT_EQ("ucx", mpitest::backend_of(w.win())) << "the entry forces ucx over tcp";
  w.set_num_notify(1);
  const int stopped = 1;
  std::vector<int> pids(static_cast<std::size_t>(mpitest::size()));
  const int mine = static_cast<int>(getpid());
  MPI_Allgather(&mine, 1, MPI_INT, pids.data(), 1, MPI_INT, MPI_COMM_WORLD);
  // MPI_Wait on the library's requests reports through MPI_COMM_WORLD's
  // handler (they belong to no window) on both hosts.
  MPI_Errhandler world_handler = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world_handler);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  EXPECT_MPI_OK(MPI_Win_lock_all(0, w.win()));
  std::vector<char> data(kBytes);
  for (int i = 0; i < kBytes; ++i) data[static_cast<std::size_t>(i)] = static_cast<char>(i * 7);
  MPI_Barrier(MPI_COMM_WORLD);

  if (rank() == stopped) {
    raise(SIGSTOP);  // rank 0 sends SIGCONT once it saw its waits fail
    // Two notified puts from rank 0 reached this window meanwhile.
    EXPECT_EQ(2, mpitest::wait_for_counter(w.win(), 0, 2, 30.0));
    for (int i = 0; i < kBytes; ++i) {
      if (w.base()[i] != static_cast<char>(i * 7)) {
        ADD_FAILURE() << "byte " << i << " of the put is wrong after the peer resumed";
        break;
      }
    }
  } else if (rank() == 0) {
    const auto peer = static_cast<pid_t>(pids[stopped]);
    ASSERT_TRUE(wait_until_stopped(peer)) << "rank 1 did not stop";
    EXPECT_MPI_OK(MPI_Put_notify(data.data(), kBytes, MPI_BYTE, stopped, w.disp(stopped, 0), kBytes,
                                 MPI_BYTE, 0, w.win()));
    double start = MPI_Wtime();
    const int flushed = MPI_Win_flush(stopped, w.win());
    const double flush_took = MPI_Wtime() - start;
    EXPECT_MPI_CLASS(MPI_ERR_OTHER, flushed) << "a flush to a stopped peer over tcp completed";
    // The deadline, not some other failure, ended it; and it did end.
    EXPECT_GE(flush_took, timeout * 0.9);
    EXPECT_LT(flush_took, timeout + 20.0);

    MPI_Request request = MPI_REQUEST_NULL;
    EXPECT_MPI_OK(MPI_Rput_notify(data.data(), kBytes, MPI_BYTE, stopped, w.disp(stopped, 0),
                                  kBytes, MPI_BYTE, 0, w.win(), &request));
    start = MPI_Wtime();
    MPI_Status status;
    const int waited = MPI_Wait(&request, &status);
    const double wait_took = MPI_Wtime() - start;
    EXPECT_MPI_CLASS(MPI_ERR_OTHER, waited);
    EXPECT_EQ(MPI_REQUEST_NULL, request);
    EXPECT_GE(wait_took, timeout * 0.9);
    EXPECT_LT(wait_took, timeout + 20.0);

    // The peer comes back: what was stuck completes and the window works.
    kill(peer, SIGCONT);
    EXPECT_MPI_OK(MPI_Win_flush(stopped, w.win()));
  } else {
    // Other ranks stay out of it, but they are not stopped: their flush
    // to rank 0 completes.
    EXPECT_MPI_OK(
        MPI_Put_notify(data.data(), 8, MPI_BYTE, 0, w.disp(0, 0), 8, MPI_BYTE, 0, w.win()));
    EXPECT_MPI_OK(MPI_Win_flush(0, w.win()));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_MPI_OK(MPI_Win_unlock_all(w.win()));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, world_handler);
  MPI_Errhandler_free(&world_handler);
  if (rank() == 0 && mpitest::size() > 2) {
    EXPECT_EQ(mpitest::size() - 2, mpitest::wait_for_counter(w.win(), 0, mpitest::size() - 2));
  }
}

}  // namespace
