// SEMANTICS 6.2: windows created and freed by two threads at once. A
// network backend learns how to find a group's peers at the group's first
// window and skips its collective for a group every rank knew, and the
// host MPI names windows by their communicators: both must hold when two
// threads' creations overlap. Each window carries a put (and, where
// notified, a notification) to the next rank of its group.
//
// Not under ThreadSanitizer: with collectives in two threads at once, Open
// MPI's progress in one thread completes the other's collective and
// writes its result buffer (on that thread's stack) from uninstrumented
// code, synchronised by atomics TSan does not see; it reports a race in
// whichever of the library's collectives comes first, with no stack for
// the write to suppress it by. The other suites run these.
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "harness.hpp"
#include "threads_fixture.hpp"

namespace {

using mpitest::Flavor;
using mpitest::TestWindow;
using mpitest::Threads;

constexpr double kDeadlineSeconds = 60.0;

// The traffic every window of these tests carries: this rank (`rank` of
// w's group) puts value_from(rank) with a notification of counter 0 to
// `to`; then its own counter must reach 1 and its memory hold
// value_from(from). How many of those two failed.
template <typename ValueFrom>
int put_to_next_and_check(TestWindow &w, int rank, int to, int from, ValueFrom value_from) {
  w.set_num_notify(1);
  const std::int64_t value = value_from(rank);
  EXPECT_MPI_OK(MPI_Win_lock_all(0, w.win()));
  EXPECT_MPI_OK(
      MPI_Put_notify(&value, 1, MPI_INT64_T, to, w.disp(to, 0), 1, MPI_INT64_T, 0, w.win()));
  EXPECT_MPI_OK(MPI_Win_unlock_all(w.win()));
  int wrong = 0;
  if (mpitest::wait_for_counter(w.win(), 0, 1, kDeadlineSeconds) != 1) ++wrong;
  EXPECT_MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w.win()));
  if (*w.as<std::int64_t>() != value_from(from)) ++wrong;
  EXPECT_MPI_OK(MPI_Win_unlock(rank, w.win()));
  return wrong;
}

// SEMANTICS 6.2: the race of the next test, sharper. Every round takes a
// group no window met before (an ordered pair of ranks), makes two
// communicators of it, and has two threads, released together, create a
// window over one each. Whichever creation finishes first on a rank
// teaches that rank the group while the other thread's creation asks; a
// rank that then decided from what it knows alone would skip the
// collective the other member enters (a hang, ended by ctest's timeout).
// n(n-1) rounds at n ranks; ranks outside a round's pair only help make
// its communicators. Pairs at two ranks are MPI_COMM_WORLD's members, so
// the first round teaches every group there. It comes first in this
// file: it tests something only in a process that has made no window
// over MPI_COMM_WORLD's members yet (conformance.first_windows_in_threads runs
// this file's creation tests alone, also with the process manager's store
// faulted so that groups exchange addresses).
TEST_F(Threads, WindowsCreatedAtOnceOverNewPairs_6_2) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the host MPI's cross-thread completion of collectives is invisible to TSan";
#endif
  const int me = mpitest::rank();
  const int n = mpitest::size();
  if (n < 2) GTEST_SKIP() << "a pair needs two ranks";
  std::vector<int> wrong(2, 0);
  for (int first = 0; first < n; ++first) {
    for (int second = 0; second < n; ++second) {
      if (first == second) continue;
      const bool member = me == first || me == second;
      std::vector<MPI_Comm> comms(2, MPI_COMM_NULL);
      for (MPI_Comm &comm : comms)
        MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, me == first ? 0 : 1, &comm);
      if (member) {
        std::atomic<int> arrived{0};
        std::vector<std::thread> creators;
        for (int c = 0; c < 2; ++c) {
          creators.emplace_back([&, c] {
            arrived.fetch_add(1);
            while (arrived.load() < 2) std::this_thread::yield();
            MPI_Comm comm = comms[static_cast<std::size_t>(c)];
            int rank = 0;
            MPI_Comm_rank(comm, &rank);
            const int other = 1 - rank;
            auto value_from = [&](int origin) {
              return (c + 1) * 1000000LL + first * 10000 + second * 100 + origin;
            };
            TestWindow w(Flavor::allocate, 8, MPI_INFO_NULL, comm);
            wrong[static_cast<std::size_t>(c)] +=
                put_to_next_and_check(w, rank, other, other, value_from);
            MPI_Barrier(comm);
          });
        }
        for (std::thread &creator : creators) creator.join();
      }
      for (MPI_Comm &comm : comms)
        if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    }
  }
  EXPECT_EQ(0, wrong[0]) << "windows of the first thread";
  EXPECT_EQ(0, wrong[1]) << "windows of the second thread";
  MPI_Barrier(MPI_COMM_WORLD);
}

