// Helpers shared by the request tests (test_thresholds.cpp and
// test_request_ops.cpp): the ring of neighbours, a sentinel request handle
// for calls that must leave *request untouched, and the one window per
// flavor that the suites of both files share.
#pragma once

#include <array>
#include <cstddef>
#include <memory>

#include "harness.hpp"

namespace mpitest::requests {

// The ring every test uses: a rank notifies its right neighbour and is
// notified by its left one (itself on one process).
inline int right() { return (mpitest::rank() + 1) % mpitest::size(); }
inline int left() { return (mpitest::rank() + mpitest::size() - 1) % mpitest::size(); }

// A request handle that no call under test makes: an inactive persistent
// receive. Failing calls must leave *request equal to it.
class SentinelRequest {
 public:
  SentinelRequest() {
    MPI_Recv_init(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &request_);
  }
  ~SentinelRequest() {
    if (request_ != MPI_REQUEST_NULL) MPI_Request_free(&request_);
  }
  SentinelRequest(const SentinelRequest &) = delete;
  SentinelRequest &operator=(const SentinelRequest &) = delete;
  MPI_Request value() const { return request_; }

 private:
  MPI_Request request_ = MPI_REQUEST_NULL;
};

// Creating a window costs more than most tests of these files (about 0.35 s
// at 4 processes on MPICH here), so they share one 64-byte window per
// flavor, freed at the end of each suite. Every test starts from
// fresh_window(), whose MPI_Win_set_num_notify clears every counter (2.2).
inline std::array<std::unique_ptr<TestWindow>, 4> &shared_windows() {
  static std::array<std::unique_ptr<TestWindow>, 4> windows;
  return windows;
}

// Collective.
inline TestWindow &fresh_window(Flavor flavor, int num_notify) {
  std::unique_ptr<TestWindow> &w = shared_windows()[static_cast<std::size_t>(flavor)];
  if (!w) w = std::make_unique<TestWindow>(flavor, 64);
  w->set_num_notify(num_notify);
  return *w;
}

// Collective: every rank created the same windows in the same order.
inline void free_shared_windows() {
  for (std::unique_ptr<TestWindow> &w : shared_windows()) w.reset();
}

}  // namespace mpitest::requests
