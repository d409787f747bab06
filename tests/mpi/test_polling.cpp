// SEMANTICS 3.10: a process that reads or tests one of its own counters
// also publishes what it still owes others, so ranks that answer each
// other's notified operations and wait only by polling their own counters,
// never flushing, make progress on every backend (the pattern of
// IMB-ASYNC's sync_rma_notify and of the natural ping-pong).
#include <cstdint>
#include <string>

#include "harness.hpp"

namespace {

using mpitest::TestWindow;

class Polling : public mpitest::FlavorTest {};

constexpr double kPatience = 30.0;  // seconds a wait may take before it fails

// Waits until own counter 0 reaches `expected`: by MPI_Win_get_notify_value
// or by MPI_Test on a threshold request. False (with a failure) on timeout.
bool await_counter(MPI_Win win, MPI_Count expected, bool by_request, const std::string &when) {
  const double deadline = MPI_Wtime() + kPatience;
  MPI_Count value = -1;
  if (by_request) {
    MPI_Request request = MPI_REQUEST_NULL;
    EXPECT_MPI_OK(MPI_Win_notify_threshold(win, 0, expected, &request));
    int done = 0;
    while (done == 0 && MPI_Wtime() < deadline)
      EXPECT_MPI_OK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    if (done != 0) return true;
    MPI_Cancel(&request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  } else {
    while (MPI_Wtime() < deadline) {
      EXPECT_MPI_OK(MPI_Win_get_notify_value(win, 0, &value));
      if (value >= expected) return true;
    }
  }
  ADD_FAILURE() << "rank " << mpitest::rank() << " " << when << ": counter 0 did not reach "
                << expected << " in " << kPatience << " s without a flush (last read " << value
                << ")";
  return false;
}

// Pairs (0,1), (2,3), ...; a last rank without a partner plays both sides.
// Each round the pinger sends one notified operation (put, accumulate or
// get, in turn) and waits for the answer on its own counter; the ponger
// waits for it, checks what arrived, and answers the same way.
TEST_P(Polling, PingPongWithoutFlush_3_10) {
  constexpr int kRounds = 90;
  TestWindow w(GetParam(), 4 * sizeof(std::int64_t));
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const bool pinger = me % 2 == 0;
  const int partner = pinger ? (me + 1 < n ? me + 1 : me) : me - 1;
  const MPI_Win win = w.win();
  std::int64_t *mine = w.as<std::int64_t>();
  mine[0] = -1;         // puts land here
  mine[1] = 0;          // accumulates add here
  mine[2] = 5000 + me;  // gets read this
  w.set_num_notify(1);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  std::int64_t sent = 0;
  std::int64_t fetched = -1;
  const std::int64_t one = 1;
  int accumulates = 0;
  auto send = [&](int round) {
    sent = round;
    switch (round % 3) {
      case 0:
        EXPECT_MPI_OK(MPI_Put_notify(&sent, 1, MPI_INT64_T, partner, w.disp(partner, 0), 1,
                                     MPI_INT64_T, 0, win));
        break;
      case 1:
        EXPECT_MPI_OK(MPI_Accumulate_notify(&one, 1, MPI_INT64_T, partner,
                                            w.disp(partner, sizeof(std::int64_t)), 1, MPI_INT64_T,
                                            MPI_SUM, 0, win));
        break;
      default:
        EXPECT_MPI_OK(MPI_Get_notify(&fetched, 1, MPI_INT64_T, partner,
                                     w.disp(partner, 2 * sizeof(std::int64_t)), 1, MPI_INT64_T, 0,
                                     win));
    }
  };
  // What a counter value says has arrived: the data of that round.
  auto check_arrival = [&](int round) {
    if (round % 3 == 0) {
      EXPECT_EQ(round, mine[0]) << "put of round " << round << " on rank " << me;
    } else if (round % 3 == 1) {
      EXPECT_EQ(++accumulates, mine[1]) << "accumulates by round " << round << " on rank " << me;
    }
  };
  for (int round = 0; round < kRounds; ++round) {
    const bool by_request = round % 2 == 1;
    const std::string when = "in round " + std::to_string(round);
    if (pinger) send(round);
    if (!await_counter(win, round + 1, by_request, when)) break;
    check_arrival(round);
    if (!pinger) send(round);
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(5000 + partner, fetched) << "what rank " << me << "'s gets read";
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(win, 0, &v));
  EXPECT_EQ(kRounds, v) << "notifications at rank " << me;
}

INSTANTIATE_TEST_SUITE_P(AllFlavors, Polling, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

}  // namespace
