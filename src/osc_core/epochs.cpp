#include "epochs.hpp"

#include <algorithm>
#include <string>

namespace mpinotify {

Status require_epoch(EpochMode mode, int target, bool request_form) {
  if (mode == EpochMode::none)
    return error(Errc::rma_sync, "no access epoch covers rank " + std::to_string(target) +
                                     " (open one with MPI_Win_lock, MPI_Win_lock_all, "
                                     "MPI_Win_fence or MPI_Win_start)");
  if (request_form && mode != EpochMode::passive)
    return error(Errc::rma_sync,
                 "request-based notified operations need a passive-target epoch "
                 "(MPI_Win_lock or MPI_Win_lock_all), as MPI_Rput does");
  return {};
}

EpochMode Epochs::mode_for(int target) const {
  std::lock_guard guard(mutex_);
  if (lock_all_) return EpochMode::passive;
  if (target >= 0 && static_cast<std::size_t>(target) < locked_.size() &&
      locked_[static_cast<std::size_t>(target)] != 0)
    return EpochMode::passive;
  if (access_open_ && std::find(access_.begin(), access_.end(), target) != access_.end())
    return EpochMode::pscw;
  if (fence_open_) return EpochMode::fence;
  return EpochMode::none;
}

void Epochs::apply(const SyncCall &call) {
  std::lock_guard guard(mutex_);
  auto in_range = [&](int r) { return r >= 0 && static_cast<std::size_t>(r) < locked_.size(); };
  switch (call.kind) {
    case SyncKind::lock:
      if (in_range(call.rank)) locked_[static_cast<std::size_t>(call.rank)] = 1;
      break;
    case SyncKind::unlock:
      if (in_range(call.rank)) locked_[static_cast<std::size_t>(call.rank)] = 0;
      break;
    case SyncKind::lock_all: lock_all_ = true; break;
    case SyncKind::unlock_all: lock_all_ = false; break;
    case SyncKind::fence: fence_open_ = (call.assert_flags & MPI_MODE_NOSUCCEED) == 0; break;
    case SyncKind::start:
      access_open_ = true;
      access_ = call.group;
      break;
    case SyncKind::complete:
      access_open_ = false;
      access_.clear();
      break;
    case SyncKind::post: exposure_ = call.group; break;
    case SyncKind::wait: exposure_.clear(); break;
    case SyncKind::test:
      if (call.completed()) exposure_.clear();
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

bool Epochs::lock_all_open() const {
  std::lock_guard guard(mutex_);
  return lock_all_;
}

std::vector<int> Epochs::locked_targets() const {
  std::lock_guard guard(mutex_);
  std::vector<int> targets;
  for (std::size_t r = 0; r < locked_.size(); ++r) {
    if (locked_[r] != 0) targets.push_back(static_cast<int>(r));
  }
  return targets;
}

std::vector<int> Epochs::exposure_group() const {
  std::lock_guard guard(mutex_);
  return exposure_;
}

}  // namespace mpinotify
