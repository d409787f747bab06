#include "attached_regions.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>

namespace mpinotify {
void LocalRegions::place(RegionTable *table) {
  std::lock_guard guard(mutex_);
  table_ = table;
  publish();
}

void LocalRegions::attach(std::uint64_t base, std::uint64_t size) {
  std::lock_guard guard(mutex_);
  regions_.push_back({base, size});
  publish();
}

bool LocalRegions::detach(std::uint64_t base) {
  std::lock_guard guard(mutex_);
  const auto found = std::find_if(regions_.begin(), regions_.end(),
                                  [base](const Region &r) { return r.base == base; });
  if (found == regions_.end()) return false;
  regions_.erase(found);
  publish();
  return true;
}

void LocalRegions::publish() {
  if (table_ == nullptr) return;
  std::atomic_ref<std::uint64_t> version(table_->version);
  const std::uint64_t before = version.load(std::memory_order_relaxed);
  version.store(before + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);  // odd before any entry changes
  const std::size_t listed = std::min(regions_.size(), RegionTable::kCapacity);
  std::copy_n(regions_.begin(), listed, table_->regions);
  table_->count = regions_.size();
  version.store(before + 2, std::memory_order_release);
}

bool PeerRegions::Copy::covers(std::uint64_t lo, std::uint64_t hi) const {
  return std::any_of(regions.begin(), regions.end(),
                     [lo, hi](const Region &r) { return lo >= r.base && hi <= r.base + r.size; });
}

Status PeerRegions::refresh(int target, std::uint64_t stamp, const Fetch &fetch, Copy &copy) {
  // Two copies on the heap (each is several KiB).
  auto reads = std::make_unique<RegionTable[]>(2);
  MPINOTIFY_TRY(read_consistent(
      reads[0], reads[1], [&](RegionTable &into) { return fetch(target, into); },
      "the attached memory of rank " + std::to_string(target)));
  const RegionTable &seen = reads[0];
  const std::size_t listed = std::min<std::uint64_t>(seen.count, RegionTable::kCapacity);
  copy.regions.assign(seen.regions, seen.regions + listed);
  copy.complete = seen.count <= RegionTable::kCapacity;
  copy.stamp = stamp;
  copy.known = true;
  return {};
}

Status PeerRegions::check(int target, std::uint64_t lo, std::uint64_t hi, std::uint64_t stamp,
                          const Fetch &fetch) {
  std::lock_guard guard(mutex_);
  Copy &copy = copies_[target];
  if (copy.known && copy.stamp == stamp && copy.covers(lo, hi)) [[likely]]
    return {};
  // Unknown, stale, or attached since: read it again.
  MPINOTIFY_TRY(refresh(target, stamp, fetch, copy));
  if (copy.covers(lo, hi) || !copy.complete) return {};
  return error(Errc::rma_range, "target range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                    ") lies outside the memory rank " + std::to_string(target) +
                                    " attached to the dynamic window");
}

}  // namespace mpinotify
