// Which synchronisation epochs are open on a window at this process, as the
// interceptors saw them. Backends ask it how a notified operation to a
// target will be completed.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "module.hpp"

namespace mpinotify {

// MPI_ERR_RMA_SYNC unless an epoch covers the target; request-based forms
// need a passive-target one, as MPI_Rput does.
[[gnu::cold]] Status epoch_error(EpochMode mode, int target, bool request_form);
inline Status require_epoch(EpochMode mode, int target, bool request_form) {
  if (mode == EpochMode::passive || (mode != EpochMode::none && !request_form)) [[likely]]
    return {};
  return epoch_error(mode, target, request_form);
}

// Read on every notified operation, so the flags are atomics read without a
// lock; the groups of PSCW epochs sit behind a mutex.
class Epochs {
 public:
  explicit Epochs(int group_size);

  // The mode that covers an operation to `target`. Passive first: a program
  // may open a lock epoch after a fence that did not assert NOSUCCEED.
  EpochMode mode_for(int target) const {
    if (lock_all_.load(std::memory_order_acquire)) [[likely]]
      return EpochMode::passive;
    return mode_without_lock_all(target);
  }

  // Records a successful synchronisation call.
  void apply(const SyncCall &call);

  std::vector<int> access_group() const;    // targets of the open MPI_Win_start
  std::vector<int> exposure_group() const;  // origins of the open MPI_Win_post

  // Passive-target epochs still open: MPI_Win_lock_all, and the targets of
  // MPI_Win_lock (for closing what a program left open at MPI_Finalize).
  bool lock_all_open() const { return lock_all_.load(std::memory_order_acquire); }
  // Some passive-target epoch is open (where MPI_Win_flush_all is allowed).
  bool passive_open() const {
    return lock_all_open() || locked_count_.load(std::memory_order_acquire) > 0;
  }
  std::vector<int> locked_targets() const;

 private:
  EpochMode mode_without_lock_all(int target) const;

  int size_;
  std::unique_ptr<std::atomic<bool>[]> locked_;
  std::atomic<bool> lock_all_{false};
  std::atomic<int> locked_count_{0};  // targets of open MPI_Win_lock epochs
  std::atomic<bool> fence_open_{false};
  std::atomic<bool> access_open_{false};
  mutable std::mutex mutex_;  // the two groups
  std::vector<int> access_;
  std::vector<int> exposure_;
};

}  // namespace mpinotify
