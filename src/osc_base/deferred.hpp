// Notifications whose data moved through the host MPI inside an
// active-target epoch. No flush is allowed there, so the increment waits
// for the epoch's end:
// - fence: once every rank has returned from the host fence, all data of the
//   epoch is complete at every target; the increments follow, and nobody
//   leaves the fence before they landed;
// - PSCW: MPI_Win_complete says nothing about the target, so the origin
//   sends the increments in one message per target, which the target
//   applies once MPI_Win_wait (or a successful MPI_Win_test) shows its
//   exposure epoch ended, hence the data complete.
// Shared by every backend whose data can go through the host.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "osc_core/epochs.hpp"
#include "osc_core/module.hpp"

namespace mpinotify {

class Window;

class DeferredNotifications {
 public:
  // Issues `amount` increments of counter idx at target; the pointer stays
  // valid until the matching Flush returns.
  using Increment = std::function<Status(int target, int idx, const std::int64_t *amount)>;
  // Makes every issued increment visible at its target.
  using Flush = std::function<Status()>;

  explicit DeferredNotifications(Window &window) : window_(window) {}

  // An operation to `target` in a fence or PSCW epoch owes an increment.
  void add(EpochMode mode, int target, int idx);

  // After any synchronisation call (a backend's after_sync): at the end of
  // a fence or PSCW epoch, settles what it owes with settle_fence,
  // send_pscw or receive_pscw; nothing for other calls (which then build
  // no std::function: flushes and unlocks pass here on every call).
  template <class IncrementFn, class FlushFn>
  Status settle_epoch_end(const SyncCall &call, IncrementFn &&increment, FlushFn &&flush) {
    switch (call.kind) {
      case SyncKind::fence: return settle_fence(call, increment, flush);
      case SyncKind::complete: return send_pscw();
      case SyncKind::wait:
      case SyncKind::test: return call.completed() ? receive_pscw(increment, flush) : Status{};
      default: return {};
    }
  }

  // After the host's MPI_Win_fence returned (collective).
  Status settle_fence(const SyncCall &call, const Increment &increment, const Flush &flush);
  // After the host's MPI_Win_complete returned.
  Status send_pscw();
  // After MPI_Win_wait, or MPI_Win_test that ended the epoch: applies what
  // every origin of the exposure epoch sent, to this process's counters.
  Status receive_pscw(const Increment &increment, const Flush &flush);
  // Waits for the messages still being sent (before the window goes).
  Status finish();

 private:
  // (target, idx) -> increments owed.
  using Owed = std::map<std::pair<int, int>, std::int64_t>;
  Status reap_sends(bool wait);

  Window &window_;
  std::mutex mutex_;
  Owed fence_;
  Owed pscw_;
  std::vector<MPI_Request> sends_;
  std::vector<std::vector<std::int64_t>> send_buffers_;
};

}  // namespace mpinotify
