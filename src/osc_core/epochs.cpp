#include "epochs.hpp"

#include <algorithm>
#include <string>

namespace mpinotify {

Status epoch_error(EpochMode mode, int target, bool request_form) {
  if (mode == EpochMode::none)
    return error(Errc::rma_sync, "no access epoch covers rank " + std::to_string(target) +
                                     " (open one with MPI_Win_lock, MPI_Win_lock_all, "
                                     "MPI_Win_fence or MPI_Win_start)");
  (void)request_form;
  return error(Errc::rma_sync,
               "request-based notified operations need a passive-target epoch "
               "(MPI_Win_lock or MPI_Win_lock_all), as MPI_Rput does");
}

Epochs::Epochs(int group_size)
    : size_(group_size),
      locked_(std::make_unique<std::atomic<bool>[]>(
          static_cast<std::size_t>(std::max(group_size, 1)))) {}

EpochMode Epochs::mode_without_lock_all(int target) const {
  if (target >= 0 && target < size_ &&
      locked_[static_cast<std::size_t>(target)].load(std::memory_order_acquire))
    return EpochMode::passive;
  if (access_open_.load(std::memory_order_acquire)) {
    std::lock_guard guard(mutex_);
    if (std::find(access_.begin(), access_.end(), target) != access_.end()) return EpochMode::pscw;
  }
  if (fence_open_.load(std::memory_order_acquire)) return EpochMode::fence;
  return EpochMode::none;
}

void Epochs::apply(const SyncCall &call) {
  auto set_locked = [&](int r, bool value) {
    if (r < 0 || r >= size_) return;
    if (locked_[static_cast<std::size_t>(r)].exchange(value, std::memory_order_acq_rel) != value)
      locked_count_.fetch_add(value ? 1 : -1, std::memory_order_acq_rel);
  };
  switch (call.kind) {
    case SyncKind::lock: set_locked(call.rank, true); break;
    case SyncKind::unlock: set_locked(call.rank, false); break;
    case SyncKind::lock_all: lock_all_.store(true, std::memory_order_release); break;
    case SyncKind::unlock_all: lock_all_.store(false, std::memory_order_release); break;
    case SyncKind::fence:
      fence_open_.store((call.assert_flags & MPI_MODE_NOSUCCEED) == 0, std::memory_order_release);
      break;
    case SyncKind::start: {
      std::lock_guard guard(mutex_);
      access_ = call.group;
      access_open_.store(true, std::memory_order_release);
      break;
    }
    case SyncKind::complete: {
      std::lock_guard guard(mutex_);
      access_open_.store(false, std::memory_order_release);
      access_.clear();
      break;
    }
    case SyncKind::post: {
      std::lock_guard guard(mutex_);
      exposure_ = call.group;
      break;
    }
    case SyncKind::wait:
    case SyncKind::test:
      if (call.completed()) {
        std::lock_guard guard(mutex_);
        exposure_.clear();
      }
      break;
    case SyncKind::flush:
    case SyncKind::flush_all:
    case SyncKind::flush_local:
    case SyncKind::flush_local_all: break;
  }
}

std::vector<int> Epochs::access_group() const {
  std::lock_guard guard(mutex_);
  return access_;
}

std::vector<int> Epochs::locked_targets() const {
  std::vector<int> targets;
  for (int r = 0; r < size_; ++r) {
    if (locked_[static_cast<std::size_t>(r)].load(std::memory_order_acquire)) targets.push_back(r);
  }
  return targets;
}

std::vector<int> Epochs::exposure_group() const {
  std::lock_guard guard(mutex_);
  return exposure_;
}

}  // namespace mpinotify
