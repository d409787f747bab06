// How long a backend waits on a peer (MPINOTIFY_PEER_TIMEOUT): over a
// network, a peer that died or a link that went down leaves an operation
// incomplete forever, and the wait must become an error instead of a hang.
#pragma once

#include <chrono>

#include "osc_core/params.hpp"

namespace mpinotify {

class PeerDeadline {
 public:
  explicit PeerDeadline(int seconds = params().peer_timeout) : seconds_(seconds) {}

  // Whether `seconds` passed since the first call (a wait that ends at once
  // never reads the clock). Never, for 0.
  bool passed() {
    if (seconds_ == 0) return false;
    const auto now = std::chrono::steady_clock::now();
    if (!started_) {
      started_ = true;
      start_ = now;
      return false;
    }
    return now - start_ >= std::chrono::seconds(seconds_);
  }
  int seconds() const { return seconds_; }

 private:
  int seconds_;
  bool started_ = false;
  std::chrono::steady_clock::time_point start_{};
};

}  // namespace mpinotify
