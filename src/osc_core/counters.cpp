// SEMANTICS 2: attached counts, growth with agreement, counter access,
// threshold requests.
#include <algorithm>
#include <atomic>
#include <chrono>

#include "agreement.hpp"
#include "osc.hpp"
#include "params.hpp"
#include "progress.hpp"

namespace mpinotify {
namespace {

// Completes once counter `idx` of this process reaches `threshold`, or
// with an error once reading the counter fails, or once a peer stopped
// answering: every MPINOTIFY_PEER_TIMEOUT seconds of waiting, the module
// checks the peers it reached (a peer that is gone never notifies, and
// the wait must then end as the backend's other waits on a peer do).
// It refers to its window without owning it: freeing the window cancels
// the work first (Progress::cancel_window), and nothing polls it after.
class ThresholdWork final : public PendingWork {
 public:
  ThresholdWork(Window &window, int idx, MPI_Count threshold)
      : window_(&window), idx_(idx), threshold_(threshold) {}

  bool poll() override {
    if (done_) return true;
    // Never wait here for a collective that holds the window exclusively.
    auto guard = window_->try_shared_access();
    if (!guard) return false;
    MPI_Count value = 0;
    if (idx_ >= window_->count(window_->rank())) return false;  // lowered since: never
    outcome_ = window_->module().read_counter(idx_, &value);
    done_ = !outcome_.ok() || value >= threshold_;
    return done_;
  }
  // True every MPINOTIFY_PEER_TIMEOUT seconds of polls (the clock read
  // every 1024th).
  bool check_due() override {
    const int seconds = params().peer_timeout;
    if (seconds == 0 || ++polls_ % 1024 != 0) return false;
    const auto now = std::chrono::steady_clock::now();
    if (polls_ == 1024) since_ = now;
    if (now - since_ < std::chrono::seconds(seconds)) return false;
    since_ = now;
    return true;
  }
  bool check_alive() override {
    auto guard = window_->try_shared_access();
    if (!guard) return false;
    outcome_ = window_->module().check_peers();
    done_ = !outcome_.ok();
    return done_;
  }
  Status outcome() const override { return outcome_; }
  const Window *window() const override { return window_; }
  // Others' increments complete it; polling only watches for them.
  bool drives_operations() const override { return false; }
  // Not at MPI_Win_notify_threshold: reading the counter there costs a
  // transfer of its cache line while neighbours' notifications land on it
  // (a halo step's), and a wait reads it again at once (0.09 us of a 0.4
  // us sm halo step at 2 ranks).
  bool poll_at_start() const override { return false; }

