// The shared-memory backend: every rank of the window on one node.
//
// Counters live in shared memory and are updated with CPU atomics on the
// mapped memory; nothing about a counter needs the host MPI. An
// MPI_Win_allocate window's first counters follow each rank's memory in the
// host's shared allocation (sm_backend.cpp); other windows' first counters,
// and every window's counters after a growth, live in one shared segment
// per window (sm_segment.hpp). Data moves by direct load/store where the target's
// window memory is mapped here (MPI_Win_allocate_shared windows, and
// MPI_Win_allocate windows, which this backend places in shared memory);
// otherwise, and for the accumulate family, through the host MPI.
//
// Increments of blocking operations are gathered at the origin and made
// visible at the next synchronisation call (osc_base/pending_increments.hpp),
// except the first since the last synchronisation call or poll of this
// process, which is made at once: a lone put (a ping-pong) notifies before
// its put returns, a burst of puts pays one increment at once and one per
// counter at the end. Those of request-based operations at once.
//
// Ordering, per operation class (readers load counters with acquire):
// - put, direct: the stores into the target's memory, then a fetch_add with
//   release order on the counter. Release keeps every earlier store before
//   the increment; a reader that acquires the new value sees the data.
// - get, direct: the loads from the target's memory, then the release
//   fetch_add. Release also keeps earlier loads before the store, so the
//   target can overwrite its memory once it sees the count: the read is over.
// - accumulate family and windows whose memory is not mapped: the host's
//   operation, completed at the target by a flush (passive epochs) or by the
//   epoch's end (osc_base/deferred.hpp), happens before the release
//   fetch_add. Accumulates therefore stay as atomic as the host makes them
//   with respect to plain MPI_Accumulate calls on the window: both are the
//   host's own accumulates.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "osc_base/counter_capacity.hpp"
#include "osc_base/deferred.hpp"
#include "osc_base/pending_increments.hpp"
#include "osc_base/shared_memory_window.hpp"
#include "osc_core/host_nudge.hpp"
#include "osc_core/module.hpp"
#include "osc_core/window.hpp"
#include "sm_segment.hpp"

namespace mpinotify::sm {

// Bytes between two counters: a cache line, so that counters written by
// different origins never share one, unless MPINOTIFY_SM_COUNTER_STRIDE says
// otherwise (docs/performance.md compares).
std::uint32_t counter_stride();

// Where a rank's counters start when they follow its `size` bytes of window
// memory: the next multiple of `stride`, so that they share no cache line
// with the data (just `size` for stride 0: no counters follow).
inline MPI_Aint tail_counters_offset(MPI_Aint size, std::uint32_t stride) {
  if (stride == 0) return size;
  return (size + stride - 1) / stride * stride;
}

class SmModule final : public Module {
 public:
  explicit SmModule(Window &window);
  ~SmModule() override;

  Status notify(const NotifyOp &op, MPI_Request *request) override;
  Status read_counter(int idx, MPI_Count *value) override;
  Status reset_counter(int idx, MPI_Count *previous) override;

  Status quiesce() override {
    publish();
    return {};
  }
  // Where the target's memory is mapped here: a store now, the increment
  // gathered like notify()'s.
  bool put_contiguous(int target, MPI_Aint disp, const void *origin, std::size_t bytes, int idx,
                      Status &status) override;
  Status reserve(int capacity, bool &grows) override;
  void release_reservation() override { capacity_.release(); }
  Status commit(const RankCounts &new_counts, bool any_growth) override;

  Status before_sync(const SyncCall & /*call*/) override {
    publish();  // every synchronisation call completes the notifications before it
    return {};
  }
  Status after_sync(const SyncCall &call) override;
  Status destroy() override;

  std::uint64_t region_stamp(int target) override;
  Status fetch_regions(int target, RegionTable &copy) override;

 private:
  std::int64_t &counter(int rank, int idx) const {
    return counters_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(idx) * stride_words_];
  }
  // Inline: a lone put's increment is on every one-way message's path.
  void increment(int rank, int idx, std::int64_t amount) const {
    std::atomic_ref<std::int64_t>(counter(rank, idx)).fetch_add(amount, std::memory_order_release);
  }
  // The increment of a blocking form: at once when it is the first since
  // the last publish, otherwise gathered (unless the table is full).
  void count_blocking(int target, int idx) {
    if (!burst_.load(std::memory_order_relaxed))
      burst_.store(true, std::memory_order_relaxed);
    else if (pending_.add(target, idx))
      return;
    increment(target, idx, 1);
  }
  // Makes every gathered increment visible at its target.
  void publish() {
    if (burst_.load(std::memory_order_relaxed)) burst_.store(false, std::memory_order_relaxed);
    if (!pending_.any()) return;
    pending_.drain(
        [this](int rank, int idx, std::int64_t amount) { increment(rank, idx, amount); });
  }
  // Before this process reads or resets one of its own counters: a process
  // that polls publishes what it owes others, and sees its own increments
  // (SEMANTICS 3.10). Data that moves through the host may need this
  // process's progress to complete, and its origin increments only after
  // that.
  void before_own_access() {
    publish();
    polls_.tick(window_.comm());
  }
  // Collective: a new segment laid out for `capacities` (with rank 0's
  // `stride`), mapped by every rank or, agreed, by none.
  Status share_segment(const std::vector<std::int64_t> &capacities, std::uint32_t stride,
                       const char *what, std::unique_ptr<Segment> &out);
  // Dynamic windows: every rank's RegionTable in one segment (sm_regions.cpp).
  Status share_region_tables();
  RegionTable &region_table(int rank) const {
    return *reinterpret_cast<RegionTable *>(regions_->counters(rank));
  }
  void point_at(const Segment &segment);
  // The first counters, where they follow each rank's window memory.
  void point_at_tails(std::int64_t capacity);
  bool counters_follow_memory() const {
    return window_.tail_counter_stride() != 0 && counters_.empty();
  }

  Window &window_;
  DeferredNotifications deferred_;
  PendingIncrements pending_;
  // A blocking form incremented at once since the last publish: later ones
  // gather. (Relaxed: a race only picks the other of two correct ways.)
  std::atomic<bool> burst_{false};
  std::unique_ptr<Segment> segment_;
  std::unique_ptr<Segment> regions_;      // dynamic windows: the region tables
  std::vector<std::int64_t *> counters_;  // counter 0 of each rank, in this mapping
  std::size_t stride_words_ = 1;
  CounterCapacity capacity_;  // this rank's
  // Window memory of each rank as mapped here; empty when not shared.
  SharedMemoryWindow memory_;
  // Polls since this process last made the host progress (see
  // before_own_access).
  mutable HostNudge<256> polls_;  // own-counter accesses
};

}  // namespace mpinotify::sm
