// SEMANTICS 3.6: blocking notified operations complete, data and
// notification together, at the synchronisation calls that complete their
// base operations, in every synchronisation mode; a notified operation
// outside an epoch, or a request form outside a passive-target epoch, is
// MPI_ERR_RMA_SYNC and changes nothing. SEMANTICS 3.9: plain MPI RMA on the
// same window, in every mode and mixed with notified operations, gives
// exactly the results it gives without the library.
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

using mpitest::TestWindow;

constexpr int kWords = 1024;  // ints: a 4 KiB window per rank
constexpr MPI_Aint kBytes = kWords * static_cast<MPI_Aint>(sizeof(int));
constexpr int kRegion = 32;  // ints per region
constexpr int kCount = 8;    // ints moved by one operation

int initial(int owner, int i) { return (owner + 1) * 1000000 + i; }
int payload(int origin, int slot, int i) { return origin * 10000 + slot * 100 + i + 1; }

std::vector<int> payloads(int slot, int count = kCount) {
  std::vector<int> v(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    v[static_cast<std::size_t>(i)] = payload(mpitest::rank(), slot, i);
  return v;
}

// This rank's window as it starts: initial(me, i) everywhere.
void fill_initial(const TestWindow &w) {
  int *mem = w.as<int>();
  for (int i = 0; i < kWords; ++i) mem[i] = initial(mpitest::rank(), i);
}

// The window this rank should have: initial data with the given changes.
class Expected {
 public:
  Expected() : ints_(kWords) {
    for (int i = 0; i < kWords; ++i)
      ints_[static_cast<std::size_t>(i)] = initial(mpitest::rank(), i);
  }
  int &operator[](int i) { return ints_[static_cast<std::size_t>(i)]; }
  // Region `slot` received `origin`'s payloads (put).
  void put(int slot, int origin) {
    for (int i = 0; i < kCount; ++i) (*this)[slot * kRegion + i] = payload(origin, slot, i);
  }
  // Region `slot` had `origin`'s payloads added (accumulate SUM).
  void add(int slot, int origin) {
    for (int i = 0; i < kCount; ++i) (*this)[slot * kRegion + i] += payload(origin, slot, i);
  }
  // Compares the first `regions` regions (later phases of a test write only
  // later regions, possibly already) with the window, reporting the first
  // few differences.
  void check(const TestWindow &w, const std::string &when, int regions = kWords / kRegion) const {
    const int *mem = w.as<int>();
    int wrong = 0;
    for (int i = 0; i < regions * kRegion; ++i) {
      if (mem[i] != ints_[static_cast<std::size_t>(i)] && ++wrong <= 4) {
        ADD_FAILURE() << when << ": int " << i << " (region " << i / kRegion << ") of rank "
                      << mpitest::rank() << " is " << mem[i] << ", expected "
                      << ints_[static_cast<std::size_t>(i)];
      }
    }
    EXPECT_EQ(0, wrong) << when << ": ints of the window differ on rank " << mpitest::rank();
  }

 private:
  std::vector<int> ints_;
};

void expect_counter(MPI_Win win, int idx, MPI_Count expected, const std::string &when) {
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(win, idx, &v));
  EXPECT_EQ(expected, v) << "counter " << idx << " on rank " << mpitest::rank() << " " << when;
}

// Expects `got` to hold `target`'s initial ints of region `slot`.
void expect_read(const std::vector<int> &got, int target, int slot, const std::string &what) {
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(initial(target, slot * kRegion + i), got[static_cast<std::size_t>(i)])
        << what << " from rank " << target << ", element " << i;
  }
}

MPI_Aint at(const TestWindow &w, int target, int slot) {
  return w.disp(target, static_cast<MPI_Aint>(slot) * kRegion * static_cast<MPI_Aint>(sizeof(int)));
}

// A group of window ranks (MPI_COMM_WORLD ranks here); free with MPI_Group_free.
MPI_Group group_of(const std::vector<int> &ranks) {
  MPI_Group world = MPI_GROUP_NULL;
  MPI_Group g = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  EXPECT_MPI_OK(MPI_Group_incl(world, static_cast<int>(ranks.size()), ranks.data(), &g));
  MPI_Group_free(&world);
  return g;
}

std::vector<int> everyone() {
  std::vector<int> v(static_cast<std::size_t>(mpitest::size()));
  for (int r = 0; r < mpitest::size(); ++r) v[static_cast<std::size_t>(r)] = r;
  return v;
}

