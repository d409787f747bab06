// SEMANTICS 3.9, plain request-based RMA and many windows: MPI_Rput,
// MPI_Rget, MPI_Raccumulate and MPI_Rget_accumulate completed by every
// completion call the library intercepts, next to point-to-point
// requests; and twenty windows, served and not, alive at once with their
// operations interleaved.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "plain_rma_helpers.hpp"

namespace mpitest::plain {
namespace {

using I64 = std::int64_t;

constexpr std::size_t kSlots = 16;
I64 init(int owner, std::size_t i) { return (owner + 1) * 1000 + static_cast<I64>(i); }
I64 mark(int origin, int slot) { return (origin + 1) * 100000 + slot; }

std::vector<I64> initial() {
  std::vector<I64> v(kSlots);
  for (std::size_t i = 0; i < kSlots; ++i) v[i] = init(mpitest::rank(), i);
  return v;
}

class PlainRmaRequests : public PairedWindowTest<PlainRmaRequests> {
 public:
  static MPI_Aint window_bytes() { return static_cast<MPI_Aint>(kSlots * sizeof(I64)); }
};

// Polls `poll(&done)` until it reports completion (60 s at most); records
// the calls' return codes (not how many it took).
template <class F>
void poll_until_done(Trace &t, const std::string &what, F &&poll) {
  const double deadline = MPI_Wtime() + 60.0;
  bool done = false;
  int rc = MPI_SUCCESS;
  while (!done && rc == MPI_SUCCESS && MPI_Wtime() < deadline) rc = poll(done);
  EXPECT_MPI_OK(t.rc(what, rc)) << t.name();
  EXPECT_TRUE(done) << t.name() << ": " << what << " never completed";
}

// In one lock_all epoch: requests completed by MPI_Wait, MPI_Waitall (with
// a send and a receive among them), an MPI_Test loop, an MPI_Testany loop
// (each index once, then MPI_UNDEFINED), MPI_Waitsome, MPI_Waitany,
// MPI_Testall, MPI_Testsome and MPI_Request_get_status; a request to
// MPI_PROC_NULL. Every request ends as MPI_REQUEST_NULL; the fetched values
// and the memory are checked.
TEST_P(PlainRmaRequests, EveryCompletionCall_3_9) {
  TestWindow &reference = cache().get(GetParam(), Side::reference);
  TestWindow &served = cache().get(GetParam(), Side::served);
  on_both(reference, served, "request-based RMA", [](TestWindow &w, Trace &t) {
    const int me = mpitest::rank();
    const int r = right();
    const int l = left();
    const MPI_Win win = w.win();
    const MPI_Datatype T = MPI_INT64_T;
    auto at = [&](int target, std::size_t slot) { return elem<I64>(w, target, slot); };
    fill(w, initial());
    std::vector<I64> put(kSlots);
    for (std::size_t i = 0; i < kSlots; ++i) put[i] = mark(me, static_cast<int>(i));
    const I64 add = me + 1;
    std::vector<I64> got(kSlots, -1);
    MPI_Request reqs[6];
    std::fill(std::begin(reqs), std::end(reqs), MPI_REQUEST_NULL);
    auto all_null = [&](int count) {
      for (int i = 0; i < count; ++i) {
        if (reqs[i] != MPI_REQUEST_NULL) return false;
      }
      return true;
    };
    PLAIN_OK(t, MPI_Win_lock_all(0, win));

    PLAIN_OK(t, MPI_Rput(&put[0], 1, T, r, at(r, 0), 1, T, win, &reqs[0]));
    PLAIN_OK(t, MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));

    // MPI_Waitall, with point-to-point requests among the RMA ones.
    I64 token = -1;
    const I64 sent = mark(me, 99);
    PLAIN_OK(t, MPI_Rget(&got[1], 1, T, r, at(r, 1), 1, T, win, &reqs[0]));
    PLAIN_OK(t, MPI_Irecv(&token, 1, T, l, 7, MPI_COMM_WORLD, &reqs[1]));
    PLAIN_OK(t, MPI_Raccumulate(&add, 1, T, r, at(r, 2), 1, T, MPI_SUM, win, &reqs[2]));
    PLAIN_OK(t, MPI_Rget_accumulate(&add, 1, T, &got[3], 1, T, r, at(r, 3), 1, T, MPI_SUM, win,
                                    &reqs[3]));
    PLAIN_OK(t, MPI_Isend(&sent, 1, T, r, 7, MPI_COMM_WORLD, &reqs[4]));
    PLAIN_OK(t, MPI_Rput(&put[4], 1, T, r, at(r, 4), 1, T, win, &reqs[5]));
    MPI_Status statuses[6];
    PLAIN_OK(t, MPI_Waitall(6, reqs, statuses));
    EXPECT_TRUE(all_null(6)) << t.name() << ": after MPI_Waitall";
    EXPECT_EQ(mark(l, 99), token) << t.name() << ": the message among the RMA requests";
    EXPECT_EQ(l, statuses[1].MPI_SOURCE) << t.name();

    // MPI_Test.
    PLAIN_OK(t, MPI_Rget(&got[5], 1, T, r, at(r, 5), 1, T, win, &reqs[0]));
    poll_until_done(t, "MPI_Test", [&](bool &done) {
      int flag = 0;
      const int rc = MPI_Test(&reqs[0], &flag, MPI_STATUS_IGNORE);
      done = flag != 0;
      return rc;
    });
    EXPECT_EQ(MPI_REQUEST_NULL, reqs[0]) << t.name() << ": after MPI_Test";

    // MPI_Testany: each index reported once, then MPI_UNDEFINED.
    PLAIN_OK(t, MPI_Rput(&put[6], 1, T, r, at(r, 6), 1, T, win, &reqs[0]));
    PLAIN_OK(t, MPI_Rget(&got[7], 1, T, l, at(l, 7), 1, T, win, &reqs[1]));
    std::vector<int> reported;
    poll_until_done(t, "MPI_Testany", [&](bool &done) {
      int index = -1;
      int flag = 0;
      const int rc = MPI_Testany(2, reqs, &index, &flag, MPI_STATUS_IGNORE);
      if (flag != 0 && index != MPI_UNDEFINED) reported.push_back(index);
      done = flag != 0 && index == MPI_UNDEFINED;
      return rc;
    });
    std::sort(reported.begin(), reported.end());
    EXPECT_EQ((std::vector<int>{0, 1}), reported) << t.name() << ": indices from MPI_Testany";

    // MPI_Waitsome, with a receive among them.
    token = -1;
    PLAIN_OK(t, MPI_Raccumulate(&put[8], 1, T, r, at(r, 8), 1, T, MPI_REPLACE, win, &reqs[0]));
    PLAIN_OK(t, MPI_Rget_accumulate(nullptr, 0, T, &got[9], 1, T, r, at(r, 9), 1, T, MPI_NO_OP, win,
                                    &reqs[1]));
    PLAIN_OK(t, MPI_Irecv(&token, 1, T, l, 8, MPI_COMM_WORLD, &reqs[2]));
    PLAIN_OK(t, MPI_Send(&sent, 1, T, r, 8, MPI_COMM_WORLD));
    // How many calls it takes depends on timing: recorded once.
    int completed = 0;
    int waitsome_rc = MPI_SUCCESS;
    for (int rounds = 0; completed < 3 && rounds < 10 && waitsome_rc == MPI_SUCCESS; ++rounds) {
      int outcount = 0;
      int indices[3] = {-1, -1, -1};
      waitsome_rc = MPI_Waitsome(3, reqs, &outcount, indices, MPI_STATUSES_IGNORE);
      if (outcount == MPI_UNDEFINED) break;
      completed += outcount;
    }
    EXPECT_MPI_OK(t.rc("MPI_Waitsome", waitsome_rc)) << t.name();
    EXPECT_EQ(3, completed) << t.name() << ": requests completed by MPI_Waitsome";
    int outcount = 0;
    int indices[3];
    PLAIN_OK(t, MPI_Waitsome(3, reqs, &outcount, indices, MPI_STATUSES_IGNORE));
    EXPECT_EQ(MPI_UNDEFINED, outcount) << t.name() << ": MPI_Waitsome with nothing active";
    EXPECT_EQ(mark(l, 99), token) << t.name();

    // MPI_Waitany twice, then MPI_Testall and MPI_Testsome loops.
    PLAIN_OK(t, MPI_Rput(&put[10], 1, T, r, at(r, 10), 1, T, win, &reqs[0]));
    PLAIN_OK(t, MPI_Rget(&got[11], 1, T, r, at(r, 11), 1, T, win, &reqs[1]));
    for (int k = 0; k < 2; ++k) {
      int index = -1;
      PLAIN_OK(t, MPI_Waitany(2, reqs, &index, MPI_STATUS_IGNORE));
      EXPECT_TRUE(index == 0 || index == 1) << t.name() << ": MPI_Waitany index " << index;
    }
    EXPECT_TRUE(all_null(2)) << t.name() << ": after MPI_Waitany";
    PLAIN_OK(t, MPI_Rget(&got[12], 1, T, r, at(r, 12), 1, T, win, &reqs[0]));
    PLAIN_OK(t, MPI_Raccumulate(&add, 1, T, r, at(r, 13), 1, T, MPI_SUM, win, &reqs[1]));
    poll_until_done(t, "MPI_Testall", [&](bool &done) {
      int flag = 0;
      const int rc = MPI_Testall(2, reqs, &flag, MPI_STATUSES_IGNORE);
      done = flag != 0;
      return rc;
    });
    EXPECT_TRUE(all_null(2)) << t.name() << ": after MPI_Testall";
    PLAIN_OK(t, MPI_Rget_accumulate(&add, 1, T, &got[14], 1, T, r, at(r, 14), 1, T, MPI_SUM, win,
                                    &reqs[0]));
    int some = 0;
    poll_until_done(t, "MPI_Testsome", [&](bool &done) {
      int count = 0;
      int index[1] = {-1};
      const int rc = MPI_Testsome(1, reqs, &count, index, MPI_STATUSES_IGNORE);
      if (count != MPI_UNDEFINED) some += count;
      done = some == 1;
      return rc;
    });
    EXPECT_EQ(MPI_REQUEST_NULL, reqs[0]) << t.name() << ": after MPI_Testsome";

    // MPI_Request_get_status leaves the request to MPI_Wait.
    PLAIN_OK(t, MPI_Rget(&got[15], 1, T, r, at(r, 15), 1, T, win, &reqs[0]));
    poll_until_done(t, "MPI_Request_get_status", [&](bool &done) {
      int flag = 0;
      const int rc = MPI_Request_get_status(reqs[0], &flag, MPI_STATUS_IGNORE);
      done = flag != 0;
      return rc;
    });
    EXPECT_NE(MPI_REQUEST_NULL, reqs[0]) << t.name() << ": MPI_Request_get_status freed it";
    PLAIN_OK(t, MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));

    // MPI_PROC_NULL: completes, moves nothing.
    I64 untouched = -1;
    PLAIN_OK(t, MPI_Rget(&untouched, 1, T, MPI_PROC_NULL, 0, 1, T, win, &reqs[0]));
    PLAIN_OK(t, MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
    EXPECT_EQ(-1, untouched) << t.name();
    PLAIN_OK(t, MPI_Win_unlock_all(win));

    // As the origin: the right neighbour's initial values where read.
    for (const std::size_t i : {1, 3, 5, 9, 11, 12, 14, 15}) {
      EXPECT_EQ(init(r, i), got[i]) << t.name() << ": fetched slot " << i;
    }
    EXPECT_EQ(init(l, 7), got[7]) << t.name() << ": fetched slot 7 (from the left)";
    t.values("fetched", got);
    // As the target.
    std::vector<I64> expected = initial();
    for (const std::size_t i : {0, 4, 6, 8, 10}) expected[i] = mark(l, static_cast<int>(i));
    for (const std::size_t i : {2, 3, 13, 14}) expected[i] += l + 1;
    MPI_Barrier(MPI_COMM_WORLD);
    const std::vector<I64> mem = snapshot<I64>(w, kSlots);
    for (std::size_t i = 0; i < kSlots; ++i) {
      EXPECT_EQ(expected[i], mem[i]) << t.name() << ": slot " << i;
    }
    t.values("memory", mem);
    MPI_Barrier(MPI_COMM_WORLD);
  });
}

INSTANTIATE_TEST_SUITE_P(AllFlavors, PlainRmaRequests, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

// Twenty windows alive at once, of every flavor the host makes here, every
// fifth one left to the host (mpinotify_disable): lock_all on all of
// them, puts and accumulates interleaved window by window with flushes on
// every other one, unlock_all in reverse order; then one fence epoch over
// all of them with a get from each. Every window holds only its own data.
TEST(PlainRmaMany, TwentyWindowsInterleaved_3_9) {
  constexpr int kWindows = 20;
  constexpr int kRounds = 3;
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int r = right();
  const int l = left();
  std::vector<Flavor> flavors;
  for (Flavor f : mpitest::all_flavors()) {
    if (mpitest::host_can_create(f)) flavors.push_back(f);
  }
  // (The same on every rank: host_can_create is collective.)
  if (flavors.empty()) GTEST_SKIP() << "the host makes no windows here";
  std::vector<std::unique_ptr<TestWindow>> windows;
  for (int i = 0; i < kWindows; ++i) {
    const Info info = info_for(i % 5 == 4 ? Side::reference : Side::served);
    windows.push_back(std::make_unique<TestWindow>(
        flavors[static_cast<std::size_t>(i) % flavors.size()], 8 * sizeof(I64), info.get()));
  }
  auto value = [](int window, int origin, int round) {
    return I64{window} * 1000000 + (origin + 1) * 1000 + round;
  };
  for (auto &w : windows) fill(*w, std::vector<I64>(8, 0));

  for (auto &w : windows) EXPECT_MPI_OK(MPI_Win_lock_all(0, w->win()));
  std::vector<I64> puts(static_cast<std::size_t>(kWindows * kRounds));
  const I64 one = 1;
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kWindows; ++i) {
      TestWindow &w = *windows[static_cast<std::size_t>(i)];
      I64 &v = puts[static_cast<std::size_t>(i * kRounds + round)];
      v = value(i, me, round);
      EXPECT_MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, r, elem<I64>(w, r, static_cast<std::size_t>(round)),
                            1, MPI_INT64_T, w.win()))
          << "window " << i;
      for (int tgt = 0; tgt < n; ++tgt) {
        EXPECT_MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, tgt, elem<I64>(w, tgt, 4), 1,
                                     MPI_INT64_T, MPI_SUM, w.win()))
            << "window " << i;
      }
      if (i % 2 == 0) {
        EXPECT_MPI_OK(MPI_Win_flush(r, w.win())) << "window " << i;
      }
    }
  }
  for (int i = kWindows - 1; i >= 0; --i) {
    EXPECT_MPI_OK(MPI_Win_unlock_all(windows[static_cast<std::size_t>(i)]->win()))
        << "window " << i;
  }
  MPI_Barrier(MPI_COMM_WORLD);

  std::vector<I64> got(kWindows, -1);
  for (auto &w : windows) EXPECT_MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w->win()));
  for (int i = 0; i < kWindows; ++i) {
    TestWindow &w = *windows[static_cast<std::size_t>(i)];
    EXPECT_MPI_OK(MPI_Get(&got[static_cast<std::size_t>(i)], 1, MPI_INT64_T, r, elem<I64>(w, r, 0),
                          1, MPI_INT64_T, w.win()))
        << "window " << i;
  }
  for (auto &w : windows) EXPECT_MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win()));
  for (int i = 0; i < kWindows; ++i) {
    EXPECT_EQ(value(i, me, 0), got[static_cast<std::size_t>(i)]) << "window " << i;
    const std::vector<I64> mem = snapshot<I64>(*windows[static_cast<std::size_t>(i)], 8);
    for (int round = 0; round < kRounds; ++round) {
      EXPECT_EQ(value(i, l, round), mem[static_cast<std::size_t>(round)])
          << "window " << i << ", round " << round;
    }
    EXPECT_EQ(I64{n} * kRounds, mem[4]) << "window " << i;
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
}  // namespace mpitest::plain
