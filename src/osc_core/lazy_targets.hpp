// Per-target records a backend makes on a target's first use (an endpoint,
// unpacked remote keys), so that what a rank holds, and what a flush of
// everything walks, grows with the targets it talks to rather than with
// the size of the window's group: the records are found through an
// open-addressing table sized by how many exist, not by the group.
//
// Lookups take no lock: a record is made under mutex() and published with
// a release store of its target into a slot (the record's pointer stored
// first), so a lookup or a walk that sees the target sees the whole
// record. A table that fills past half is copied into one twice its size,
// published the same way; the old one stays readable (a lookup may still
// be probing it) until clear(), which runs only when no other call on the
// table can (growth, freeing). So the table keeps 2 to 4 slots of 16
// bytes per record (8 at least), and the tables it outgrew less than that
// again: 32-128 bytes per record, next to the record itself (for ucx an
// endpoint and unpacked keys of a few hundred bytes).
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace mpinotify {

template <class T>
class LazyTargets {
 public:
  LazyTargets() = default;
  LazyTargets(const LazyTargets &) = delete;
  LazyTargets &operator=(const LazyTargets &) = delete;
  ~LazyTargets() {
    clear([](int, T &) {});
  }

  // The record of `target` (>= 0), or null before its first use.
  T *find(int target) const {
    const Index *index = index_.load(std::memory_order_acquire);
    if (index == nullptr) return nullptr;
    for (std::size_t at = index->home(target);; at = (at + 1) & index->mask) {
      const Slot &slot = index->slots[at];
      const int key = slot.target.load(std::memory_order_acquire);
      if (key == kEmpty) return nullptr;  // first: a target is never kEmpty
      if (key == target) return slot.record.load(std::memory_order_relaxed);
    }
  }
  // Held from a find() that came back empty to the publish() of the record.
  std::mutex &mutex() { return mutex_; }
  // Grows the table if one more record would fill it past half (mutex()
  // held): the only step that allocates, so a caller that must not fail
  // once its record holds resources calls it first.
  void make_room() {
    Index *index = index_.load(std::memory_order_relaxed);
    if (index == nullptr || 2 * (count_.load(std::memory_order_relaxed) + 1) > index->mask + 1)
      grow(index);
  }
  // Publishes `made` as the record of `target` (>= 0), which has none
  // (mutex() held).
  T *publish(int target, std::unique_ptr<T> made) {
    make_room();
    T *record = made.release();
    index_.load(std::memory_order_relaxed)->insert(target, record);
    count_.store(count_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    return record;
  }
  // How many records exist.
  std::size_t count() const { return count_.load(std::memory_order_acquire); }
  // The slots of the table in use (0 before the first record), for
  // measuring what a rank keeps.
  std::size_t slot_count() const {
    const Index *index = index_.load(std::memory_order_acquire);
    return index == nullptr ? 0 : index->mask + 1;
  }
  // f(target, record) for every record published before the call, and
  // perhaps some published meanwhile.
  template <class F>
  void for_each(F &&f) const {
    const Index *index = index_.load(std::memory_order_acquire);
    if (index == nullptr) return;
    for (std::size_t at = 0; at <= index->mask; ++at) {
      const Slot &slot = index->slots[at];
      const int key = slot.target.load(std::memory_order_acquire);
      if (key != kEmpty) f(key, *slot.record.load(std::memory_order_relaxed));
    }
  }
  // Hands every record to release(target, record), then forgets them all
  // and gives back the table. Nothing else may use the table meanwhile.
  template <class F>
  void clear(F &&release) {
    std::unique_ptr<Index> index(index_.exchange(nullptr, std::memory_order_relaxed));
    if (index != nullptr) {
      for (std::size_t at = 0; at <= index->mask; ++at) {
        Slot &slot = index->slots[at];
        const int key = slot.target.load(std::memory_order_relaxed);
        if (key == kEmpty) continue;
        std::unique_ptr<T> record(slot.record.load(std::memory_order_relaxed));
        release(key, *record);
      }
    }
    retired_.clear();
    count_.store(0, std::memory_order_release);
  }

 private:
  static constexpr int kEmpty = -1;
  static constexpr std::size_t kFirstSlots = 8;

  struct Slot {
    std::atomic<int> target{kEmpty};
    std::atomic<T *> record{nullptr};
  };
  struct Index {
    explicit Index(std::size_t slot_count)
        : mask(slot_count - 1),
          shift(32 - std::countr_zero(slot_count)),
          slots(std::make_unique<Slot[]>(slot_count)) {}
    // Fibonacci hashing: neighbours and strided ranks spread over the slots.
    std::size_t home(int target) const {
      return (static_cast<std::uint32_t>(target) * 0x9E3779B9U) >> shift;
    }
    void insert(int target, T *record) {
      std::size_t at = home(target);
      while (slots[at].target.load(std::memory_order_relaxed) != kEmpty) at = (at + 1) & mask;
      slots[at].record.store(record, std::memory_order_relaxed);
      slots[at].target.store(target, std::memory_order_release);
    }
    std::size_t mask;
    int shift;
    std::unique_ptr<Slot[]> slots;
  };

  // A table twice the size of `full` (or the first), holding its records,
  // published; `full` stays readable until clear().
  void grow(Index *full) {
    auto bigger = std::make_unique<Index>(full == nullptr ? kFirstSlots : 2 * (full->mask + 1));
    if (full != nullptr) {
      retired_.reserve(retired_.size() + 1);  // may throw: before anything changed
      for (std::size_t at = 0; at <= full->mask; ++at) {
        const Slot &slot = full->slots[at];
        const int key = slot.target.load(std::memory_order_relaxed);
        if (key != kEmpty) bigger->insert(key, slot.record.load(std::memory_order_relaxed));
      }
      retired_.emplace_back(full);
    }
    index_.store(bigger.release(), std::memory_order_release);
  }

  std::atomic<Index *> index_{nullptr};  // owned
  std::vector<std::unique_ptr<Index>> retired_;
  std::atomic<std::size_t> count_{0};
  std::mutex mutex_;
};

}  // namespace mpinotify
