// Which synchronisation epochs are open on a window at this process, as the
// interceptors saw them. Backends ask it how a notified operation to a
// target will be completed.
#pragma once

#include <mutex>
#include <vector>

#include "module.hpp"

namespace mpinotify {

enum class EpochMode {
  none,     // no access epoch covers the target: the call is erroneous
  passive,  // MPI_Win_lock / lock_all: flush is allowed
  fence,    // between fences: completes at the next MPI_Win_fence
  pscw,     // MPI_Win_start: completes at MPI_Win_complete
};

// MPI_ERR_RMA_SYNC unless an epoch covers the target; request-based forms
// need a passive-target one, as MPI_Rput does.
Status require_epoch(EpochMode mode, int target, bool request_form);

class Epochs {
 public:
  explicit Epochs(int group_size) : locked_(static_cast<std::size_t>(group_size), 0) {}

  // The mode that covers an operation to `target`. Passive first: a program
  // may open a lock epoch after a fence that did not assert NOSUCCEED.
  EpochMode mode_for(int target) const;

  // Records a successful synchronisation call.
  void apply(const SyncCall &call);

  std::vector<int> access_group() const;    // targets of the open MPI_Win_start
  std::vector<int> exposure_group() const;  // origins of the open MPI_Win_post

  // Passive-target epochs still open: MPI_Win_lock_all, and the targets of
  // MPI_Win_lock (for closing what a program left open at MPI_Finalize).
  bool lock_all_open() const;
  std::vector<int> locked_targets() const;

 private:
  mutable std::mutex mutex_;
  std::vector<char> locked_;
  bool lock_all_ = false;
  bool fence_open_ = false;
  bool access_open_ = false;
  std::vector<int> access_;
  std::vector<int> exposure_;
};

}  // namespace mpinotify
