// SEMANTICS 3.6 in active-target epochs: blocking notified operations
// complete, data and notification together, at MPI_Win_fence and, with
// post/start/complete/wait, once MPI_Win_wait returns or MPI_Win_test
// reports completion. SEMANTICS 3.9: plain MPI RMA on the same window, in
// every synchronisation mode (passive ones included) and mixed with notified
// operations, gives exactly the results it gives without the library.
// Passive-target modes and wrong epochs: test_sync_passive.cpp.
#include <string>
#include <vector>

#include "sync_helpers.hpp"

namespace mpitest::sync_modes {
namespace {

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

}  // namespace
}  // namespace mpitest::sync_modes
