// The wait policy (osc_core/wait_policy.hpp): how long the library's waits
// spin before they yield, decided from MPINOTIFY_WAIT_SPIN, the launcher's
// count of this node's ranks and the CPUs; and one wait's pacing.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>

#include "wait_policy.hpp"

namespace {

using mpinotify::Backoff;
using mpinotify::decide_wait_policy;
using mpinotify::kDefaultSpinNs;
using mpinotify::local_ranks_from;
using mpinotify::WaitPolicy;

// An environment holding exactly `vars` ("" for the others).
auto environment(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char *name) -> std::string {
    const auto it = vars.find(name);
    return it == vars.end() ? "" : it->second;
  };
}

// Automatic: spin where every rank has a CPU, yield at once where the
// node's ranks outnumber its CPUs (or spin where the count is unknown).
TEST(WaitPolicy, SpinsUnlessRanksOutnumberCpus_6_4) {
  EXPECT_EQ(kDefaultSpinNs, decide_wait_policy(-1, 2, 2).spin_ns);
  EXPECT_EQ(kDefaultSpinNs, decide_wait_policy(-1, 1, 2).spin_ns);
  EXPECT_EQ(0, decide_wait_policy(-1, 3, 2).spin_ns);
  EXPECT_EQ(0, decide_wait_policy(-1, 4, 2).spin_ns);
  EXPECT_EQ(kDefaultSpinNs, decide_wait_policy(-1, 0, 2).spin_ns);  // unknown
  EXPECT_FALSE(decide_wait_policy(-1, 4, 2).chosen);
}

// MPINOTIFY_WAIT_SPIN decides alone, in microseconds.
TEST(WaitPolicy, ParameterOverridesTheRule_6_4) {
  const WaitPolicy yield = decide_wait_policy(0, 1, 64);
  EXPECT_EQ(0, yield.spin_ns);
  EXPECT_TRUE(yield.chosen);
  EXPECT_EQ(200'000, decide_wait_policy(200, 8, 2).spin_ns);
  EXPECT_NE(std::string::npos,
            decide_wait_policy(200, 8, 2).describe().find("MPINOTIFY_WAIT_SPIN"));
  EXPECT_NE(std::string::npos, decide_wait_policy(-1, 4, 2).describe().find("4 ranks"));
}

// Open MPI, Hydra and the others each name the count; the first set one
// counts, and a value that is no positive count is skipped.
TEST(WaitPolicy, LocalRanksFromTheLauncher_6_4) {
  EXPECT_EQ(0, local_ranks_from(environment({})));
  EXPECT_EQ(4, local_ranks_from(environment({{"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}})));
  EXPECT_EQ(3, local_ranks_from(environment({{"MPI_LOCALNRANKS", "3"}})));
  EXPECT_EQ(2, local_ranks_from(environment({{"PMIX_LOCAL_SIZE", "2"}})));
  EXPECT_EQ(5, local_ranks_from(
                   environment({{"OMPI_COMM_WORLD_LOCAL_SIZE", "x"}, {"MPI_LOCALNRANKS", "5"}})));
  for (const std::string bad : {"0", "-2", "2(x3)", "", "12345678901"})
    EXPECT_EQ(0, local_ranks_from(environment({{"MPI_LOCALNRANKS", bad}}))) << bad;
}

// A wait that yields at once never spins; one with a budget spins until
// the budget is spent, then yields on every pause.
TEST(Backoff, SpinsForItsBudgetThenYields_6_4) {
  Backoff at_once(0, 0);
  EXPECT_TRUE(at_once.yielding());
  at_once.pause();
  EXPECT_TRUE(at_once.yielding());

  constexpr std::int64_t kBudget = 2'000'000;  // 2 ms
  Backoff spinning(kBudget, 0);
  const auto start = std::chrono::steady_clock::now();
  while (!spinning.yielding()) {
    spinning.pause();
    ASSERT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  }
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::nanoseconds(kBudget));
}

// Quick tries come first, whatever the policy.
TEST(Backoff, QuickTriesNeverYield_6_4) {
  Backoff backoff(0, 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(backoff.yielding()) << i;
    backoff.pause();
  }
  EXPECT_TRUE(backoff.yielding());
}

// The process's policy is decided once and says what it was decided from.
TEST(WaitPolicy, ProcessPolicyIsDecidedOnce_6_4) {
  const WaitPolicy &first = mpinotify::wait_policy();
  EXPECT_EQ(&first, &mpinotify::wait_policy());
  EXPECT_GE(first.cpus, 1);
  EXPECT_GE(first.spin_ns, 0);
  EXPECT_FALSE(first.describe().empty());
}

}  // namespace
