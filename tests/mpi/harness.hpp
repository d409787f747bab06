// Helpers for the conformance suite. Every test is collective over
// MPI_COMM_WORLD: all ranks run it, each checks what it can know. Prefer
// EXPECT_* over ASSERT_* before a collective, so a failing rank still
// reaches it.
#pragma once

#include <gtest/gtest.h>
#include <mpi_notify.h>

#include <string>
#include <vector>

namespace mpitest {

int rank();
int size();

enum class Flavor { create, allocate, shared, dynamic };
const std::vector<Flavor> &all_flavors();
std::string flavor_name(Flavor flavor);
// MPI_WIN_FLAVOR_CREATE, ... for a flavor.
int flavor_constant(Flavor flavor);
// For INSTANTIATE_TEST_SUITE_P names.
std::string flavor_param_name(const testing::TestParamInfo<Flavor> &info);

// Collective: whether the host MPI itself can create windows of this flavor
// here (Open MPI 4.1 with Debian's defaults cannot MPI_Win_create or
// MPI_Win_create_dynamic on a single process). Asks the host directly.
bool host_can_create(Flavor flavor);

// Base of the flavor-parameterised suites: skips, saying why, the flavors
// the host MPI cannot create in this run.
class FlavorTest : public testing::TestWithParam<Flavor> {
 protected:
  void SetUp() override;
};

// Base of the tests that use MPI_Win_allocate windows only: they skip where
// the host cannot make them (Open MPI's osc/rdma alone, in a one-process job).
class AllocateTest : public testing::Test {
 protected:
  void SetUp() override;
};

// A window of `bytes` bytes per rank (disp_unit 1) of the given flavor over
// `comm`; dynamic windows attach one buffer of that size and exchange its
// address, so disp() works the same for every flavor. Collective. Errors
// return through MPI_ERRORS_RETURN on the window.
class TestWindow {
 public:
  TestWindow(Flavor flavor, MPI_Aint bytes, MPI_Info info = MPI_INFO_NULL,
             MPI_Comm comm = MPI_COMM_WORLD);
  ~TestWindow();
  TestWindow(const TestWindow &) = delete;
  TestWindow &operator=(const TestWindow &) = delete;

  MPI_Win win() const { return win_; }
  char *base() const { return base_; }
  MPI_Aint bytes() const { return bytes_; }
  Flavor flavor() const { return flavor_; }
  // target_disp of byte `offset` in `target`'s window memory.
  MPI_Aint disp(int target, MPI_Aint offset) const;
  // Local memory as T (for element-sized windows).
  template <class T>
  T *as() const {
    return reinterpret_cast<T *>(base_);
  }
  // Collective: set every rank's count to `n` and check it worked.
  void set_num_notify(int n);

 private:
  Flavor flavor_;
  MPI_Aint bytes_;
  MPI_Win win_ = MPI_WIN_NULL;
  char *base_ = nullptr;
  bool owns_base_ = false;
  std::vector<MPI_Aint> addresses_;  // dynamic windows: base per rank
};

// The class of an MPI error code.
int error_class(int code);
// Name of an error class, for failure messages.
std::string class_name(int error_class);
#define EXPECT_MPI_CLASS(expected, rc) \
  EXPECT_EQ(::mpitest::class_name(expected), ::mpitest::class_name(::mpitest::error_class(rc)))
#define EXPECT_MPI_OK(rc) \
  EXPECT_EQ(MPI_SUCCESS, (rc)) << ::mpitest::class_name(::mpitest::error_class(rc))

// Collective: true on every rank iff `value` is true on every rank.
bool all_ranks(bool value);

// Polls counter `idx` until it reaches `at_least` or `seconds` pass;
// returns the last value read.
MPI_Count wait_for_counter(MPI_Win win, int idx, MPI_Count at_least, double seconds = 60.0);

// The backend the suite was asked to test (MPINOTIFY_BACKEND), or "".
std::string expected_backend();
// The backend serving a window, from MPI_Win_get_info.
std::string backend_of(MPI_Win win);

}  // namespace mpitest
