// sm notified operations: load/store where the target's memory is mapped
// here, the host's RMA otherwise, and a CPU atomic for the counter.
#include <cstring>

#include "osc_base/host_rma.hpp"
#include "osc_core/datatype.hpp"
#include "osc_core/progress.hpp"
#include "sm_module.hpp"

namespace mpinotify::sm {

void SmModule::map_window_memory() {
  if (window_.flavor() != Flavor::shared && !window_.in_shared_memory()) return;
  const int ranks = window_.size();
  std::vector<char *> memory(static_cast<std::size_t>(ranks), nullptr);
  std::vector<int> disp_units(static_cast<std::size_t>(ranks), 1);
  for (int r = 0; r < ranks; ++r) {
    MPI_Aint size = 0;
    void *base = nullptr;
    if (PMPI_Win_shared_query(window_.handle(), r, &size, &disp_units[static_cast<std::size_t>(r)],
                              &base) != MPI_SUCCESS)
      return;  // the host keeps moving the data
    memory[static_cast<std::size_t>(r)] = static_cast<char *>(base);
  }
  memory_ = std::move(memory);
  disp_units_ = std::move(disp_units);
}

Status SmModule::copy_directly(const NotifyOp &op, bool &done) const {
  done = false;
  if (memory_.empty() || (op.kind != OpKind::put && op.kind != OpKind::get)) return {};
  const auto target = static_cast<std::size_t>(op.target_rank);
  char *at = memory_[target] + op.target_disp * disp_units_[target];
  if (op.kind == OpKind::put) {
    return local_copy_fast(op.origin_addr, op.origin_count, op.origin_type, op.origin_shape, at,
                           op.target_count, op.target_type, op.target_shape, window_.comm(), done);
  }
  return local_copy_fast(at, op.target_count, op.target_type, op.target_shape, op.result_addr,
                         op.result_count, op.result_type, op.result_shape, window_.comm(), done);
}

Status SmModule::notify(const NotifyOp &op, MPI_Request *request) {
  const int target = op.target_rank;
  const EpochMode mode = op.mode;
  // Load/store completes here and now, whatever the epoch.
  bool increment_now = false;
  MPINOTIFY_TRY(copy_directly(op, increment_now));
  if (!increment_now) MPINOTIFY_TRY(host_data_part(op, window_, mode, deferred_, increment_now));
  if (!increment_now) return {};  // owed to the end of the epoch
  if (request == nullptr) {
    // Visible at the latest when the operation completes: the next flush,
    // unlock or epoch end publishes it.
    count_blocking(target, op.idx);
    return {};
  }
  // The increment is in the target's memory already: the request is done.
  increment(target, op.idx, 1);
  return mpinotify::progress().completed_request(request);
}

bool SmModule::put_contiguous(int target, MPI_Aint disp, const void *origin, std::size_t bytes,
                              int idx, Status & /*status: stores do not fail*/) {
  if (memory_.empty()) return false;
  const auto t = static_cast<std::size_t>(target);
  // A zero-byte put may name any displacement: nothing to address.
  if (bytes > 0) std::memmove(memory_[t] + disp * disp_units_[t], origin, bytes);
  count_blocking(target, idx);
  return true;
}

Status SmModule::after_sync(const SyncCall &call) {
  // Only epoch ends matter: increments owed by host-moved data. Stores to
  // shared memory need no flush.
  return deferred_.settle_epoch_end(
      call,
      [this](int target, int idx, const std::int64_t *amount) {
        increment(target, idx, *amount);
        return Status{};
      },
      [] { return Status{}; });
}

}  // namespace mpinotify::sm