// Ends an exposure epoch with an MPI_Win_test loop; falls back to
// MPI_Win_wait (and fails) if the epoch does not end within 60 s.
void test_until_done(MPI_Win win) {
  const double deadline = MPI_Wtime() + 60.0;
  int flag = 0;
  while (flag == 0 && MPI_Wtime() < deadline) {
    EXPECT_MPI_OK(MPI_Win_test(win, &flag));
  }
  if (flag == 0) {
    ADD_FAILURE() << "MPI_Win_test never reported the exposure epoch complete";
    MPI_Win_wait(win);
  }
}

class SyncModes : public mpitest::FlavorTest {};

// SEMANTICS 3.6: under MPI_Win_lock, exclusive and shared, MPI_Win_unlock
// completes puts, gets and accumulates with their notifications; shared
// locks from every rank on every target add up exactly.
TEST_P(SyncModes, LockAndUnlockComplete_3_6) {
  TestWindow w(GetParam(), kBytes);
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int target = (me + 1) % n;
  const int origin = (me + n - 1) % n;
  const MPI_Win win = w.win();
  fill_initial(w);
  w.set_num_notify(5);
  MPI_Barrier(MPI_COMM_WORLD);

  // Exclusive: one origin per target.
  const std::vector<int> put0 = payloads(0);
  const std::vector<int> acc1 = payloads(1);
  std::vector<int> got2(kCount, -1);
  EXPECT_MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
  EXPECT_MPI_OK(MPI_Put_notify(put0.data(), kCount, MPI_INT, target, at(w, target, 0), kCount,
                               MPI_INT, 0, win));
  EXPECT_MPI_OK(MPI_Accumulate_notify(acc1.data(), kCount, MPI_INT, target, at(w, target, 1),
                                      kCount, MPI_INT, MPI_SUM, 1, win));
  EXPECT_MPI_OK(MPI_Get_notify(got2.data(), kCount, MPI_INT, target, at(w, target, 2), kCount,
                               MPI_INT, 2, win));
  EXPECT_MPI_OK(MPI_Win_unlock(target, win));
  MPI_Barrier(MPI_COMM_WORLD);
  Expected expected;
  expected.put(0, origin);
  expected.add(1, origin);
  for (int idx = 0; idx < 3; ++idx) expect_counter(win, idx, 1, "after MPI_Win_unlock (exclusive)");
  expected.check(w, "after MPI_Win_unlock (exclusive)", 3);
  expect_read(got2, target, 2, "MPI_Get_notify under an exclusive lock");

  // Shared: every rank locks every target in turn, adds to one int of
  // region 3 and puts into its own slot of region 4.
  const int one = me + 1;
  for (int t = 0; t < n; ++t) {
    EXPECT_MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    EXPECT_MPI_OK(
        MPI_Accumulate_notify(&one, 1, MPI_INT, t, at(w, t, 3), 1, MPI_INT, MPI_SUM, 3, win));
    const int mine = payload(me, 4, 0);
    EXPECT_MPI_OK(MPI_Put_notify(&mine, 1, MPI_INT, t,
                                 at(w, t, 4) + me * static_cast<MPI_Aint>(sizeof(int)), 1, MPI_INT,
                                 4, win));
    EXPECT_MPI_OK(MPI_Win_unlock(t, win));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expected[3 * kRegion] += n * (n + 1) / 2;
  for (int r = 0; r < n; ++r) expected[4 * kRegion + r] = payload(r, 4, 0);
  expect_counter(win, 3, n, "after shared locks from every rank");
  expect_counter(win, 4, n, "after shared locks from every rank");
  expected.check(w, "after shared locks from every rank");
}

// SEMANTICS 3.6: inside MPI_Win_lock_all, MPI_Win_flush and
// MPI_Win_flush_all complete data and notification at the target;
// MPI_Win_flush_local(_all) completes them at the origin (a get's buffer is
// filled, a put's buffer may be reused) and MPI_Win_unlock_all completes
// them at the target.
TEST_P(SyncModes, LockAllWithFlushesComplete_3_6) {
  TestWindow w(GetParam(), kBytes);
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int target = (me + 1) % n;
  const int origin = (me + n - 1) % n;
  const MPI_Win win = w.win();
  fill_initial(w);
  w.set_num_notify(8);
  MPI_Barrier(MPI_COMM_WORLD);
  Expected expected;

  EXPECT_MPI_OK(MPI_Win_lock_all(0, win));
  // MPI_Win_flush.
  const std::vector<int> put0 = payloads(0);
  EXPECT_MPI_OK(MPI_Put_notify(put0.data(), kCount, MPI_INT, target, at(w, target, 0), kCount,
                               MPI_INT, 0, win));
  EXPECT_MPI_OK(MPI_Win_flush(target, win));
  MPI_Barrier(MPI_COMM_WORLD);
  expect_counter(win, 0, 1, "after MPI_Win_flush");
  expected.put(0, origin);
  expected.check(w, "after MPI_Win_flush", 1);

  // MPI_Win_flush_all.
  const std::vector<int> acc1 = payloads(1);
  std::vector<int> got2(kCount, -1);
  EXPECT_MPI_OK(MPI_Accumulate_notify(acc1.data(), kCount, MPI_INT, target, at(w, target, 1),
                                      kCount, MPI_INT, MPI_SUM, 1, win));
  EXPECT_MPI_OK(MPI_Get_notify(got2.data(), kCount, MPI_INT, target, at(w, target, 2), kCount,
                               MPI_INT, 2, win));
  EXPECT_MPI_OK(MPI_Win_flush_all(win));
  expect_read(got2, target, 2, "MPI_Get_notify after MPI_Win_flush_all");
  MPI_Barrier(MPI_COMM_WORLD);
  expect_counter(win, 1, 1, "after MPI_Win_flush_all");
  expect_counter(win, 2, 1, "after MPI_Win_flush_all");
  expected.add(1, origin);
  expected.check(w, "after MPI_Win_flush_all", 3);

  // MPI_Win_flush_local and MPI_Win_flush_local_all: origin buffers are
  // free again (overwritten here), gets have landed.
  std::vector<int> put3 = payloads(3);
  std::vector<int> got4(kCount, -1);
  EXPECT_MPI_OK(MPI_Put_notify(put3.data(), kCount, MPI_INT, target, at(w, target, 3), kCount,
                               MPI_INT, 3, win));
  EXPECT_MPI_OK(MPI_Get_notify(got4.data(), kCount, MPI_INT, target, at(w, target, 4), kCount,
                               MPI_INT, 4, win));
  EXPECT_MPI_OK(MPI_Win_flush_local(target, win));
  expect_read(got4, target, 4, "MPI_Get_notify after MPI_Win_flush_local");
  std::fill(put3.begin(), put3.end(), -99);
  std::vector<int> acc5 = payloads(5);
  std::vector<int> got6(kCount, -1);
  EXPECT_MPI_OK(MPI_Accumulate_notify(acc5.data(), kCount, MPI_INT, target, at(w, target, 5),
                                      kCount, MPI_INT, MPI_SUM, 5, win));
  EXPECT_MPI_OK(MPI_Get_accumulate_notify(nullptr, 0, MPI_INT, got6.data(), kCount, MPI_INT, target,
                                          at(w, target, 6), kCount, MPI_INT, MPI_NO_OP, 6, win));
  EXPECT_MPI_OK(MPI_Win_flush_local_all(win));
  expect_read(got6, target, 6,
              "MPI_Get_accumulate_notify (MPI_NO_OP) after MPI_Win_flush_local_all");
  std::fill(acc5.begin(), acc5.end(), -99);
  // Completed by MPI_Win_unlock_all alone.
  const std::vector<int> put7 = payloads(7);
  EXPECT_MPI_OK(MPI_Put_notify(put7.data(), kCount, MPI_INT, target, at(w, target, 7), kCount,
                               MPI_INT, 7, win));
  EXPECT_MPI_OK(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  for (int idx = 0; idx < 8; ++idx) expect_counter(win, idx, 1, "after MPI_Win_unlock_all");
  expected.put(3, origin);
  expected.add(5, origin);
  expected.put(7, origin);
  expected.check(w, "after MPI_Win_unlock_all");
}

// SEMANTICS 3.6: MPI_Win_fence completes the epoch's notified operations
// (the target sees data and counters as soon as the fence returns), with
// MPI_MODE_NOPRECEDE on the first fence and MPI_MODE_NOSUCCEED on the last;
// every rank adding to every target in one epoch counts exactly.
TEST_P(SyncModes, FenceCompletes_3_6) {
  TestWindow w(GetParam(), kBytes);
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int target = (me + 1) % n;
  const int origin = (me + n - 1) % n;
  const MPI_Win win = w.win();
  fill_initial(w);
  w.set_num_notify(6);
  MPI_Barrier(MPI_COMM_WORLD);
  Expected expected;

  const std::vector<int> put0 = payloads(0);
  const std::vector<int> acc2 = payloads(2);
  std::vector<int> got1(kCount, -1);
  std::vector<int> got3(kCount, -1);
  EXPECT_MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  EXPECT_MPI_OK(MPI_Put_notify(put0.data(), kCount, MPI_INT, target, at(w, target, 0), kCount,
                               MPI_INT, 0, win));
  EXPECT_MPI_OK(MPI_Get_notify(got1.data(), kCount, MPI_INT, target, at(w, target, 1), kCount,
                               MPI_INT, 1, win));
  EXPECT_MPI_OK(MPI_Accumulate_notify(acc2.data(), kCount, MPI_INT, target, at(w, target, 2),
                                      kCount, MPI_INT, MPI_SUM, 2, win));
  EXPECT_MPI_OK(MPI_Get_accumulate_notify(acc2.data(), kCount, MPI_INT, got3.data(), kCount,
                                          MPI_INT, target, at(w, target, 3), kCount, MPI_INT,
                                          MPI_SUM, 3, win));
  EXPECT_MPI_OK(MPI_Win_fence(0, win));
  for (int idx = 0; idx < 4; ++idx) expect_counter(win, idx, 1, "after the middle fence");
  expected.put(0, origin);
  expected.add(2, origin);
  for (int i = 0; i < kCount; ++i) expected[3 * kRegion + i] += payload(origin, 2, i);
  expected.check(w, "after the middle fence", 4);
  expect_read(got1, target, 1, "MPI_Get_notify in a fence epoch");
  expect_read(got3, target, 3, "MPI_Get_accumulate_notify in a fence epoch");

  // Second epoch: two puts on one counter, and an add from every rank to
  // every target.
  const std::vector<int> put4 = payloads(4);
  const int one = me + 1;
  EXPECT_MPI_OK(MPI_Put_notify(put4.data(), kCount, MPI_INT, target, at(w, target, 4), kCount,
                               MPI_INT, 4, win));
  EXPECT_MPI_OK(MPI_Put_notify(put4.data(), 2, MPI_INT, target,
                               at(w, target, 4) + kCount * static_cast<MPI_Aint>(sizeof(int)), 2,
                               MPI_INT, 4, win));
  for (int t = 0; t < n; ++t) {
    EXPECT_MPI_OK(
        MPI_Accumulate_notify(&one, 1, MPI_INT, t, at(w, t, 5), 1, MPI_INT, MPI_SUM, 5, win));
  }
  EXPECT_MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  expect_counter(win, 4, 2, "after the last fence");
  expect_counter(win, 5, n, "after the last fence");
  expected.put(4, origin);
  expected[4 * kRegion + kCount] = payload(origin, 4, 0);
  expected[4 * kRegion + kCount + 1] = payload(origin, 4, 1);
  expected[5 * kRegion] += n * (n + 1) / 2;
  expected.check(w, "after the last fence");
}

// SEMANTICS 3.6: with MPI_Win_post/start/complete/wait the target sees
// data and counters once MPI_Win_wait returns; with an MPI_Win_test loop
// instead of MPI_Win_wait, once it reports completion. The second epoch has
// every rank in every group.
TEST_P(SyncModes, PscwCompletesAtWaitAndTest_3_6) {
  TestWindow w(GetParam(), kBytes);
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int target = (me + 1) % n;
  const int origin = (me + n - 1) % n;
  const MPI_Win win = w.win();
  fill_initial(w);
  w.set_num_notify(6);
  MPI_Barrier(MPI_COMM_WORLD);
  Expected expected;

  MPI_Group origins = group_of({origin});
  MPI_Group targets = group_of({target});
  const std::vector<int> put0 = payloads(0);
  const std::vector<int> acc2 = payloads(2);
  std::vector<int> got1(kCount, -1);
  std::vector<int> got3(kCount, -1);
  EXPECT_MPI_OK(MPI_Win_post(origins, 0, win));
  EXPECT_MPI_OK(MPI_Win_start(targets, 0, win));
  EXPECT_MPI_OK(MPI_Put_notify(put0.data(), kCount, MPI_INT, target, at(w, target, 0), kCount,
                               MPI_INT, 0, win));
  EXPECT_MPI_OK(MPI_Get_notify(got1.data(), kCount, MPI_INT, target, at(w, target, 1), kCount,
                               MPI_INT, 1, win));
  EXPECT_MPI_OK(MPI_Accumulate_notify(acc2.data(), kCount, MPI_INT, target, at(w, target, 2),
                                      kCount, MPI_INT, MPI_SUM, 2, win));
  EXPECT_MPI_OK(MPI_Get_accumulate_notify(nullptr, 0, MPI_INT, got3.data(), kCount, MPI_INT, target,
                                          at(w, target, 3), kCount, MPI_INT, MPI_NO_OP, 3, win));
  EXPECT_MPI_OK(MPI_Win_complete(win));
  expect_read(got1, target, 1, "MPI_Get_notify after MPI_Win_complete");
  expect_read(got3, target, 3, "MPI_Get_accumulate_notify after MPI_Win_complete");
  EXPECT_MPI_OK(MPI_Win_wait(win));
  for (int idx = 0; idx < 4; ++idx) expect_counter(win, idx, 1, "after MPI_Win_wait");
  expected.put(0, origin);
  expected.add(2, origin);
  expected.check(w, "after MPI_Win_wait", 4);
  MPI_Group_free(&origins);
  MPI_Group_free(&targets);

  // Every rank to every rank, closed with MPI_Win_test.
  MPI_Group all = group_of(everyone());
  const int one = me + 1;
  const std::vector<int> put5 = payloads(5);
  EXPECT_MPI_OK(MPI_Win_post(all, 0, win));
  EXPECT_MPI_OK(MPI_Win_start(all, 0, win));
  for (int t = 0; t < n; ++t) {
    EXPECT_MPI_OK(
        MPI_Accumulate_notify(&one, 1, MPI_INT, t, at(w, t, 4), 1, MPI_INT, MPI_SUM, 4, win));
  }
  EXPECT_MPI_OK(MPI_Put_notify(put5.data(), kCount, MPI_INT, target, at(w, target, 5), kCount,
                               MPI_INT, 5, win));
  EXPECT_MPI_OK(MPI_Win_complete(win));
  test_until_done(win);
  expect_counter(win, 4, n, "after MPI_Win_test reported completion");
  expect_counter(win, 5, 1, "after MPI_Win_test reported completion");
  expected[4 * kRegion] += n * (n + 1) / 2;
  expected.put(5, origin);
  expected.check(w, "after MPI_Win_test reported completion");
  MPI_Group_free(&all);
}

// The 16 notified entry points as calls on fixed buffers, for the error
// cases below.
struct Attempt {
  std::string name;
  bool request;
  std::function<int(MPI_Request *)> call;
};

std::vector<Attempt> every_form(const int *send, int *recv, int target, MPI_Aint disp, int idx,
                                MPI_Win win) {
  const MPI_Count c = kCount;
  return {
      {"MPI_Put_notify", false,
       [=](MPI_Request *) {
         return MPI_Put_notify(send, kCount, MPI_INT, target, disp, kCount, MPI_INT, idx, win);
       }},
      {"MPI_Put_notify_c", false,
       [=](MPI_Request *) {
         return MPI_Put_notify_c(send, c, MPI_INT, target, disp, c, MPI_INT, idx, win);
       }},
      {"MPI_Get_notify", false,
       [=](MPI_Request *) {
         return MPI_Get_notify(recv, kCount, MPI_INT, target, disp, kCount, MPI_INT, idx, win);
       }},
      {"MPI_Get_notify_c", false,
       [=](MPI_Request *) {
         return MPI_Get_notify_c(recv, c, MPI_INT, target, disp, c, MPI_INT, idx, win);
       }},
      {"MPI_Accumulate_notify", false,
       [=](MPI_Request *) {
         return MPI_Accumulate_notify(send, kCount, MPI_INT, target, disp, kCount, MPI_INT, MPI_SUM,
                                      idx, win);
       }},
      {"MPI_Accumulate_notify_c", false,
       [=](MPI_Request *) {
         return MPI_Accumulate_notify_c(send, c, MPI_INT, target, disp, c, MPI_INT, MPI_SUM, idx,
                                        win);
       }},
      {"MPI_Get_accumulate_notify", false,
       [=](MPI_Request *) {
         return MPI_Get_accumulate_notify(send, kCount, MPI_INT, recv, kCount, MPI_INT, target,
                                          disp, kCount, MPI_INT, MPI_SUM, idx, win);
       }},
      {"MPI_Get_accumulate_notify_c", false,
       [=](MPI_Request *) {
         return MPI_Get_accumulate_notify_c(send, c, MPI_INT, recv, c, MPI_INT, target, disp, c,
                                            MPI_INT, MPI_SUM, idx, win);
       }},
      {"MPI_Rput_notify", true,
       [=](MPI_Request *r) {
         return MPI_Rput_notify(send, kCount, MPI_INT, target, disp, kCount, MPI_INT, idx, win, r);
       }},
      {"MPI_Rput_notify_c", true,
       [=](MPI_Request *r) {
         return MPI_Rput_notify_c(send, c, MPI_INT, target, disp, c, MPI_INT, idx, win, r);
       }},
      {"MPI_Rget_notify", true,
       [=](MPI_Request *r) {
         return MPI_Rget_notify(recv, kCount, MPI_INT, target, disp, kCount, MPI_INT, idx, win, r);
       }},
      {"MPI_Rget_notify_c", true,
       [=](MPI_Request *r) {
         return MPI_Rget_notify_c(recv, c, MPI_INT, target, disp, c, MPI_INT, idx, win, r);
       }},
      {"MPI_Raccumulate_notify", true,
       [=](MPI_Request *r) {
         return MPI_Raccumulate_notify(send, kCount, MPI_INT, target, disp, kCount, MPI_INT,
                                       MPI_SUM, idx, win, r);
       }},
      {"MPI_Raccumulate_notify_c", true,
       [=](MPI_Request *r) {
         return MPI_Raccumulate_notify_c(send, c, MPI_INT, target, disp, c, MPI_INT, MPI_SUM, idx,
                                         win, r);
       }},
      {"MPI_Rget_accumulate_notify", true,
       [=](MPI_Request *r) {
         return MPI_Rget_accumulate_notify(send, kCount, MPI_INT, recv, kCount, MPI_INT, target,
                                           disp, kCount, MPI_INT, MPI_SUM, idx, win, r);
       }},
      {"MPI_Rget_accumulate_notify_c", true,
       [=](MPI_Request *r) {
         return MPI_Rget_accumulate_notify_c(send, c, MPI_INT, recv, c, MPI_INT, target, disp, c,
                                             MPI_INT, MPI_SUM, idx, win, r);
       }},
  };
}

// Makes each attempt (only the request forms if `requests_only`), expecting
// MPI_ERR_RMA_SYNC and *request untouched.
void expect_rma_sync(const std::vector<Attempt> &attempts, bool requests_only,
                     const std::string &when) {
  for (const Attempt &a : attempts) {
    if (requests_only && !a.request) continue;
    unsigned char pattern[sizeof(MPI_Request)];
    std::memset(pattern, 0x5a, sizeof pattern);
    MPI_Request req;
    std::memcpy(&req, pattern, sizeof req);
    const int code = a.call(&req);
    EXPECT_MPI_CLASS(MPI_ERR_RMA_SYNC, code) << a.name << " " << when;
    if (code == MPI_SUCCESS && a.request) MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS && a.request) {
      EXPECT_EQ(0, std::memcmp(&req, pattern, sizeof req))
          << a.name << " " << when << ": wrote *request although it failed";
    }
  }
}

// SEMANTICS 3.6 (and 3.7): a notified operation with no access epoch open
// at the origin for its target (before any, under a lock on another rank,
// after MPI_Win_unlock_all, after a fence with
// MPI_MODE_NOSUCCEED, after MPI_Win_complete) is MPI_ERR_RMA_SYNC; request
// forms inside a fence or PSCW epoch are MPI_ERR_RMA_SYNC (MPI allows
// request-based RMA only in passive-target epochs) and leave *request as it
// was. None of them moves data or a counter; valid operations in the same
// epochs do.
TEST_P(SyncModes, WrongEpochGivesRmaSyncAndChangesNothing_3_6) {
  TestWindow w(GetParam(), kBytes);
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int target = (me + 1) % n;
  const int origin = (me + n - 1) % n;
  const MPI_Win win = w.win();
  fill_initial(w);
  w.set_num_notify(2);
  MPI_Barrier(MPI_COMM_WORLD);

  const std::vector<int> send = payloads(0);
  std::vector<int> recv(kCount, -1);
  const std::vector<Attempt> attempts =
      every_form(send.data(), recv.data(), target, at(w, target, 0), 0, win);
  const std::vector<int> control = payloads(1);
  auto control_put = [&](int k) {
    EXPECT_MPI_OK(MPI_Put_notify(control.data() + k, 1, MPI_INT, target,
                                 at(w, target, 1) + k * static_cast<MPI_Aint>(sizeof(int)), 1,
                                 MPI_INT, 1, win));
  };

  expect_rma_sync(attempts, false, "before any epoch");
  if (n > 1) {
    // A lock on one rank does not cover another (here: this rank itself).
    const std::vector<Attempt> to_self =
        every_form(send.data(), recv.data(), me, at(w, me, 0), 0, win);
    EXPECT_MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
    expect_rma_sync(to_self, false, "to a rank that the open MPI_Win_lock does not cover");
    EXPECT_MPI_OK(MPI_Win_unlock(target, win));
  }
  EXPECT_MPI_OK(MPI_Win_lock_all(0, win));
  control_put(0);
  EXPECT_MPI_OK(MPI_Win_unlock_all(win));
  expect_rma_sync(attempts, false, "after MPI_Win_unlock_all");

  EXPECT_MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  expect_rma_sync(attempts, true, "in a fence epoch");
  control_put(1);
  EXPECT_MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  expect_rma_sync(attempts, false, "after a fence with MPI_MODE_NOSUCCEED");

  MPI_Group origins = group_of({origin});
  MPI_Group targets = group_of({target});
  EXPECT_MPI_OK(MPI_Win_post(origins, 0, win));
  EXPECT_MPI_OK(MPI_Win_start(targets, 0, win));
  expect_rma_sync(attempts, true, "in a PSCW access epoch");
  control_put(2);
  EXPECT_MPI_OK(MPI_Win_complete(win));
  expect_rma_sync(attempts, false, "after MPI_Win_complete");
  EXPECT_MPI_OK(MPI_Win_wait(win));
  MPI_Group_free(&origins);
  MPI_Group_free(&targets);
  MPI_Barrier(MPI_COMM_WORLD);

  expect_counter(win, 0, 0, "after operations that all failed");
  expect_counter(win, 1, 3, "after three valid puts");
  Expected expected;
  for (int k = 0; k < 3; ++k) expected[1 * kRegion + k] = payload(origin, 1, k);
  expected.check(w, "after failed and valid operations");
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(-1, recv[static_cast<std::size_t>(i)]) << "a failed get wrote its buffer";
  }
}