// SEMANTICS 6.2: windows created at once by two threads, over two groups
// (MPI_COMM_WORLD's members in order, and backwards). A network backend
// learns how to find a group's peers at the group's first window (once
// MPI_COMM_WORLD's addresses are known, every group's), and skips its own
// collective for a group every rank knew (told by the creation summary):
// one thread's creation teaching a process the group while another thread
// creates over it must not make one rank skip a collective another rank
// enters (a hang, ended by ctest's timeout). So ctest also runs it in a
// fresh process (conformance.first_windows_in_threads), after only the
// test above, which at three ranks or more teaches no group of all of
// MPI_COMM_WORLD's members. Each window carries a put and a notification
// to the next rank of its group.
TEST_F(Threads, WindowsCreatedAtOnceOverTwoGroups_6_2) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the host MPI's cross-thread completion of collectives is invisible to TSan";
#endif
  const int me = mpitest::rank();
  const int n = mpitest::size();
  std::vector<MPI_Comm> comms(2, MPI_COMM_NULL);
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
  MPI_Comm_split(MPI_COMM_WORLD, 0, n - me, &comms[1]);
  constexpr int kWindowsEach = 6;
  std::vector<int> wrong(2, 0);
  std::vector<std::thread> creators;
  for (int c = 0; c < 2; ++c) {
    creators.emplace_back([&, c] {
      MPI_Comm comm = comms[static_cast<std::size_t>(c)];
      int rank = 0;
      MPI_Comm_rank(comm, &rank);
      const int next = (rank + 1) % n;
      const int before = (rank + n - 1) % n;
      int &mine = wrong[static_cast<std::size_t>(c)];
      for (int i = 0; i < kWindowsEach; ++i) {
        TestWindow w(Flavor::allocate, 8, MPI_INFO_NULL, comm);
        auto value_from = [&](int origin) { return (c + 1) * 1000000LL + i * 1000 + origin; };
        mine += put_to_next_and_check(w, rank, next, before, value_from);
        MPI_Barrier(comm);
      }
    });
  }
  for (std::thread &creator : creators) creator.join();
  EXPECT_EQ(0, wrong[0]) << "over MPI_COMM_WORLD's order";
  EXPECT_EQ(0, wrong[1]) << "over the reversed order";
  for (MPI_Comm &comm : comms) MPI_Comm_free(&comm);
  MPI_Barrier(MPI_COMM_WORLD);
}

// SEMANTICS 6.2: two threads making and freeing windows at once, each over
// a communicator of its own, many times; each window carries a put to the
// next rank under lock_all and is read back under an exclusive lock. The
// library makes every host window over a communicator of its own. MPICH
// names a window by the context id of the communicator it was made over
// and a count of that communicator's windows, so when the library freed
// that communicator before the host window, the other thread's next
// communicator could take the context id and its next window the same
// name while the first lived: lock messages then reached the wrong window
// (MPICH's assertion in MPI_Win_lock_all or MPI_Win_lock, or a hang ended
// by ctest's timeout).
TEST_F(Threads, WindowsMadeAndFreedAtOnceKeepTheirLocks_6_2) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the host MPI's cross-thread completion of collectives is invisible to TSan";
#endif
  const int me = mpitest::rank();
  const int n = mpitest::size();
  constexpr int kThreads = 2;
  constexpr int kWindowsEach = 60;
  std::vector<MPI_Comm> comms(kThreads, MPI_COMM_NULL);
  for (MPI_Comm &comm : comms) MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int c = 0; c < kThreads; ++c) {
    threads.emplace_back([&, c] {
      MPI_Comm comm = comms[static_cast<std::size_t>(c)];
      const int next = (me + 1) % n;
      const int before = (me + n - 1) % n;
      auto value_from = [&](int origin, int i) { return (c + 1) * 1000000LL + i * 1000 + origin; };
      for (int i = 0; i < kWindowsEach; ++i) {
        TestWindow w(Flavor::allocate, 8, MPI_INFO_NULL, comm);
        const std::int64_t value = value_from(me, i);
        EXPECT_MPI_OK(MPI_Win_lock_all(0, w.win()));
        EXPECT_MPI_OK(
            MPI_Put(&value, 1, MPI_INT64_T, next, w.disp(next, 0), 1, MPI_INT64_T, w.win()));
        EXPECT_MPI_OK(MPI_Win_unlock_all(w.win()));
        MPI_Barrier(comm);
        std::int64_t seen = -1;
        EXPECT_MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w.win()));
        EXPECT_MPI_OK(MPI_Get(&seen, 1, MPI_INT64_T, me, w.disp(me, 0), 1, MPI_INT64_T, w.win()));
        EXPECT_MPI_OK(MPI_Win_unlock(me, w.win()));
        if (seen != value_from(before, i)) ++wrong[static_cast<std::size_t>(c)];
        MPI_Barrier(comm);
      }
    });
  }
  for (std::thread &thread : threads) thread.join();
  for (int c = 0; c < kThreads; ++c)
    EXPECT_EQ(0, wrong[static_cast<std::size_t>(c)]) << "windows of thread " << c;
  for (MPI_Comm &comm : comms) MPI_Comm_free(&comm);
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
