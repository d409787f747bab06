// The fixture of the MPI_THREAD_MULTIPLE tests (test_threads.cpp,
// test_threads_creation.cpp): they skip where the host MPI does not
// provide that level.
#pragma once

#include "harness.hpp"

namespace mpitest {

class Threads : public testing::Test {
 protected:
  void SetUp() override {
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_MULTIPLE)
      GTEST_SKIP() << "the host MPI provides thread level " << provided
                   << ", not MPI_THREAD_MULTIPLE";
  }
};

}  // namespace mpitest
