// Which targets a backend has operations of its own outstanding to, so
// that a program's flush, unlock or fence costs nothing more than the
// host's where the backend owes that target nothing (SEMANTICS 3.9).
//
// A mark is set after the operation went out, and taken before the
// completion that covers it starts: so whoever takes a mark completes
// every operation marked before, also from other threads. A mark left set
// after take_all() only costs one needless completion later.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>

namespace mpinotify {

class OwedTargets {
 public:
  explicit OwedTargets(int group_size)
      : size_(group_size > 0 ? group_size : 0),
        marks_(std::make_unique<std::atomic<bool>[]>(static_cast<std::size_t>(size_ + 1))) {}

  // An operation to `target` went out. Loads first: the common case
  // (already marked) writes no shared cache line.
  void note(int target) {
    std::atomic<bool> &mark = marks_[index(target)];
    if (!mark.load(std::memory_order_relaxed)) mark.store(true, std::memory_order_relaxed);
    if (!any_.load(std::memory_order_relaxed)) any_.store(true, std::memory_order_relaxed);
  }
  // Whether operations to `target` (any target) may be outstanding.
  bool owes(int target) const {
    return any_.load(std::memory_order_relaxed) &&
           marks_[index(target)].load(std::memory_order_relaxed);
  }
  bool owes_any() const { return any_.load(std::memory_order_relaxed); }
  // As owes(), and forgets the marks: the caller completes them now.
  bool take(int target) {
    return any_.load(std::memory_order_relaxed) &&
           marks_[index(target)].exchange(false, std::memory_order_relaxed);
  }
  bool take_all() { return any_.exchange(false, std::memory_order_relaxed); }

 private:
  // Ranks outside the group share one spare mark (callers check ranks).
  std::size_t index(int target) const {
    return target >= 0 && target < size_ ? static_cast<std::size_t>(target)
                                         : static_cast<std::size_t>(size_);
  }

  int size_;
  std::unique_ptr<std::atomic<bool>[]> marks_;
  std::atomic<bool> any_{false};
};

}  // namespace mpinotify