// SEMANTICS 3.9: plain MPI RMA (MPI_Put, MPI_Get, MPI_Accumulate,
// MPI_Fetch_and_op, 32-bit MPI_Compare_and_swap, and in passive mode
// MPI_Rput/MPI_Rget) on the same window, in every synchronisation mode and
// interleaved with notified operations, gives exactly the results it gives
// without the library; plain and notified accumulates on one int add up.
TEST_P(SyncModes, PlainRmaAlongsideNotifiedInEveryMode_3_9) {
  TestWindow w(GetParam(), kBytes);
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int target = (me + 1) % n;
  const int origin = (me + n - 1) % n;
  const MPI_Win win = w.win();
  enum Mode { lock_exclusive, lock_shared, lock_all, fence, pscw, kModes };
  static const char *const names[] = {"MPI_Win_lock exclusive", "MPI_Win_lock shared",
                                      "MPI_Win_lock_all + flush", "MPI_Win_fence", "PSCW"};
  fill_initial(w);
  w.set_num_notify(kModes);
  MPI_Barrier(MPI_COMM_WORLD);
  Expected expected;
  MPI_Group origins = group_of({origin});
  MPI_Group targets = group_of({target});

  // Mode m uses two regions. Region 2m: ints [0,8) plain put, [8,16)
  // notified put, [16,24) plain get, [24,32) notified get. Region 2m+1:
  // int 0 plain and notified accumulates, 1 fetch_and_op, 2 a matching
  // compare_and_swap, 3 one that does not match.
  for (int m = 0; m < kModes; ++m) {
    const int data = 2 * m;
    const int atom = 2 * m + 1;
    auto disp = [&](int region, int offset) {
      return at(w, target, region) + offset * static_cast<MPI_Aint>(sizeof(int));
    };
    const std::vector<int> plain = payloads(10 * m + 1);
    const std::vector<int> notified = payloads(10 * m + 2);
    std::vector<int> plain_got(kCount, -1);
    std::vector<int> notified_got(kCount, -1);
    const int add_plain = me + 1;
    const int add_notified = 100 * (me + 1);
    const int fetch_add = 7 * (me + 1);
    int fetched = -1;
    const int swap_in = -(me + 1);
    const int compare = initial(target, atom * kRegion + 2);
    int swapped_out = -1;
    const int wrong_compare = 12345;
    const int never = 999;
    int not_swapped = -1;

    switch (m) {
      case lock_exclusive: EXPECT_MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win)); break;
      case lock_shared: EXPECT_MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win)); break;
      case lock_all: EXPECT_MPI_OK(MPI_Win_lock_all(0, win)); break;
      case fence: EXPECT_MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win)); break;
      case pscw:
        EXPECT_MPI_OK(MPI_Win_post(origins, 0, win));
        EXPECT_MPI_OK(MPI_Win_start(targets, 0, win));
        break;
      default: break;
    }
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (m == lock_all) {
      EXPECT_MPI_OK(MPI_Rput(plain.data(), kCount, MPI_INT, target, disp(data, 0), kCount, MPI_INT,
                             win, &reqs[0]));
    } else {
      EXPECT_MPI_OK(
          MPI_Put(plain.data(), kCount, MPI_INT, target, disp(data, 0), kCount, MPI_INT, win));
    }
    EXPECT_MPI_OK(
        MPI_Accumulate(&add_plain, 1, MPI_INT, target, disp(atom, 0), 1, MPI_INT, MPI_SUM, win));
    EXPECT_MPI_OK(MPI_Put_notify(notified.data(), kCount, MPI_INT, target, disp(data, 8), kCount,
                                 MPI_INT, m, win));
    if (m == lock_all) {
      EXPECT_MPI_OK(MPI_Rget(plain_got.data(), kCount, MPI_INT, target, disp(data, 16), kCount,
                             MPI_INT, win, &reqs[1]));
    } else {
      EXPECT_MPI_OK(
          MPI_Get(plain_got.data(), kCount, MPI_INT, target, disp(data, 16), kCount, MPI_INT, win));
    }
    EXPECT_MPI_OK(
        MPI_Fetch_and_op(&fetch_add, &fetched, MPI_INT, target, disp(atom, 1), MPI_SUM, win));
    EXPECT_MPI_OK(MPI_Accumulate_notify(&add_notified, 1, MPI_INT, target, disp(atom, 0), 1,
                                        MPI_INT, MPI_SUM, m, win));
    EXPECT_MPI_OK(MPI_Compare_and_swap(&swap_in, &compare, &swapped_out, MPI_INT, target,
                                       disp(atom, 2), win));
    EXPECT_MPI_OK(MPI_Get_notify(notified_got.data(), kCount, MPI_INT, target, disp(data, 24),
                                 kCount, MPI_INT, m, win));
    EXPECT_MPI_OK(MPI_Compare_and_swap(&never, &wrong_compare, &not_swapped, MPI_INT, target,
                                       disp(atom, 3), win));
    switch (m) {
      case lock_exclusive:
      case lock_shared: EXPECT_MPI_OK(MPI_Win_unlock(target, win)); break;
      case lock_all:
        EXPECT_MPI_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
        EXPECT_MPI_OK(MPI_Win_flush(target, win));
        break;
      case fence: EXPECT_MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win)); break;
      case pscw: EXPECT_MPI_OK(MPI_Win_complete(win)); break;
      default: break;
    }
    // As the origin: everything read has arrived.
    const std::string mode = names[m];
    for (int i = 0; i < kCount; ++i) {
      EXPECT_EQ(initial(target, data * kRegion + 16 + i), plain_got[static_cast<std::size_t>(i)])
          << mode << ": MPI_Get element " << i;
      EXPECT_EQ(initial(target, data * kRegion + 24 + i), notified_got[static_cast<std::size_t>(i)])
          << mode << ": MPI_Get_notify element " << i;
    }
    EXPECT_EQ(initial(target, atom * kRegion + 1), fetched) << mode << ": MPI_Fetch_and_op";
    EXPECT_EQ(compare, swapped_out) << mode << ": MPI_Compare_and_swap (matching)";
    EXPECT_EQ(initial(target, atom * kRegion + 3), not_swapped)
        << mode << ": MPI_Compare_and_swap (not matching)";
    // As the target.
    if (m == pscw) {
      EXPECT_MPI_OK(MPI_Win_wait(win));
    } else if (m != fence) {
      MPI_Barrier(MPI_COMM_WORLD);
    }
    for (int i = 0; i < kCount; ++i) {
      expected[data * kRegion + i] = payload(origin, 10 * m + 1, i);
      expected[data * kRegion + 8 + i] = payload(origin, 10 * m + 2, i);
    }
    expected[atom * kRegion] += (origin + 1) + 100 * (origin + 1);
    expected[atom * kRegion + 1] += 7 * (origin + 1);
    expected[atom * kRegion + 2] = -(origin + 1);
    expect_counter(win, m, 3, "after " + mode);
    expected.check(w, "after " + mode, 2 * m + 2);
    if (m == lock_all) {
      EXPECT_MPI_OK(MPI_Win_unlock_all(win));
    }
  }
  MPI_Group_free(&origins);
  MPI_Group_free(&targets);
}

INSTANTIATE_TEST_SUITE_P(AllFlavors, SyncModes, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

}  // namespace
