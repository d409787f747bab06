// MPINOTIFY_STATS (docs/usage.md, "Counting what the library does"): the
// counts of one window and of the process, read through
// MPINOTIFY_Win_get_stats and MPINOTIFY_Get_stats. The suite's usual runs
// count nothing: every count reads zero. The runs with MPINOTIFY_STATS=1
// (ctest conformance.stats.*) check the exact counts of a known sequence
// of calls, each rank its own.
#include <cstdint>

#include "harness.hpp"

namespace {

using mpitest::TestWindow;

class Stats : public mpitest::FlavorTest {};

// The fields in the order of the struct, for comparing two snapshots.
std::vector<MPI_Count> fields(const MPINOTIFY_Stats &s) {
  return {s.put_notify,
          s.get_notify,
          s.accumulate_notify,
          s.get_accumulate_notify,
          s.request_forms,
          s.bytes,
          s.host_path,
          s.counter_reads,
          s.counter_resets,
          s.threshold_requests,
          s.num_notify_calls,
          s.growths,
          s.windows};
}

MPINOTIFY_Stats process_stats(const std::string &backend) {
  MPINOTIFY_Stats s{};
  EXPECT_MPI_OK(MPINOTIFY_Get_stats(backend.c_str(), &s));
  return s;
}

// Every kind of notified operation once or more to the right neighbour,
// then this rank's counter calls; the window's counts are exactly those,
// and the process's counts for its backend grew by exactly as much.
TEST_P(Stats, CountsEachCallOfThisRank) {
  const int me = mpitest::rank();
  const int right = (me + 1) % mpitest::size();
  const std::string backend = mpitest::expected_backend();
  const MPINOTIFY_Stats before = process_stats(backend);
  TestWindow w(GetParam(), 64);
  const std::string serving = mpitest::backend_of(w.win());
  // Far more counters than reserved at creation (MPINOTIFY_NUM_COUNTERS,
  // 16, which backends round up to their storage's granule): new storage.
  w.set_num_notify(4096);
  MPI_Win_lock_all(0, w.win());
  std::int64_t value[2] = {me, me};
  std::int64_t fetched = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_MPI_OK(
        MPI_Put_notify(value, 1, MPI_INT64_T, right, w.disp(right, 0), 1, MPI_INT64_T, 0, w.win()));
  }
  EXPECT_MPI_OK(MPI_Get_notify(&fetched, 1, MPI_INT64_T, right, w.disp(right, 8), 1, MPI_INT64_T, 1,
                               w.win()));
  EXPECT_MPI_OK(MPI_Accumulate_notify(value, 2, MPI_INT64_T, right, w.disp(right, 16), 2,
                                      MPI_INT64_T, MPI_SUM, 2, w.win()));
  EXPECT_MPI_OK(MPI_Get_accumulate_notify(value, 1, MPI_INT64_T, &fetched, 1, MPI_INT64_T, right,
                                          w.disp(right, 32), 1, MPI_INT64_T, MPI_SUM, 3, w.win()));
  MPI_Request request = MPI_REQUEST_NULL;
  EXPECT_MPI_OK(MPI_Rput_notify(value, 1, MPI_INT64_T, right, w.disp(right, 40), 1, MPI_INT64_T, 4,
                                w.win(), &request));
  EXPECT_MPI_OK(MPI_Wait(&request, MPI_STATUS_IGNORE));
  // A target or origin of MPI_PROC_NULL moves nothing and is not counted.
  EXPECT_MPI_OK(
      MPI_Put_notify(value, 1, MPI_INT64_T, MPI_PROC_NULL, 0, 1, MPI_INT64_T, 0, w.win()));
  MPI_Win_unlock_all(w.win());
  // The left neighbour's three puts notified counter 0 here.
  MPI_Request threshold = MPI_REQUEST_NULL;
  EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), 0, 3, &threshold));
  EXPECT_MPI_OK(MPI_Wait(&threshold, MPI_STATUS_IGNORE));
  MPI_Count v = 0;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 1, &v));
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 2, &v));
  EXPECT_MPI_OK(MPI_Win_reset_notify_value(w.win(), 4, &v));
  // Refused calls are not counted.
  EXPECT_MPI_CLASS(MPI_ERR_RMA_NOTIFICATION, MPI_Win_get_notify_value(w.win(), 4096, &v));

  MPINOTIFY_Stats s{};
  EXPECT_MPI_OK(MPINOTIFY_Win_get_stats(w.win(), &s));
  const MPINOTIFY_Stats after = process_stats(backend);
  if (s.enabled == 0) {
    EXPECT_EQ(std::vector<MPI_Count>(13, 0), fields(s)) << "counting is off: all zero";
    EXPECT_EQ(std::vector<MPI_Count>(13, 0), fields(after));
    EXPECT_EQ(0, after.enabled);
    MPI_Barrier(MPI_COMM_WORLD);
    return;
  }
  EXPECT_EQ(4, s.put_notify) << "three puts and one rput";
  EXPECT_EQ(1, s.get_notify);
  EXPECT_EQ(1, s.accumulate_notify);
  EXPECT_EQ(1, s.get_accumulate_notify);
  EXPECT_EQ(1, s.request_forms);
  EXPECT_EQ(3 * 8 + 8 + 16 + 8 + 8, s.bytes) << "target bytes";
  // Accumulates move through the host on every backend; pmpi moves all.
  EXPECT_LE(2, s.host_path);
  EXPECT_GE(7, s.host_path);
  if (serving == "pmpi") {
    EXPECT_EQ(7, s.host_path);
  }
  EXPECT_EQ(2, s.counter_reads);
  EXPECT_EQ(1, s.counter_resets);
  EXPECT_EQ(1, s.threshold_requests);
  EXPECT_EQ(1, s.num_notify_calls);
  EXPECT_EQ(1, s.growths);
  EXPECT_EQ(1, s.windows);
  // The process's counts for the backend (or all of them) grew by these.
  if (backend.empty() || backend == serving) {
    std::vector<MPI_Count> grew = fields(after);
    const std::vector<MPI_Count> old = fields(before);
    for (std::size_t i = 0; i < grew.size(); ++i) grew[i] -= old[i];
    EXPECT_EQ(fields(s), grew) << "process counts of \"" << backend << "\"";
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Bad arguments: an MPI error through the right handler, nothing written.
TEST_P(Stats, BadArgumentsAreErrors) {
  TestWindow w(GetParam(), 64);
  MPINOTIFY_Stats s{};
  s.windows = -7;
  EXPECT_MPI_CLASS(MPI_ERR_WIN, MPINOTIFY_Win_get_stats(MPI_WIN_NULL, &s));
  EXPECT_MPI_CLASS(MPI_ERR_ARG, MPINOTIFY_Win_get_stats(w.win(), nullptr));
  EXPECT_MPI_CLASS(MPI_ERR_ARG, MPINOTIFY_Get_stats(nullptr, nullptr));
  EXPECT_MPI_CLASS(MPI_ERR_ARG, MPINOTIFY_Get_stats("no-such-backend", &s));
  EXPECT_EQ(-7, s.windows) << "a refused call writes nothing";
  EXPECT_MPI_OK(MPINOTIFY_Get_stats("", &s));
  EXPECT_MPI_OK(MPINOTIFY_Get_stats(nullptr, &s));
  MPI_Barrier(MPI_COMM_WORLD);
}

INSTANTIATE_TEST_SUITE_P(AllFlavors, Stats, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

}  // namespace
