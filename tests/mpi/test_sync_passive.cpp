// SEMANTICS 3.6 in passive-target epochs: blocking notified operations
// complete, data and notification together, at MPI_Win_unlock (exclusive
// and shared locks), at MPI_Win_flush(_all) and MPI_Win_unlock_all (at the
// target) and at MPI_Win_flush_local(_all) (at the origin). A notified
// operation outside an epoch, or a request form outside a passive-target
// epoch, is MPI_ERR_RMA_SYNC and changes nothing. Fence, PSCW and plain RMA
// on the same window: test_sync_active.cpp.
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "sync_helpers.hpp"

namespace mpitest::sync_modes {
namespace {

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

// SEMANTICS 3.6, 3.1: a burst of blocking notified puts (which a backend
// may gather at the origin) completes at MPI_Win_flush with every word in
// place and each counter raised exactly once per put; a second burst
// completes without any flush, because the origin then polls one of its own
// counters while it waits for its consumer's answer (the ping-pong pattern).
TEST_P(SyncModes, BurstsCompleteAtFlushOrOwnPoll_3_6) {
  constexpr int kPuts = 600;
  TestWindow w(GetParam(), static_cast<MPI_Aint>(2 * kPuts * sizeof(int)));
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int target = (me + 1) % n;
  const int origin = (me + n - 1) % n;
  const MPI_Win win = w.win();
  w.set_num_notify(4);
  auto word = [](int from, int burst, int i) { return from * 1000003 + burst * 7919 + i; };
  auto slot = [&](int burst, int i) {
    return w.disp(target, static_cast<MPI_Aint>((burst * kPuts + i) * sizeof(int)));
  };
  auto expect_words = [&](int burst, const char *what) {
    const int *mine = reinterpret_cast<const int *>(w.base()) + burst * kPuts;
    int wrong = 0;
    for (int i = 0; i < kPuts; ++i) wrong += mine[i] != word(origin, burst, i);
    EXPECT_EQ(0, wrong) << what << ": words from rank " << origin << " missing on rank " << me;
  };
  std::vector<int> values(2 * kPuts);
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < kPuts; ++i)
      values[static_cast<std::size_t>(b * kPuts + i)] = word(me, b, i);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);

  // Burst 0 over counters 0 and 1, then a flush.
  for (int i = 0; i < kPuts; ++i)
    EXPECT_MPI_OK(MPI_Put_notify(&values[static_cast<std::size_t>(i)], 1, MPI_INT, target,
                                 slot(0, i), 1, MPI_INT, i % 2, win));
  EXPECT_MPI_OK(MPI_Win_flush(target, win));
  MPI_Barrier(MPI_COMM_WORLD);
  expect_counter(win, 0, kPuts / 2, "after a burst and MPI_Win_flush");
  expect_counter(win, 1, kPuts / 2, "after a burst and MPI_Win_flush");
  expect_words(0, "after a burst and MPI_Win_flush");

  // Burst 1 on counter 2, no flush: wait for the own consumer's burst,
  // answer it on the origin's counter 3, wait for the answer.
  for (int i = 0; i < kPuts; ++i)
    EXPECT_MPI_OK(MPI_Put_notify(&values[static_cast<std::size_t>(kPuts + i)], 1, MPI_INT, target,
                                 slot(1, i), 1, MPI_INT, 2, win));
  EXPECT_EQ(kPuts, wait_for_counter(win, 2, kPuts, 30.0))
      << "burst from rank " << origin << " not complete on rank " << me << " without a flush";
  expect_words(1, "when the counter said the burst was there");
  const int ack = 1;
  EXPECT_MPI_OK(MPI_Put_notify(&ack, 0, MPI_INT, origin, w.disp(origin, 0), 0, MPI_INT, 3, win));
  EXPECT_EQ(1, wait_for_counter(win, 3, 1, 30.0))
      << "no answer from rank " << target << " on rank " << me;
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  expect_counter(win, 2, kPuts, "after unlock_all");
  expect_counter(win, 3, 1, "after unlock_all");
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

// Instantiates the tests of test_sync_active.cpp too.
INSTANTIATE_TEST_SUITE_P(AllFlavors, SyncModes, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

}  // namespace
}  // namespace mpitest::sync_modes