 private:
  Window *window_;
  int idx_;
  MPI_Count threshold_;
  Status outcome_;
  bool done_ = false;  // the outcome is final
  std::uint64_t polls_ = 0;
  std::chrono::steady_clock::time_point since_{};
};

// What the ranks of MPI_Win_set_num_notify learn from each other.
struct CountAgreement {
  Verdict verdict;
  RankCounts counts;
  bool counts_known = false;  // false while they differ and are not gathered yet
  bool any_growth = false;
};

// Collective: one allreduce of fixed size carries the verdict (highest
// code, then lowest rank), the growth, and the smallest and largest count.
// Where those agree every rank knows every count, and no rank receives a
// count per rank. Counts that differ where every rank asserted
// mpi_assert_same_num_notifications break the assertion: MPI_ERR_ARG.
Status reduce_counts(Window &window, const Status &local, int count, bool grows,
                     CountAgreement &out) {
  const long long ranks = window.size();
  const long long mine[4] = {
      static_cast<long long>(local.code()) * ranks + (ranks - 1 - window.rank()), grows ? 1 : 0,
      count, -static_cast<long long>(count)};
  long long all[4] = {};
  MPINOTIFY_TRY(host_status(PMPI_Allreduce(mine, all, 4, MPI_LONG_LONG, MPI_MAX, window.comm()),
                            "MPI_Allreduce"));
  if (all[0] >= ranks)
    out.verdict = {static_cast<Errc>(all[0] / ranks), static_cast<int>(ranks - 1 - all[0] % ranks)};
  out.any_growth = all[1] != 0;
  if (all[2] == -all[3]) {
    out.counts = RankCounts(count);
    out.counts_known = true;
    return {};
  }
  if (out.verdict.code == Errc::ok && window.same_counts())
    return error(Errc::arg,
                 "MPI_Win_set_num_notify: every rank asserted "
                 "mpi_assert_same_num_notifications, but the counts passed range from " +
                     std::to_string(-all[3]) + " to " + std::to_string(all[2]));
  return {};
}

// Collective, after reduce_counts found counts that differ: every rank's.
Status gather_counts(Window &window, int count, CountAgreement &out) {
  std::vector<int> counts;
  MPINOTIFY_TRY(allgather_records(window.comm(), count, counts));
  out.counts = RankCounts(std::move(counts));
  out.counts_known = true;
  return {};
}

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
  CountAgreement agreement;
  Status agreed = reduce_counts(window, local, num_notifications, grows, agreement);
  // Every rank saw the same reduction: all gather, or none does.
  if (agreed.ok() && agreement.verdict.code == Errc::ok && !agreement.counts_known)
    agreed = gather_counts(window, num_notifications, agreement);
  if (agreed.ok())
    agreed = agreed_status(local, agreement.verdict, window.rank(), "MPI_Win_set_num_notify");
  if (!agreed.ok()) {
    if (grows) module.release_reservation();
    return agreed;
  }
  MPINOTIFY_TRY(module.commit(agreement.counts, agreement.any_growth));
  // Nobody may increment a counter before its owner has cleared it.
  MPINOTIFY_TRY(host_status(PMPI_Barrier(window.comm()), "MPI_Barrier"));
  window.set_counts(std::move(agreement.counts));
  window.tally(Stat::num_notify_calls);
  if (agreement.any_growth) window.tally(Stat::growths);
  return {};
}

Status get_num_notify(Window &window, int target_rank, int *num_notifications) {
  MPINOTIFY_TRY(window.check_rank(target_rank));
  auto guard = window.shared_access();
  *num_notifications = window.count(target_rank);
  return {};
}

Status notify_threshold(Window &window, int idx, MPI_Count threshold, MPI_Request *request) {
  {
    auto guard = window.shared_access();
    MPINOTIFY_TRY(window.check_index(window.rank(), idx));
  }
  MPINOTIFY_TRY(
      progress().pending_request(std::make_unique<ThresholdWork>(window, idx, threshold), request));
  window.tally(Stat::threshold_requests);
  return {};
}

namespace {

[[gnu::cold]] Status overflow_error(const char *name, MPI_Count count, const TypeShape &shape) {
  return error(Errc::count, std::string(name) + "_count " + std::to_string(count) +
                                " of a type of " + std::to_string(shape.size) + " bytes (extent " +
                                std::to_string(shape.extent) + ") overflows an MPI_Count of bytes");
}

// MPI_ERR_COUNT when `count` elements of `shape` have a byte size or span
// that overflows MPI_Count.
inline Status check_bytes(const char *name, MPI_Count count, const TypeShape &shape) {
  if (representable(shape, count)) [[likely]]
    return {};
  return overflow_error(name, count, shape);
}

// The shape of a buffer's type (that of the target when both name one
// type, the common case), checked as above; into `shape`, but checked from
// where it was found (see find_shape).
inline Status buffer_shape(const char *name, MPI_Count count, MPI_Datatype type, const NotifyOp &op,
                           const TypeShape &target, MPI_Comm comm, TypeShape &shape) {
  if (type == op.target_type) {
    shape = target;
    return check_bytes(name, count, target);
  }
  TypeShape scratch;
  const TypeShape *found = nullptr;
  MPINOTIFY_TRY(find_shape(type, comm, scratch, found));
  shape = *found;
  return check_bytes(name, count, *found);
}

}  // namespace

namespace {

[[gnu::cold]] void tally_operation(Window &window, const NotifyOp &op, bool request_form) {
  constexpr Stat kByKind[] = {Stat::put, Stat::get, Stat::accumulate, Stat::get_accumulate};
  window.tally(kByKind[static_cast<std::size_t>(op.kind)]);
  if (request_form) window.tally(Stat::request_forms);
  window.tally(Stat::bytes, static_cast<std::uint64_t>(op.target_count * op.target_shape.size));
}

}  // namespace

Status notify(Window &window, NotifyOp &op, MPI_Request *request) {
  auto guard = window.shared_access();
  MPINOTIFY_TRY(window.check_index(op.target_rank, op.idx));
  // The checks read the shapes where they were found, not back from `op`:
  // a load from part of a shape just copied into `op` waits for the store
  // (a fifth of a streamed put's time, measured).
  TypeShape scratch;
  const TypeShape *found = nullptr;
  MPINOTIFY_TRY(find_shape(op.target_type, window.comm(), scratch, found));
  const TypeShape &target = *found;
  MPINOTIFY_TRY(check_bytes("target", op.target_count, target));
  op.target_shape = target;
  const bool has_origin = op.kind == OpKind::put || op.kind == OpKind::accumulate ||
                          (op.kind == OpKind::get_accumulate && op.op != MPI_NO_OP);
  if (has_origin)
    MPINOTIFY_TRY(buffer_shape("origin", op.origin_count, op.origin_type, op, target, window.comm(),
                               op.origin_shape));
  if (op.kind == OpKind::get || op.kind == OpKind::get_accumulate)
    MPINOTIFY_TRY(buffer_shape(op.kind == OpKind::get ? "origin" : "result", op.result_count,
                               op.result_type, op, target, window.comm(), op.result_shape));
  if (window.flavor() == Flavor::dynamic) {
    MPINOTIFY_TRY(check_attached(window, op));
  } else {
    MPINOTIFY_TRY(window.check_target_range(op, target));
  }
  // Every backend completes an operation by its epoch, and none may start
  // one that no epoch covers.
  op.mode = window.epochs().mode_for(op.target_rank);
  MPINOTIFY_TRY(require_epoch(op.mode, op.target_rank, request != nullptr));
  MPINOTIFY_TRY(window.module().notify(op, request));
  if (stats_enabled) [[unlikely]]
    tally_operation(window, op, request != nullptr);
  return {};
}

}  // namespace mpinotify
