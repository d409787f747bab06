// Letting the host MPI progress from the library's own loops. Some host RMA
// advances at a target only while that process enters the host's
// point-to-point engine (MPICH's active-message RMA, Open MPI's osc/pt2pt,
// osc/ucx over tcp), and a process spinning on the library's counter polls
// or skipped flushes would never do so. One probe of the window's
// communicator is enough; doing it on every call would cost a host call per
// poll, so the loops that can afford to wait probe every Every-th time.
#pragma once

#include <atomic>

#include "mpi_host.hpp"

namespace mpinotify {

template <unsigned Every>
class HostNudge {
  static_assert(Every > 0 && (Every & (Every - 1)) == 0, "a power of two");

 public:
  // Counts a call; every Every-th one lets the host progress. (A plain
  // count: an increment lost between threads changes nothing.)
  void tick(MPI_Comm comm) {
    const unsigned calls = calls_.load(std::memory_order_relaxed) + 1;
    calls_.store(calls, std::memory_order_relaxed);
    if ((calls & (Every - 1)) == 0) now(comm);
  }
  static void now(MPI_Comm comm) {
    int flag = 0;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE);
  }

 private:
  std::atomic<unsigned> calls_{0};
};

}  // namespace mpinotify
