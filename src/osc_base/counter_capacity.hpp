// Counter-storage bookkeeping every backend shares (SEMANTICS 2.2-2.4; the
// order osc_core drives it in is in osc_core/module.hpp): how many counters
// this rank's storage holds, how many a pending growth reserved room for,
// when a request needs new storage, and the clear that a request without
// growth ends in.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "osc_core/module.hpp"

namespace mpinotify {

class CounterCapacity {
 public:
  // For Module::reserve: whether room for `capacity` counters needs new
  // storage (always while there is none: `exists` false). If so, the
  // counters must fit MPINOTIFY_COUNTER_MEMORY_LIMIT at `bytes_per_counter`
  // each (`kind` names the memory in the error), and the room stays
  // reserved until commit or release.
  Status reserve(int capacity, bool exists, std::uint64_t bytes_per_counter, bool &grows,
                 const char *kind = "") {
    grows = capacity > held_ || !exists;
    if (!grows) return {};
    MPINOTIFY_TRY(check_counter_memory(capacity, bytes_per_counter, kind));
    reserved_ = capacity;
    return {};
  }
  // For Module::release_reservation, and a reserve whose own later check
  // failed.
  void release() { reserved_ = 0; }
  // For a commit that grows: the capacity the new storage must have, never
  // below what is held, what was reserved, or `count` (this rank's new
  // count). The reservation is used up.
  std::int64_t grown(std::int64_t count) {
    const std::int64_t capacity = std::max({held_, std::int64_t{reserved_}, count});
    reserved_ = 0;
    return capacity;
  }
  // The storage in use now holds `capacity` counters (0: none).
  void hold(std::int64_t capacity) { held_ = capacity; }
  std::int64_t held() const { return held_; }

 private:
  std::int64_t held_ = 0;
  int reserved_ = 0;
};

// For a commit without growth: counters [0, count) back to zero, `first`
// being counter 0 and `stride_words` the distance between two. Only those
// can be non-zero (count is the old attached count), and nothing adds to
// them meanwhile (quiesce and the agreement came first); peers may read
// them, so each is stored whole.
inline void clear_counters(std::int64_t *first, int count, std::size_t stride_words = 1) {
  for (int i = 0; i < count; ++i)
    std::atomic_ref<std::int64_t>(first[static_cast<std::size_t>(i) * stride_words])
        .store(0, std::memory_order_relaxed);
}

}  // namespace mpinotify
