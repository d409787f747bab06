// SEMANTICS 6.1 across a network: a peer that stops answering (a dead host,
// a cut link) turns the backend's waits into MPI errors through the
// window's error handler within MPINOTIFY_PEER_TIMEOUT, instead of a hang:
// the connection ucx and ofi make on the first operation to a peer, and the
// flushes and request waits on a peer reached before.
//
// A stopped process (SIGSTOP) is such a peer on one host, provided the
// transport needs the target's own progress to complete an operation: over
// UCX's tcp and libfabric's tcp;ofi_rxm it does. The test runs where its
// ctest entries ask for it (MPINOTIFY_PEER_TIMEOUT of a few seconds, ucx or
// ofi over tcp); elsewhere it skips, since a flush to a stopped peer over
// shared memory just completes.
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

// The backend the ctest entry forces (over tcp).
std::string forced_backend() {
  const char *name = std::getenv("MPINOTIFY_BACKEND");  // NOLINT(concurrency-mt-unsafe)
  return name != nullptr ? name : "";
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

// Every rank's process id, for signals between ranks (one host).
std::vector<pid_t> all_pids() {
  std::vector<int> pids(static_cast<std::size_t>(mpitest::size()));
  const int mine = static_cast<int>(getpid());
  MPI_Allgather(&mine, 1, MPI_INT, pids.data(), 1, MPI_INT, MPI_COMM_WORLD);
  return {pids.begin(), pids.end()};
}

// Whether `took` seconds is the deadline's doing: at least (about) the
// timeout, and not much more.
void expect_deadline(double took, int timeout) {
  EXPECT_GE(took, timeout * 0.9);
  EXPECT_LT(took, timeout + 20.0);
}

std::vector<char> pattern(int bytes) {
  std::vector<char> data(static_cast<std::size_t>(bytes));
  for (int i = 0; i < bytes; ++i) data[static_cast<std::size_t>(i)] = static_cast<char>(i * 7);
  return data;
}

void expect_pattern(const char *base, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    if (base[i] != static_cast<char>(i * 7)) {
      ADD_FAILURE() << "byte " << i << " of the put is wrong after the peer resumed";
      return;
    }
  }
}

class PeerTimeout : public mpitest::AllocateTest {};

// MPI_Wait on the library's requests reports through MPI_COMM_WORLD's
// handler (they belong to no window): errors return there while this
// lives, and the handler the test found comes back after.
class WorldErrorsReturn {
 public:
  WorldErrorsReturn() {
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &saved_);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  ~WorldErrorsReturn() {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, saved_);
    MPI_Errhandler_free(&saved_);
  }
  WorldErrorsReturn(const WorldErrorsReturn &) = delete;
  WorldErrorsReturn &operator=(const WorldErrorsReturn &) = delete;

 private:
  MPI_Errhandler saved_ = MPI_ERRHANDLER_NULL;
};

