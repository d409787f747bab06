// How long a backend waits on a peer (MPINOTIFY_PEER_TIMEOUT): over a
// network, a peer that died or a link that went down leaves an operation
// incomplete forever, and the wait must become an error instead of a hang.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "osc_core/params.hpp"
#include "osc_core/wait_policy.hpp"

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
  // For a loop that polls: counts one round, and every 256th round asks
  // passed(), so a wait that goes on reads the clock now and then only.
  bool passed_after_round() { return ++rounds_ % 256 == 0 && passed(); }
  int seconds() const { return seconds_; }
  // For a wait that takes its limit in whole seconds (PMIx_Get): what is
  // left, at least 1, starting the clock; 0 (no limit) for 0.
  int seconds_left() {
    if (seconds_ == 0) return 0;
    static_cast<void>(passed());
    const auto left = std::chrono::seconds(seconds_) - (std::chrono::steady_clock::now() - start_);
    const auto whole = std::chrono::ceil<std::chrono::seconds>(left).count();
    return whole < 1 ? 1 : static_cast<int>(whole);
  }

 private:
  int seconds_;
  std::uint32_t rounds_ = 0;
  bool started_ = false;
  std::chrono::steady_clock::time_point start_{};
};

// Polls until `done()`, calling `progress()` between tries; false if the
// deadline passed first. The wait policy paces the tries (the peer waited
// for may need this CPU) after the first 64, which never yield: an
// operation of the backend's own usually completes within them (ofi's
// flush over shm at 4 ranks on 2 cores: 15 us a ping-pong when every try
// yields, 7 us with them).
template <class Done, class Progress>
bool progress_until(PeerDeadline &deadline, Done &&done, Progress &&progress) {
  Backoff backoff(64);
  for (;;) {
    if (done()) return true;
    // A yield goes before the progress that may see what happened
    // meanwhile, not between that progress and the next look.
    backoff.pause();
    progress();
    if (deadline.passed_after_round()) return false;
  }
}

// The error text of a wait on `peer` (a window rank, or -1 for "some
// peer") that the deadline ended.
inline std::string timed_out_message(const char *what, int peer, int seconds) {
  const std::string whom = peer >= 0 ? "rank " + std::to_string(peer) : "a peer";
  return std::string(what) + " did not complete in " + std::to_string(seconds) +
         " s (MPINOTIFY_PEER_TIMEOUT): " + whom + " or the link to it is gone";
}

}  // namespace mpinotify
