#include "deferred.hpp"

#include "osc_core/window.hpp"

namespace mpinotify {
namespace {
constexpr int kPscwTag = 0x4e54;  // on the window's private communicator
}  // namespace

void DeferredNotifications::add(EpochMode mode, int target, int idx) {
  std::lock_guard guard(mutex_);
  (mode == EpochMode::fence ? fence_ : pscw_)[{target, idx}] += 1;
}

Status DeferredNotifications::settle_fence(const SyncCall &call, const Increment &increment,
                                           const Flush &flush) {
  // NOPRECEDE is given by all ranks or none: no epoch ends here. Counts
  // are agreed, so every rank takes the same branch.
  if ((call.assert_flags & MPI_MODE_NOPRECEDE) != 0 || !window_.any_counters()) return {};
  Owed owed;
  {
    std::lock_guard guard(mutex_);
    owed.swap(fence_);
  }
  // Every rank has returned from the host fence once this sum is known, so
  // all data of the epoch is complete at every target.
  long long mine = static_cast<long long>(owed.size());
  long long total = 0;
  MPINOTIFY_TRY(host_status(
      PMPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, window_.comm()), "MPI_Allreduce"));
  if (total == 0) return {};
  std::vector<std::int64_t> amounts;
  amounts.reserve(owed.size());  // no reallocation: the pointers handed out stay valid
  for (const auto &[key, amount] : owed) {
    amounts.push_back(amount);
    MPINOTIFY_TRY(increment(key.first, key.second, &amounts.back()));
  }
  MPINOTIFY_TRY(flush());
  // No rank leaves the fence before every increment of the epoch landed.
  return host_status(PMPI_Barrier(window_.comm()), "MPI_Barrier");
}

Status DeferredNotifications::reap_sends(bool wait) {
  std::lock_guard guard(mutex_);
  if (sends_.empty()) return {};
  int done = 0;
  const int n = static_cast<int>(sends_.size());
  if (wait) {
    MPINOTIFY_TRY(host_status(PMPI_Waitall(n, sends_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall"));
    done = 1;
  } else {
    MPINOTIFY_TRY(
        host_status(PMPI_Testall(n, sends_.data(), &done, MPI_STATUSES_IGNORE), "MPI_Testall"));
  }
  if (done != 0) {
    sends_.clear();
    send_buffers_.clear();
  }
  return {};
}

Status DeferredNotifications::send_pscw() {
  if (!window_.any_counters()) return {};
  MPINOTIFY_TRY(reap_sends(false));
  const std::vector<int> targets = window_.epochs().access_group();
  std::lock_guard guard(mutex_);
  Owed owed;
  owed.swap(pscw_);
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
    sends_.push_back(send);
    send_buffers_.push_back(std::move(message));  // the heap buffer stays where it is
  }
  return {};
}

Status DeferredNotifications::receive_pscw(const Increment &increment, const Flush &flush) {
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
  return flush();
}

Status DeferredNotifications::finish() { return reap_sends(true); }

}  // namespace mpinotify
