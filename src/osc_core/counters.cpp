// SEMANTICS 2: attached counts, growth with agreement, counter access,
// threshold requests.
#include <algorithm>
#include <atomic>

#include "agreement.hpp"
#include "osc.hpp"
#include "progress.hpp"

namespace mpinotify {
namespace {

// One rank's side of MPI_Win_set_num_notify, gathered on every rank.
struct CountRecord {
  Errc verdict;
  int count;
  int grows;
};

// Completes once counter `idx` of this process reaches `threshold`.
class ThresholdWork final : public PendingWork {
 public:
  ThresholdWork(std::shared_ptr<Window> window, int idx, MPI_Count threshold)
      : window_(std::move(window)), idx_(idx), threshold_(threshold) {}

  bool poll() override {
    // Never wait here for a collective that holds the window exclusively.
    auto guard = window_->try_shared_access();
    if (!guard) return false;
    MPI_Count value = 0;
    if (idx_ >= window_->count(window_->rank())) return false;  // lowered since: never
    if (!window_->module().read_counter(idx_, &value).ok()) return false;
    return value >= threshold_;
  }
  const Window *window() const override { return window_.get(); }

 private:
  std::shared_ptr<Window> window_;
  int idx_;
  MPI_Count threshold_;
};

}  // namespace

Status set_num_notify(Window &window, int num_notifications) {
  auto guard = window.exclusive_access();
  Module &module = window.module();
  Status local;
  if (num_notifications < 0) {
    local =
        error(Errc::arg, "num_notifications " + std::to_string(num_notifications) + " is negative");
  } else if (num_notifications > window.limits().num_ub) {
    local = error(Errc::arg, "num_notifications " + std::to_string(num_notifications) +
                                 " exceeds this rank's mpi_assert_max_num_notify " +
                                 std::to_string(window.limits().num_ub));
  }
  // Increments this rank issued must land before the agreement, which is
  // then the barrier after which no old increment is in flight anywhere.
  if (local.ok()) local = module.quiesce();
  bool grows = false;
  if (local.ok()) local = module.reserve(num_notifications, grows);
  std::vector<CountRecord> all;
  const CountRecord mine{local.code(), num_notifications, grows ? 1 : 0};
  Status exchanged = allgather_records(window.comm(), mine, all);
  if (!exchanged.ok()) {
    if (grows) module.release_reservation();
    return exchanged;
  }
  std::vector<Errc> verdicts;
  std::vector<int> counts;
  bool any_growth = false;
  for (const CountRecord &r : all) {
    verdicts.push_back(r.verdict);
    counts.push_back(r.count);
    any_growth = any_growth || r.grows != 0;
  }
  Status agreed =
      agreed_status(local, combine_verdicts(verdicts), window.rank(), "MPI_Win_set_num_notify");
  if (!agreed.ok()) {
    if (grows) module.release_reservation();
    return agreed;
  }
  MPINOTIFY_TRY(module.commit(counts, any_growth));
  // Nobody may increment a counter before its owner has cleared it.
  MPINOTIFY_TRY(host_status(PMPI_Barrier(window.comm()), "MPI_Barrier"));
  window.set_counts(std::move(counts));
  return {};
}

Status get_num_notify(Window &window, int target_rank, int *num_notifications) {
  MPINOTIFY_TRY(window.check_rank(target_rank));
  auto guard = window.shared_access();
  *num_notifications = window.count(target_rank);
  return {};
}

namespace {
// Own counter idx through one of the module's counter slots.
Status access_counter(Window &window, int idx, MPI_Count *out,
                      Status (Module::*slot)(int, MPI_Count *)) {
  auto guard = window.shared_access();
  MPINOTIFY_TRY(window.check_index(window.rank(), idx));
  MPI_Count v = 0;
  MPINOTIFY_TRY((window.module().*slot)(idx, &v));
  // SEMANTICS 2.6: like MPI_Win_sync, the data behind `v` is visible now.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *out = v;
  return {};
}
}  // namespace

Status read_counter(Window &window, int idx, MPI_Count *value) {
  return access_counter(window, idx, value, &Module::read_counter);
}

Status reset_counter(Window &window, int idx, MPI_Count *previous) {
  return access_counter(window, idx, previous, &Module::reset_counter);
}

Status notify_threshold(const std::shared_ptr<Window> &window, int idx, MPI_Count threshold,
                        MPI_Request *request) {
  {
    auto guard = window->shared_access();
    MPINOTIFY_TRY(window->check_index(window->rank(), idx));
  }
  return progress().pending_request(std::make_unique<ThresholdWork>(window, idx, threshold),
                                    request);
}

Status notify(Window &window, NotifyOp &op, MPI_Request *request) {
  auto guard = window.shared_access();
  MPINOTIFY_TRY(window.check_index(op.target_rank, op.idx));
  MPINOTIFY_TRY(type_shape(op.target_type, window.comm(), op.target_shape));
  MPINOTIFY_TRY(window.check_target_range(op, op.target_shape));
  return window.module().notify(op, request);
}

}  // namespace mpinotify