// ucx and ofi reach a peer on the first operation to it, not at window
// creation (where ofi once read from every peer: its first put here then
// went out without a wait, and succeeded). Rank 1 stops before anyone
// reached it: rank 0's first put to it fails within the deadline, rank 0's
// operations to itself and the other ranks' to rank 0 are unaffected, and
// once rank 1 resumes a put to it connects and lands. This test must run
// first in its process (as it does: the first of this file, which its
// ctest entry runs alone): an endpoint made before would be reused.
TEST_F(PeerTimeout, FirstOperationToAStoppedPeerFailsOthersAreUnaffected_6_1) {
  const int timeout = asked_timeout();
  if (timeout == 0) GTEST_SKIP() << "runs in conformance.peer_timeout.* (MPINOTIFY_PEER_TIMEOUT=2)";
  if (mpitest::size() < 2) GTEST_SKIP() << "needs a peer";
  constexpr int kBytes = 1 << 12;
  // Made with the peer running: creation connects to no one, so this is
  // all the peer is asked for until it stops.
  mpitest::TestWindow w(mpitest::Flavor::allocate, kBytes);
  ASSERT_EQ(forced_backend(), mpitest::backend_of(w.win())) << "the entry forces a backend";
  w.set_num_notify(1);
  const int stopped = 1;
  const std::vector<pid_t> pids = all_pids();
  EXPECT_MPI_OK(MPI_Win_lock_all(0, w.win()));
  const std::vector<char> data = pattern(kBytes);
  MPI_Barrier(MPI_COMM_WORLD);

  if (rank() == stopped) {
    raise(SIGSTOP);  // rank 0 sends SIGCONT once its first put failed
    // Only the put made after this rank resumed reached it.
    EXPECT_EQ(1, mpitest::wait_for_counter(w.win(), 0, 1, 30.0));
    expect_pattern(w.base(), kBytes);
  } else if (rank() == 0) {
    ASSERT_TRUE(wait_until_stopped(pids[stopped])) << "rank 1 did not stop";
    const double start = MPI_Wtime();
    const int first = MPI_Put_notify(data.data(), kBytes, MPI_BYTE, stopped, w.disp(stopped, 0),
                                     kBytes, MPI_BYTE, 0, w.win());
    EXPECT_MPI_CLASS(MPI_ERR_OTHER, first) << "the first put to a stopped peer did not fail";
    expect_deadline(MPI_Wtime() - start, timeout);
    // This rank's own counter is still reached, and at once.
    const double own = MPI_Wtime();
    EXPECT_MPI_OK(
        MPI_Put_notify(data.data(), 8, MPI_BYTE, 0, w.disp(0, 0), 8, MPI_BYTE, 0, w.win()));
    EXPECT_MPI_OK(MPI_Win_flush(0, w.win()));
    EXPECT_LT(MPI_Wtime() - own, timeout * 0.9);

    // The peer comes back: the next put connects (the failed attempt was
    // forgotten) and completes.
    kill(pids[stopped], SIGCONT);
    EXPECT_MPI_OK(MPI_Put_notify(data.data(), kBytes, MPI_BYTE, stopped, w.disp(stopped, 0), kBytes,
                                 MPI_BYTE, 0, w.win()));
    EXPECT_MPI_OK(MPI_Win_flush(stopped, w.win()));
  } else {
    // Not stopped, and never waiting on rank 1: their first operation to
    // rank 0 connects and completes.
    EXPECT_MPI_OK(
        MPI_Put_notify(data.data(), 8, MPI_BYTE, 0, w.disp(0, 0), 8, MPI_BYTE, 0, w.win()));
    EXPECT_MPI_OK(MPI_Win_flush(0, w.win()));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_MPI_OK(MPI_Win_unlock_all(w.win()));
  if (rank() == 0) {
    // Its own put and one from each rank that was not stopped.
    EXPECT_EQ(mpitest::size() - 1, mpitest::wait_for_counter(w.win(), 0, mpitest::size() - 1));
  }
}

// A peer reached before stops: a flush and a request wait on it fail
// within the deadline; once it resumes, what was stuck completes and the
// window works again.
TEST_F(PeerTimeout, WaitsOnAStoppedPeerFailThenTheWindowWorksAgain_6_1) {
  const int timeout = asked_timeout();
  if (timeout == 0) GTEST_SKIP() << "runs in conformance.peer_timeout.* (MPINOTIFY_PEER_TIMEOUT=2)";
  if (mpitest::size() < 2) GTEST_SKIP() << "needs a peer";
  constexpr int kBytes = 1 << 16;
  mpitest::TestWindow w(mpitest::Flavor::allocate, kBytes);
  ASSERT_EQ(forced_backend(), mpitest::backend_of(w.win())) << "the entry forces a backend";
  w.set_num_notify(1);
  const int stopped = 1;
  const std::vector<pid_t> pids = all_pids();
  const WorldErrorsReturn world_errors_return;
  EXPECT_MPI_OK(MPI_Win_lock_all(0, w.win()));
  const std::vector<char> data = pattern(kBytes);
  // Rank 0 reaches rank 1 while it runs (connections are made on first use).
  if (rank() == 0) {
    EXPECT_MPI_OK(MPI_Put_notify(data.data(), kBytes, MPI_BYTE, stopped, w.disp(stopped, 0), kBytes,
                                 MPI_BYTE, 0, w.win()));
    EXPECT_MPI_OK(MPI_Win_flush(stopped, w.win()));
  }
  MPI_Barrier(MPI_COMM_WORLD);

  if (rank() == stopped) {
    raise(SIGSTOP);  // rank 0 sends SIGCONT once it saw its waits fail
    // Three notified puts from rank 0 reached this window: one before the
    // stop, two meanwhile.
    EXPECT_EQ(3, mpitest::wait_for_counter(w.win(), 0, 3, 30.0));
    expect_pattern(w.base(), kBytes);
  } else if (rank() == 0) {
    const auto peer = pids[stopped];
    ASSERT_TRUE(wait_until_stopped(peer)) << "rank 1 did not stop";
    EXPECT_MPI_OK(MPI_Put_notify(data.data(), kBytes, MPI_BYTE, stopped, w.disp(stopped, 0), kBytes,
                                 MPI_BYTE, 0, w.win()));
    double start = MPI_Wtime();
    const int flushed = MPI_Win_flush(stopped, w.win());
    EXPECT_MPI_CLASS(MPI_ERR_OTHER, flushed) << "a flush to a stopped peer over tcp completed";
    // The deadline, not some other failure, ended it; and it did end.
    expect_deadline(MPI_Wtime() - start, timeout);

    MPI_Request request = MPI_REQUEST_NULL;
    EXPECT_MPI_OK(MPI_Rput_notify(data.data(), kBytes, MPI_BYTE, stopped, w.disp(stopped, 0),
                                  kBytes, MPI_BYTE, 0, w.win(), &request));
    start = MPI_Wtime();
    MPI_Status status;
    const int waited = MPI_Wait(&request, &status);
    EXPECT_MPI_CLASS(MPI_ERR_OTHER, waited);
    EXPECT_EQ(MPI_REQUEST_NULL, request);
    expect_deadline(MPI_Wtime() - start, timeout);

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
  if (rank() == 0 && mpitest::size() > 2) {
    EXPECT_EQ(mpitest::size() - 2, mpitest::wait_for_counter(w.win(), 0, mpitest::size() - 2));
  }
}

// A wait on a threshold nobody reaches: every MPINOTIFY_PEER_TIMEOUT of
// waiting, the backend checks that the peers it reached still answer. A
// stopped one ends the wait with MPI_ERR_OTHER (as a flush to it ends),
// within about twice the deadline; a peer that only sleeps longer than the
// deadline answers, and the wait goes on until it notifies.
TEST_F(PeerTimeout, ThresholdWaitEndsWhenAReachedPeerStops_6_1) {
  const int timeout = asked_timeout();
  if (timeout == 0) GTEST_SKIP() << "runs in conformance.peer_timeout.* (MPINOTIFY_PEER_TIMEOUT=2)";
  if (mpitest::size() < 2) GTEST_SKIP() << "needs a peer";
  mpitest::TestWindow w(mpitest::Flavor::allocate, 64);
  ASSERT_EQ(forced_backend(), mpitest::backend_of(w.win())) << "the entry forces a backend";
  w.set_num_notify(2);
  const int stopped = 1;
  const std::vector<pid_t> pids = all_pids();
  const WorldErrorsReturn world_errors_return;
  EXPECT_MPI_OK(MPI_Win_lock_all(0, w.win()));
  if (rank() == 0) {  // rank 0 reaches rank 1
    EXPECT_MPI_OK(MPI_Put_notify(nullptr, 0, MPI_BYTE, stopped, 0, 0, MPI_BYTE, 0, w.win()));
    EXPECT_MPI_OK(MPI_Win_flush(stopped, w.win()));
  }
  MPI_Barrier(MPI_COMM_WORLD);

  if (rank() == stopped) {
    raise(SIGSTOP);  // rank 0 sends SIGCONT once its wait failed
    EXPECT_EQ(2, mpitest::wait_for_counter(w.win(), 0, 2, 30.0));
    // Alive, but silent for longer than the deadline twice over.
    sleep(static_cast<unsigned>(2 * timeout + 1));
    EXPECT_MPI_OK(MPI_Put_notify(nullptr, 0, MPI_BYTE, 0, 0, 0, MPI_BYTE, 1, w.win()));
    EXPECT_MPI_OK(MPI_Win_flush(0, w.win()));
  } else if (rank() == 0) {
    ASSERT_TRUE(wait_until_stopped(pids[stopped])) << "rank 1 did not stop";
    MPI_Request request = MPI_REQUEST_NULL;
    EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), 1, 1, &request));
    double start = MPI_Wtime();
    MPI_Status status;
    EXPECT_MPI_CLASS(MPI_ERR_OTHER, MPI_Wait(&request, &status))
        << "a threshold wait went on while a peer it reached was stopped";
    EXPECT_EQ(MPI_REQUEST_NULL, request);
    expect_deadline(MPI_Wtime() - start, timeout);

    kill(pids[stopped], SIGCONT);
    EXPECT_MPI_OK(MPI_Put_notify(nullptr, 0, MPI_BYTE, stopped, 0, 0, MPI_BYTE, 0, w.win()));
    EXPECT_MPI_OK(MPI_Win_flush(stopped, w.win()));
    // The peer answers while it sleeps: this wait ends when it notifies.
    EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), 1, 1, &request));
    start = MPI_Wtime();
    EXPECT_MPI_OK(MPI_Wait(&request, MPI_STATUS_IGNORE));
    EXPECT_GE(MPI_Wtime() - start, 2.0 * timeout) << "completed before the peer notified";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_MPI_OK(MPI_Win_unlock_all(w.win()));
}

}  // namespace
