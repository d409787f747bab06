// Window memory the host placed in shared memory: MPI_Win_allocate_shared
// windows, and MPI_Win_allocate windows a backend asked the host to make
// that way. A backend whose peers share the node reaches the memory by
// load/store instead of moving data through a transport: a put or get is
// complete when its copy returns, so its notification needs no ordering
// with anything in flight.
#pragma once

#include <cstdint>
#include <vector>

#include "osc_core/backend.hpp"
#include "osc_core/module.hpp"
#include "osc_core/window.hpp"

namespace mpinotify {

// Collective over request.library_comm: makes an MPI_Win_allocate request's
// host window as MPI_Win_allocate_shared of `bytes` (each rank's memory on
// its own pages, as MPI_Win_allocate would place it). Every rank must pass
// the same `stride` or 0, and learns in out.tail_counter_stride the stride
// every rank passed (0 if they differ). Hosts that cannot make shared
// windows (Open MPI's osc/pt2pt and osc/rdma) refuse on the library's
// communicator; if any rank could not, every rank falls back to the
// flavor's own constructor.
int make_host_window_in_shared_memory(const CreateRequest &request, MPI_Aint bytes,
                                      std::uint32_t stride, HostWindow &out);

// Pure: how many bytes of each rank's window memory (`sizes`, by rank) a
// process maps at creation from a budget of `budget` bytes: an equal share
// each, the shares small windows leave going to the larger ones, so that
// no rank gets more than its size and the total stays within the budget.
std::vector<std::uint64_t> prefault_shares(const std::vector<std::uint64_t> &sizes,
                                           std::uint64_t budget);

class SharedMemoryWindow {
 public:
  // Maps every rank's window memory when the host window shares it
  // (MPI_Win_shared_query); stays empty otherwise, or if the host cannot
  // answer for some rank. Then faults in up to MPINOTIFY_PREFAULT bytes of
  // it in this process's page tables (prefault_shares).
  void map(const Window &window);
  bool empty() const { return memory_.empty(); }
  char *base(int rank) const { return memory_[static_cast<std::size_t>(rank)]; }
  char *at(int rank, MPI_Aint disp) const {
    const auto r = static_cast<std::size_t>(rank);
    return memory_[r] + disp * disp_units_[r];
  }
  // A put's or get's data by load/store; `done` false when it is neither or
  // the host cannot copy it here (the caller moves it then).
  Status copy(const NotifyOp &op, MPI_Comm comm, bool &done) const;

 private:
  std::vector<char *> memory_;  // by window rank, as mapped here
  std::vector<int> disp_units_;
};

}  // namespace mpinotify
