// sm notified operations: load/store where the target's memory is mapped
// here, the host's RMA otherwise, and a CPU atomic for the counter.
#include <cstring>

#include "osc_base/host_rma.hpp"
#include "osc_core/datatype.hpp"
#include "osc_core/progress.hpp"
#include "sm_module.hpp"

namespace mpinotify::sm {

Status SmModule::notify(const NotifyOp &op, MPI_Request *request) {
  const int target = op.target_rank;
  const EpochMode mode = op.mode;
  // Load/store completes here and now, whatever the epoch.
  bool increment_now = false;
  MPINOTIFY_TRY(memory_.copy(op, window_.comm(), increment_now));
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
  // A zero-byte put may name any displacement: nothing to address.
  if (bytes > 0) std::memmove(memory_.at(target, disp), origin, bytes);
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
