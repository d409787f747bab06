// GoogleTest under mpiexec: every rank runs every test; rank 0 prints the
// usual report, other ranks print only their failures; ranks meet after
// each test; the exit code is non-zero on every rank if any rank failed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

class RankFailurePrinter : public testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult &result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_,
                 result.file_name() != nullptr ? result.file_name() : "?", result.line_number(),
                 result.summary());
    std::fflush(stderr);
  }
  void OnTestEnd(const testing::TestInfo &info) override {
    if (info.result()->Failed()) {
      std::fprintf(stderr, "[rank %d] FAILED %s.%s\n", rank_, info.test_suite_name(), info.name());
    }
    // Keep ranks in step: a rank that left a test early waits here.
    MPI_Barrier(MPI_COMM_WORLD);
  }

 private:
  int rank_;
};

}  // namespace

// --mpi-thread-serialized asks the host for MPI_THREAD_SERIALIZED instead
// of MPI_THREAD_MULTIPLE, for host settings that refuse the latter (Open
// MPI's osc/pt2pt); the threaded tests then skip.
int required_thread_level(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--mpi-thread-serialized") == 0) return MPI_THREAD_SERIALIZED;
  }
  return MPI_THREAD_MULTIPLE;
}

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, required_thread_level(argc, argv), &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Tests check error codes; errors without a window come here.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  testing::InitGoogleTest(&argc, argv);
  testing::TestEventListeners &listeners = testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) delete listeners.Release(listeners.default_result_printer());
  listeners.Append(new RankFailurePrinter(rank));

  const bool failed = RUN_ALL_TESTS() != 0;
  // A filter that selects nothing would pass without testing anything
  // (GoogleTest applies the filter inside RUN_ALL_TESTS).
  const bool nothing_selected = testing::UnitTest::GetInstance()->test_to_run_count() == 0;
  if (nothing_selected && rank == 0) std::fprintf(stderr, "no test matches the filter\n");
  const int local_failed = (failed || nothing_selected) ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&local_failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && any_failed != 0) std::fprintf(stderr, "some rank reported a failure\n");
  MPI_Finalize();
  return any_failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
