// Window synchronisation as the interceptors hand it over: the module's
// hooks around the host call, then the epoch bookkeeping.
#include <numeric>

#include "hot_path.hpp"
#include "osc.hpp"

namespace mpinotify {

Status synchronize(Window &window, SyncCall &call, HostCall host_call) {
  if (is_flush(call.kind) || is_flush_all(call.kind)) return flush_window(window, call, host_call);
  // Lock and unlock naming a target that is no rank of the window are the
  // host's to answer; they reach no hook (nothing is indexed by the rank)
  // and change no epoch (SEMANTICS 3.9).
  const bool names_no_rank =
      call.rank == MPI_PROC_NULL || call.rank < 0 || call.rank >= window.size();
  if ((call.kind == SyncKind::lock || call.kind == SyncKind::unlock) && names_no_rank)
    return host_reported(host_call(), "window synchronisation");
  auto guard = window.shared_access();
  MPINOTIFY_TRY(window.module().before_sync(call));
  MPINOTIFY_TRY(host_reported(host_call(), "window synchronisation"));
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
