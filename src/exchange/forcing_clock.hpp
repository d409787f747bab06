// When a waiting receive must be forced (contract point 6): once no
// allocation has succeeded for the allocation timeout, counted from the
// last success or, if nothing was waiting then, from the first refusal.
// Each forcing restarts the count, so forced allocations come at most one
// per timeout (one per round with a zero timeout).
#pragma once

#include <chrono>
#include <optional>

namespace mpinotify::detail {

class ForcingClock {
 public:
  using Clock = std::chrono::steady_clock;

  explicit ForcingClock(std::chrono::nanoseconds timeout) noexcept : timeout_(timeout) {}

  // After one round of MAY_FAIL attempts over every waiting message:
  // whether one of those still waiting must now be forced.
  bool after_round(bool any_succeeded, bool any_waiting, Clock::time_point now) noexcept {
    if (!any_waiting) {
      waiting_since_.reset();
      return false;
    }
    if (any_succeeded || !waiting_since_) waiting_since_ = now;
    return now - *waiting_since_ >= timeout_;
  }

  // After a forced allocation, which counts as a success.
  void after_forced(bool any_waiting, Clock::time_point now) noexcept {
    if (any_waiting) {
      waiting_since_ = now;
    } else {
      waiting_since_.reset();
    }
  }

 private:
  std::chrono::nanoseconds timeout_;
  std::optional<Clock::time_point> waiting_since_;
};

}  // namespace mpinotify::detail
