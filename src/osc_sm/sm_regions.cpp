// sm dynamic windows: every rank's table of attached memory in one shared
// segment, so that an origin checks a target range (SEMANTICS 3.4) with
// loads: the target's table version tells a stale copy.
#include <atomic>
#include <cstring>

#include "sm_module.hpp"

namespace mpinotify::sm {

Status SmModule::share_region_tables() {
  // A segment of one RegionTable per rank ("counters" of one byte each).
  const std::vector<std::int64_t> bytes(static_cast<std::size_t>(window_.size()),
                                        static_cast<std::int64_t>(sizeof(RegionTable)));
  MPINOTIFY_TRY(share_segment(bytes, 1, "sharing the tables of attached memory", regions_));
  // A new segment reads as zeros: an empty table of version 0, until this
  // rank publishes its own.
  window_.local_regions().place(&region_table(window_.rank()));
  return {};
}

std::uint64_t SmModule::region_stamp(int target) {
  return std::atomic_ref<std::uint64_t>(region_table(target).version)
      .load(std::memory_order_acquire);
}

Status SmModule::fetch_regions(int target, RegionTable &copy) {
  std::memcpy(&copy, &region_table(target), sizeof copy);
  std::atomic_thread_fence(std::memory_order_acquire);
  return {};
}

}  // namespace mpinotify::sm
