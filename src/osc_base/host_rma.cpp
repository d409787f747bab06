#include "host_rma.hpp"

#include "osc_core/datatype.hpp"
#include "osc_core/window.hpp"

namespace mpinotify {
namespace {

#if MPI_VERSION >= 4
// The host has MPI-4 large-count RMA: hand the counts over as they are.
Status issue(const NotifyOp &op, MPI_Win win) {
  switch (op.kind) {
    case OpKind::put:
      return host_reported(
          PMPI_Put_c(op.origin_addr, op.origin_count, op.origin_type, op.target_rank,
                     op.target_disp, op.target_count, op.target_type, win),
          "MPI_Put");
    case OpKind::get:
      return host_reported(
          PMPI_Get_c(op.result_addr, op.result_count, op.result_type, op.target_rank,
                     op.target_disp, op.target_count, op.target_type, win),
          "MPI_Get");
    case OpKind::accumulate:
      return host_reported(
          PMPI_Accumulate_c(op.origin_addr, op.origin_count, op.origin_type, op.target_rank,
                            op.target_disp, op.target_count, op.target_type, op.op, win),
          "MPI_Accumulate");
    case OpKind::get_accumulate:
      return host_reported(
          PMPI_Get_accumulate_c(op.origin_addr, op.origin_count, op.origin_type, op.result_addr,
                                op.result_count, op.result_type, op.target_rank, op.target_disp,
                                op.target_count, op.target_type, op.op, win),
          "MPI_Get_accumulate");
  }
  return error(Errc::intern, "unknown operation kind");
}
#else
// int-count host: counts above INT_MAX travel as one element of a derived type.
Status issue(const NotifyOp &op, MPI_Win win) {
  IntCount origin;
  IntCount result;
  IntCount target;
  MPINOTIFY_TRY(origin.assign(op.origin_count, op.origin_type));
  MPINOTIFY_TRY(result.assign(op.result_count, op.result_type));
  MPINOTIFY_TRY(target.assign(op.target_count, op.target_type));
  switch (op.kind) {
    case OpKind::put:
      return host_reported(PMPI_Put(op.origin_addr, origin.count(), origin.type(), op.target_rank,
                                    op.target_disp, target.count(), target.type(), win),
                           "MPI_Put");
    case OpKind::get:
      return host_reported(PMPI_Get(op.result_addr, result.count(), result.type(), op.target_rank,
                                    op.target_disp, target.count(), target.type(), win),
                           "MPI_Get");
    case OpKind::accumulate:
      return host_reported(
          PMPI_Accumulate(op.origin_addr, origin.count(), origin.type(), op.target_rank,
                          op.target_disp, target.count(), target.type(), op.op, win),
          "MPI_Accumulate");
    case OpKind::get_accumulate:
      return host_reported(
          PMPI_Get_accumulate(op.origin_addr, origin.count(), origin.type(), op.result_addr,
                              result.count(), result.type(), op.target_rank, op.target_disp,
                              target.count(), target.type(), op.op, win),
          "MPI_Get_accumulate");
  }
  return error(Errc::intern, "unknown operation kind");
}
#endif

}  // namespace

Status host_base_op(const NotifyOp &op, MPI_Win win) { return issue(op, win); }

Status host_data_part(const NotifyOp &op, Window &window, EpochMode mode,
                      DeferredNotifications &deferred, bool &increment_now) {
  increment_now = false;
  MPINOTIFY_TRY(issue(op, window.handle()));
  window.tally(Stat::host_path);
  if (mode != EpochMode::passive) {
    deferred.add(mode, op.target_rank, op.idx);
    return {};
  }
  // The data (or, for gets, the read) must be complete at the target before
  // its counter moves.
  MPINOTIFY_TRY(host_reported(PMPI_Win_flush(op.target_rank, window.handle()), "MPI_Win_flush"));
  increment_now = true;
  return {};
}

}  // namespace mpinotify
