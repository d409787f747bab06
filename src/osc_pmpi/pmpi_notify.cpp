// pmpi notified operations and the synchronisation that completes them.
#include "osc_core/host_rma.hpp"
#include "osc_core/progress.hpp"
#include "pmpi_module.hpp"

namespace mpinotify::pmpi {
namespace {
constexpr int kPscwTag = 0x4e54;  // on the window's private communicator
const std::int64_t kOne = 1;
}  // namespace

Status PmpiModule::increment(int target, int idx, const std::int64_t *amount) {
  MPINOTIFY_TRY(host_status(
      PMPI_Accumulate(amount, 1, MPI_INT64_T, target, idx, 1, MPI_INT64_T, MPI_SUM, counters_),
      "MPI_Accumulate (counter)"));
  unflushed_.fetch_add(1, std::memory_order_relaxed);
  return {};
}

Status PmpiModule::notify(const NotifyOp &op, MPI_Request *request) {
  const int target = op.target_rank;
  const EpochMode mode = window_.epochs().mode_for(target);
  if (mode == EpochMode::none)
    return error(Errc::rma_sync, "no access epoch covers rank " + std::to_string(target) +
                                     " (open one with MPI_Win_lock, MPI_Win_lock_all, "
                                     "MPI_Win_fence or MPI_Win_start)");
  if (request != nullptr && mode != EpochMode::passive)
    return error(Errc::rma_sync,
                 "request-based notified operations need a passive-target epoch "
                 "(MPI_Win_lock or MPI_Win_lock_all), as MPI_Rput does");
  MPINOTIFY_TRY(host_base_op(op, window_.handle()));
  if (mode == EpochMode::passive) {
    // The data (or, for gets, the read) must be complete at the target
    // before its counter moves.
    MPINOTIFY_TRY(host_reported(PMPI_Win_flush(target, window_.handle()), "MPI_Win_flush"));
    MPINOTIFY_TRY(increment(target, op.idx, &kOne));
    if (request == nullptr) return {};
    // The request completes with the increment delivered, so the target
    // sees it without this process entering MPI again.
    MPINOTIFY_TRY(host_status(PMPI_Win_flush(target, counters_), "MPI_Win_flush (counters)"));
    return mpinotify::progress().completed_request(request);
  }
  std::lock_guard guard(deferred_mutex_);
  Deferred &owed = mode == EpochMode::fence ? fence_deferred_ : pscw_deferred_;
  owed[{target, op.idx}] += 1;
  return {};
}

Status PmpiModule::before_sync(const SyncCall &call) {
  // Increments complete where the user's operations complete.
  if (counters_ == MPI_WIN_NULL || unflushed_.load(std::memory_order_relaxed) == 0) return {};
  switch (call.kind) {
    case SyncKind::flush:
    case SyncKind::unlock:
      return host_status(PMPI_Win_flush(call.rank, counters_), "MPI_Win_flush (counters)");
    case SyncKind::flush_local:
      return host_status(PMPI_Win_flush_local(call.rank, counters_),
                         "MPI_Win_flush_local (counters)");
    case SyncKind::flush_local_all:
      return host_status(PMPI_Win_flush_local_all(counters_), "MPI_Win_flush_local_all (counters)");
    case SyncKind::flush_all:
    case SyncKind::unlock_all:
      unflushed_.store(0, std::memory_order_relaxed);
      return host_status(PMPI_Win_flush_all(counters_), "MPI_Win_flush_all (counters)");
    default: return {};
  }
}

Status PmpiModule::after_sync(const SyncCall &call) {
  switch (call.kind) {
    case SyncKind::fence: return settle_fence(call);
    case SyncKind::complete: return send_pscw_increments();
    case SyncKind::wait: return receive_pscw_increments();
    case SyncKind::test: return call.completed() ? receive_pscw_increments() : Status{};
    default: return {};
  }
}

Status PmpiModule::settle_fence(const SyncCall &call) {
  // NOPRECEDE is given by all ranks or none: no epoch ends here.
  if ((call.assert_flags & MPI_MODE_NOPRECEDE) != 0 || !window_.any_counters()) return {};
  Deferred owed;
  {
    std::lock_guard guard(deferred_mutex_);
    owed.swap(fence_deferred_);
  }
  // Every rank has returned from the host fence once this sum is known, so
  // all data of the epoch is complete at every target.
  long long mine = static_cast<long long>(owed.size());
  long long total = 0;
  MPINOTIFY_TRY(host_status(
      PMPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, window_.comm()), "MPI_Allreduce"));
  if (total == 0) return {};
  std::vector<std::int64_t> amounts;
  amounts.reserve(owed.size());
  for (const auto &[key, amount] : owed) {
    amounts.push_back(amount);
    MPINOTIFY_TRY(increment(key.first, key.second, &amounts.back()));
  }
  MPINOTIFY_TRY(host_status(PMPI_Win_flush_all(counters_), "MPI_Win_flush_all (counters)"));
  // No rank leaves the fence before every increment of the epoch landed.
  return host_status(PMPI_Barrier(window_.comm()), "MPI_Barrier");
}

