// Increments an origin owes but has not yet made visible.
//
// A blocking notified operation completes, data and notification together,
// at the synchronisation call that completes its base operation (SEMANTICS
// 3.6). So a backend may gather the increments of a stream of operations at
// the origin and publish them there, one atomic per counter instead of one
// per operation: the target's counter line then stops bouncing between
// the cores on every message (sm), and a network sends one atomic for a
// burst of puts (ucx).
//
// A small open-addressing table, safe for concurrent callers: a slot is
// claimed once for a (target, idx) pair with a compare-and-swap and then
// only counted into; publishing takes each count with an exchange. When no
// slot is free, the caller increments at the target at once.
//
// Ordering: the data of an operation is written before its slot count is
// raised (release); a publisher's exchange (acquire) sees it, and its
// increment of the target counter (release) passes it on to the reader.
#pragma once

#include <atomic>
#include <cstdint>

namespace mpinotify {

class PendingIncrements {
 public:
  // `concurrent`: callers may add and drain at the same time (the program
  // asked for MPI_THREAD_MULTIPLE). Otherwise one thread at a time uses the
  // table, and plain loads and stores replace the locked instructions,
  // which are most of the cost of a streamed put.
  explicit PendingIncrements(bool concurrent = true) : concurrent_(concurrent) {}

  // Counts one increment of counter idx at target; false when the table
  // has no room (the caller then increments at the target itself).
  bool add(int target, int idx) {
    const std::uint64_t key =
        (static_cast<std::uint64_t>(static_cast<std::uint32_t>(target)) << 32 |
         static_cast<std::uint32_t>(idx)) +
        1;
    std::size_t slot = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> 58);
    for (int probe = 0; probe < kProbes; ++probe, slot = (slot + 1) % kSlots) {
      Slot &s = slots_[slot];
      std::uint64_t owner = s.key.load(std::memory_order_acquire);
      if (owner == 0 && claim(s, owner, key)) {
        owner = key;
        set_bits(claimed_, std::uint64_t{1} << slot);
      }
      if (owner == key) {
        if (concurrent_)
          s.count.fetch_add(1, std::memory_order_release);
        else
          s.count.store(s.count.load(std::memory_order_relaxed) + 1, std::memory_order_release);
        any_.store(true, std::memory_order_release);
        return true;
      }
    }
    return false;
  }

  bool any() const { return any_.load(std::memory_order_acquire); }

  // Hands every count gathered so far to `publish(target, idx, amount)`.
  template <class Publish>
  void drain(Publish &&publish) {
    if (!take(any_, false)) return;
    // Only claimed slots: a drain after a single put reads one, not all.
    for (std::uint64_t left = claimed_.load(std::memory_order_acquire); left != 0;
         left &= left - 1) {
      Slot &s = slots_[static_cast<std::size_t>(__builtin_ctzll(left))];
      const std::uint64_t key = s.key.load(std::memory_order_acquire);
      if (key == 0) continue;
      const std::int64_t amount = take(s.count, std::int64_t{0});
      if (amount == 0) continue;
      const std::uint64_t pair = key - 1;
      publish(static_cast<int>(pair >> 32), static_cast<int>(pair & 0xffffffffU), amount);
    }
  }

  // Forgets every slot; only when nobody else uses the table (the counts
  // must have been drained).
  void clear() {
    for (Slot &s : slots_) {
      s.key.store(0, std::memory_order_relaxed);
      s.count.store(0, std::memory_order_relaxed);
    }
    claimed_.store(0, std::memory_order_relaxed);
    any_.store(false, std::memory_order_release);
  }

  static constexpr std::size_t kSlots = 64;  // at most this many pairs per drain

 private:
  static constexpr int kProbes = 4;

  struct alignas(64) Slot {
    std::atomic<std::uint64_t> key{0};  // (target << 32 | idx) + 1; 0: free
    std::atomic<std::int64_t> count{0};
  };
  bool claim(Slot &s, std::uint64_t &owner, std::uint64_t key) {
    if (concurrent_) return s.key.compare_exchange_strong(owner, key, std::memory_order_acq_rel);
    s.key.store(key, std::memory_order_relaxed);
    return true;
  }
  void set_bits(std::atomic<std::uint64_t> &word, std::uint64_t bits) {
    if (concurrent_)
      word.fetch_or(bits, std::memory_order_release);
    else
      word.store(word.load(std::memory_order_relaxed) | bits, std::memory_order_release);
  }
  // The value of `a`, replaced by `fresh`.
  template <class T>
  T take(std::atomic<T> &a, T fresh) {
    if (concurrent_) return a.exchange(fresh, std::memory_order_acq_rel);
    const T old = a.load(std::memory_order_acquire);
    a.store(fresh, std::memory_order_relaxed);
    return old;
  }

  static_assert(kSlots == 64, "claimed_ has one bit per slot");
  Slot slots_[kSlots];
  std::atomic<std::uint64_t> claimed_{0};  // bit s: slot s has an owner
  std::atomic<bool> any_{false};
  bool concurrent_;
};

}  // namespace mpinotify
