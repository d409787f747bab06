// Window synchronisation as the interceptors hand it over: the module's
// hooks around the host call, then the epoch bookkeeping.
#include <atomic>
#include <numeric>

#include "osc.hpp"
#include "params.hpp"

namespace mpinotify {

namespace {

bool is_flush(SyncKind kind) { return kind == SyncKind::flush || kind == SyncKind::flush_local; }
bool is_flush_all(SyncKind kind) {
  return kind == SyncKind::flush_all || kind == SyncKind::flush_local_all;
}

// A flush in a passive-target epoch that owes the host nothing: the host's
// call would complete no operation, and across hosts on Open MPI it costs a
// round trip that waits for the target to enter MPI. Outside such an epoch
// the host answers (its MPI_ERR_RMA_SYNC). The local forms keep the marks:
// remote completion is still owed.
bool host_flush_idle(Window &window, const SyncCall &call) {
  if (params().skip_idle_host_flush == 0) return false;
  const Epochs &epochs = window.epochs();
  OwedTargets &owed = window.host_owed();
  switch (call.kind) {
    case SyncKind::flush:
      return epochs.mode_for(call.rank) == EpochMode::passive && !owed.take(call.rank);
    case SyncKind::flush_local:
      return epochs.mode_for(call.rank) == EpochMode::passive && !owed.owes(call.rank);
    case SyncKind::flush_all: return epochs.passive_open() && !owed.take_all();
    case SyncKind::flush_local_all: return epochs.passive_open() && !owed.owes_any();
    default: return false;
  }
}

// What the skipped call would still have done: order this process's memory
// accesses (some programs flush to order load/store on shared windows) and,
// now and then, let the host progress (a program may spin on flushes while
// others' operations to it wait for its progress).
void stand_in_for_host_flush(Window &window) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  window.skipped_flush_nudge().tick(window.comm());
}

}  // namespace

Status synchronize(Window &window, SyncCall &call, HostCall host_call) {
  // Calls naming a target that is no rank of the window never reach the
  // hooks (nothing is indexed by it) and change no epoch (SEMANTICS 3.9).
  // A flush there does nothing for MPI_PROC_NULL and gets MPI_ERR_RANK
  // otherwise, as on MPICH; Open MPI 4.1's osc/rdma would crash on both.
  // Lock and unlock are the host's to answer.
  const bool names_no_rank =
      call.rank == MPI_PROC_NULL || call.rank < 0 || call.rank >= window.size();
  if (is_flush(call.kind) && names_no_rank) {
    if (call.rank == MPI_PROC_NULL) return {};
    return window.check_rank(call.rank);
  }
  if ((call.kind == SyncKind::lock || call.kind == SyncKind::unlock) && names_no_rank)
    return host_reported(host_call(), "window synchronisation");
  auto guard = window.shared_access();
  MPINOTIFY_TRY(window.module().before_sync(call));
  if (host_flush_idle(window, call)) {
    stand_in_for_host_flush(window);
    return {};
  }
  MPINOTIFY_TRY(host_reported(host_call(), "window synchronisation"));
  if (is_flush(call.kind) || is_flush_all(call.kind)) return {};  // no epoch changes
  MPINOTIFY_TRY(window.module().after_sync(call));
  window.epochs().apply(call);
  return {};
}

Status window_ranks(Window &window, MPI_Group group, std::vector<int> &ranks) {
  int n = 0;
  MPINOTIFY_TRY(host_reported(PMPI_Group_size(group, &n), "MPI_Group_size"));
  MPI_Group window_group = MPI_GROUP_NULL;
  MPINOTIFY_TRY(
      host_status(PMPI_Win_get_group(window.handle(), &window_group), "MPI_Win_get_group"));
  std::vector<int> members(static_cast<std::size_t>(n));
  std::iota(members.begin(), members.end(), 0);
  ranks.assign(static_cast<std::size_t>(n), MPI_UNDEFINED);
  Status st =
      host_status(PMPI_Group_translate_ranks(group, n, members.data(), window_group, ranks.data()),
                  "MPI_Group_translate_ranks");
  PMPI_Group_free(&window_group);
  return st;
}

}  // namespace mpinotify