Status PmpiModule::reap_pscw_sends(bool wait) {
  std::lock_guard guard(deferred_mutex_);
  if (pscw_sends_.empty()) return {};
  int done = 0;
  const int n = static_cast<int>(pscw_sends_.size());
  if (wait) {
    MPINOTIFY_TRY(
        host_status(PMPI_Waitall(n, pscw_sends_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall"));
    done = 1;
  } else {
    MPINOTIFY_TRY(host_status(PMPI_Testall(n, pscw_sends_.data(), &done, MPI_STATUSES_IGNORE),
                              "MPI_Testall"));
  }
  if (done != 0) {
    pscw_sends_.clear();
    pscw_buffers_.clear();
  }
  return {};
}

Status PmpiModule::send_pscw_increments() {
  if (!window_.any_counters()) return {};
  MPINOTIFY_TRY(reap_pscw_sends(false));
  const std::vector<int> targets = window_.epochs().access_group();
  std::lock_guard guard(deferred_mutex_);
  Deferred owed;
  owed.swap(pscw_deferred_);
  // One message per target of the epoch, empty or not: the target expects
  // one from each origin of its exposure epoch. Pairs of (idx, amount).
  for (const int target : targets) {
    std::vector<std::int64_t> message;
    for (auto it = owed.lower_bound({target, -1}); it != owed.end() && it->first.first == target;
         ++it) {
      message.push_back(it->first.second);
      message.push_back(it->second);
    }
    MPI_Request send = MPI_REQUEST_NULL;
    MPINOTIFY_TRY(host_status(PMPI_Isend(message.data(), static_cast<int>(message.size()),
                                         MPI_INT64_T, target, kPscwTag, window_.comm(), &send),
                              "MPI_Isend"));
    pscw_sends_.push_back(send);
    pscw_buffers_.push_back(std::move(message));  // the heap buffer stays where it is
  }
  return {};
}

Status PmpiModule::receive_pscw_increments() {
  if (!window_.any_counters()) return {};
  const int me = window_.rank();
  std::vector<std::vector<std::int64_t>> messages;  // alive until the flush below
  for (const int origin : window_.epochs().exposure_group()) {
    MPI_Status status;
    MPINOTIFY_TRY(host_status(PMPI_Probe(origin, kPscwTag, window_.comm(), &status), "MPI_Probe"));
    int n = 0;
    PMPI_Get_count(&status, MPI_INT64_T, &n);
    std::vector<std::int64_t> &message = messages.emplace_back(static_cast<std::size_t>(n));
    MPINOTIFY_TRY(host_status(PMPI_Recv(message.data(), n, MPI_INT64_T, origin, kPscwTag,
                                        window_.comm(), MPI_STATUS_IGNORE),
                              "MPI_Recv"));
    for (std::size_t i = 0; i + 1 < message.size(); i += 2)
      MPINOTIFY_TRY(increment(me, static_cast<int>(message[i]), &message[i + 1]));
  }
  if (messages.empty()) return {};
  return host_status(PMPI_Win_flush(me, counters_), "MPI_Win_flush (counters)");
}

}  // namespace mpinotify::pmpi
