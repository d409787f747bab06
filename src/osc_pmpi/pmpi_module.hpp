// The portable backend: notified RMA on the host MPI's own RMA alone.
//
// Counters live in a second host window, made with MPI_Win_allocate (Open
// MPI 4.1 with Debian's defaults cannot MPI_Win_create on one process) and
// kept in a passive-target epoch for its whole life. Before the collective
// that makes it, each rank proves locally that the memory is there (the
// memory limit, then a probe allocation), so the agreement sees failures. Increments are MPI_SUM
// accumulates of MPI_INT64_T; reads are MPI_NO_OP fetches. Only SUM and
// NO_OP ever touch a counter, which keeps the counter window inside the
// default accumulate_ops=same_op_no_op promise, and no compare-and-swap is
// used (64-bit CAS crashes Open MPI's osc/rdma on some windows).
//
// Dynamic windows: the range check reads a target's table of attached
// memory with MPI_Get from a third host window (pmpi_regions.cpp).
//
// Ordering: in a passive-target epoch, the data operation is flushed to the
// target before the increment is issued (a round trip per notification).
// In active-target epochs flushing is not allowed, so increments wait for
// the epoch's end (osc_base/deferred.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "osc_base/counter_capacity.hpp"
#include "osc_base/deferred.hpp"
#include "osc_base/directory_readers.hpp"
#include "osc_core/module.hpp"
#include "osc_core/owed_targets.hpp"
#include "osc_core/window.hpp"

namespace mpinotify::pmpi {

class PmpiModule final : public Module {
 public:
  explicit PmpiModule(Window &window);
  ~PmpiModule() override;

  Status notify(const NotifyOp &op, MPI_Request *request) override;
  Status read_counter(int idx, MPI_Count *value) override;
  Status reset_counter(int idx, MPI_Count *previous) override;

  Status quiesce() override;
  Status reserve(int capacity, bool &grows) override;
  void release_reservation() override;
  Status commit(const RankCounts &new_counts, bool any_growth) override;

  Status before_sync(const SyncCall &call) override;
  Status after_sync(const SyncCall &call) override;
  Status destroy() override;

  // Dynamic windows (pmpi_regions.cpp): every rank's RegionTable in a
  // host window of its own, followed by one word per rank that rank r
  // bumps at every peer that read its table when it detaches memory, and
  // by those readers' marks.
  void attached(void *base, MPI_Aint size) override;
  void detaching(const void *base) override;
  std::uint64_t region_stamp(int target) override;
  Status fetch_regions(int target, RegionTable &copy) override;

 private:
  Status increment(int target, int idx, const std::int64_t *amount);
  // Flushes the increments issued since the last flush_all, if any.
  Status publish_owed();
  // MPI_Fetch_and_op on this process's own counter idx, completed.
  Status own_fetch_and_op(const std::int64_t *operand, std::int64_t *result, MPI_Op op, int idx);
  Status open_counter_window(int requested);
  Status close_counter_window();
  Status open_region_window();
  Status close_region_window();

  Window &window_;
  MPI_Win counters_ = MPI_WIN_NULL;
  std::int64_t *storage_ = nullptr;  // this rank's counters, inside counters_
  CounterCapacity capacity_;
  OwedTargets unflushed_;  // targets of increments issued and not flushed yet

  MPI_Win regions_ = MPI_WIN_NULL;  // dynamic windows: the region tables
  char *region_memory_ = nullptr;   // this rank's part of regions_
  DirectoryReaders readers_;        // targets whose table holds this rank's mark

  std::mutex reset_mutex_;  // resets of this process's counters are read-then-subtract
  DeferredNotifications deferred_;
};

}  // namespace mpinotify::pmpi
