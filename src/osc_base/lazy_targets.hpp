// Per-target records a backend makes on a target's first use (an endpoint,
// unpacked remote keys), so that what a rank holds, and what a flush of
// everything walks, grows with the targets it talks to rather than with
// the size of the window's group.
//
// Lookups take no lock: a record is made under mutex() and published with
// a release store, and stays as it is until clear(), which runs only when
// no other call on the window can (growth, freeing). The targets made so
// far are listed in order of publication: an entry is written before the
// count that covers it is released, so a walk sees whole records only.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>

namespace mpinotify {

template <class T>
class LazyTargets {
 public:
  explicit LazyTargets(int size)
      : size_(size > 0 ? static_cast<std::size_t>(size) : 0),
        records_(std::make_unique<std::atomic<T *>[]>(size_)),
        order_(std::make_unique<int[]>(size_)) {}
  LazyTargets(const LazyTargets &) = delete;
  LazyTargets &operator=(const LazyTargets &) = delete;
  ~LazyTargets() {
    clear([](int, T &) {});
  }

  // The record of `target` (0 <= target < size), or null before its first use.
  T *find(int target) const {
    return records_[static_cast<std::size_t>(target)].load(std::memory_order_acquire);
  }
  // Held from a find() that came back empty to the publish() of the record.
  std::mutex &mutex() { return mutex_; }
  // Publishes `made` as the record of `target`, which has none (mutex() held).
  T *publish(int target, std::unique_ptr<T> made) {
    T *record = made.release();
    const std::size_t count = count_.load(std::memory_order_relaxed);
    order_[count] = target;
    records_[static_cast<std::size_t>(target)].store(record, std::memory_order_release);
    count_.store(count + 1, std::memory_order_release);
    return record;
  }
  // How many records exist.
  std::size_t count() const { return count_.load(std::memory_order_acquire); }
  // f(target, record) for every record published before the call.
  template <class F>
  void for_each(F &&f) const {
    const std::size_t count = count_.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < count; ++i) f(order_[i], *find(order_[i]));
  }
  // Hands every record to release(target, record), then forgets them all.
  // Nothing else may use the table meanwhile.
  template <class F>
  void clear(F &&release) {
    const std::size_t count = count_.load(std::memory_order_relaxed);
    for (std::size_t i = 0; i < count; ++i) {
      std::atomic<T *> &slot = records_[static_cast<std::size_t>(order_[i])];
      std::unique_ptr<T> record(slot.exchange(nullptr, std::memory_order_relaxed));
      release(order_[i], *record);
    }
    count_.store(0, std::memory_order_release);
  }

 private:
  std::size_t size_;
  std::unique_ptr<std::atomic<T *>[]> records_;  // by target
  std::unique_ptr<int[]> order_;                 // targets, in order of publication
  std::atomic<std::size_t> count_{0};
  std::mutex mutex_;
};

}  // namespace mpinotify
