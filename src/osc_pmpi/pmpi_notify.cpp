// pmpi notified operations and the synchronisation that completes them.
#include "osc_base/host_rma.hpp"
#include "osc_core/progress.hpp"
#include "pmpi_module.hpp"

namespace mpinotify::pmpi {
namespace {
const std::int64_t kOne = 1;
}  // namespace

Status PmpiModule::increment(int target, int idx, const std::int64_t *amount) {
  MPINOTIFY_TRY(host_status(
      PMPI_Accumulate(amount, 1, MPI_INT64_T, target, idx, 1, MPI_INT64_T, MPI_SUM, counters_),
      "MPI_Accumulate (counter)"));
  unflushed_.note(target);
  return {};
}

Status PmpiModule::notify(const NotifyOp &op, MPI_Request *request) {
  const int target = op.target_rank;
  const EpochMode mode = op.mode;
  bool increment_now = false;
  MPINOTIFY_TRY(host_data_part(op, window_, mode, deferred_, increment_now));
  if (!increment_now) return {};
  MPINOTIFY_TRY(increment(target, op.idx, &kOne));
  if (request == nullptr) return {};
  // The request completes with the increment delivered, so the target
  // sees it without this process entering MPI again.
  MPINOTIFY_TRY(host_status(PMPI_Win_flush(target, counters_), "MPI_Win_flush (counters)"));
  return mpinotify::progress().completed_request(request);
}

Status PmpiModule::before_sync(const SyncCall &call) {
  // Increments complete where the user's operations complete; a target
  // owed none costs the host's call alone. Local completion leaves the
  // marks: the increments may still sit at the origin (publish_owed).
  if (counters_ == MPI_WIN_NULL || !unflushed_.owes_any()) return {};
  switch (call.kind) {
    case SyncKind::flush:
    case SyncKind::unlock:
      if (!unflushed_.take(call.rank)) return {};
      return host_status(PMPI_Win_flush(call.rank, counters_), "MPI_Win_flush (counters)");
    case SyncKind::flush_local:
      if (!unflushed_.owes(call.rank)) return {};
      return host_status(PMPI_Win_flush_local(call.rank, counters_),
                         "MPI_Win_flush_local (counters)");
    case SyncKind::flush_local_all:
      return host_status(PMPI_Win_flush_local_all(counters_), "MPI_Win_flush_local_all (counters)");
    case SyncKind::flush_all:
    case SyncKind::unlock_all:
      unflushed_.take_all();
      return host_status(PMPI_Win_flush_all(counters_), "MPI_Win_flush_all (counters)");
    default: return {};
  }
}

Status PmpiModule::after_sync(const SyncCall &call) {
  // Only epoch ends matter: increments owed by the epoch's data. A fence
  // sends increments anywhere; PSCW applies them to this rank's counters.
  return deferred_.settle_epoch_end(
      call,
      [this](int target, int idx, const std::int64_t *by) { return increment(target, idx, by); },
      [this, &call] {
        if (call.kind == SyncKind::fence)
          return host_status(PMPI_Win_flush_all(counters_), "MPI_Win_flush_all (counters)");
        return host_status(PMPI_Win_flush(window_.rank(), counters_), "MPI_Win_flush (counters)");
      });
}

}  // namespace mpinotify::pmpi
