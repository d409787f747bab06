// pmpi dynamic windows: every rank's table of attached memory in a host
// window (osc_core/attached_regions.hpp), read by origins with MPI_Get;
// after the table, one word per rank. Rank r adds 1 to word r of every
// peer when it detaches memory, flushed before MPI_Win_detach returns, so
// an origin knows its copy of a table is stale from a local load.
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "pmpi_module.hpp"

namespace mpinotify::pmpi {
namespace {
// Whole 64-byte blocks per rank (see whole_blocks in pmpi_counters.cpp).
MPI_Aint region_window_bytes(int ranks) {
  const auto bytes = static_cast<MPI_Aint>(sizeof(RegionTable)) +
                     static_cast<MPI_Aint>(ranks) * static_cast<MPI_Aint>(sizeof(std::uint64_t));
  return (bytes + 63) / 64 * 64;
}
}  // namespace

Status PmpiModule::open_region_window() {
  void *base = nullptr;
  MPINOTIFY_TRY(host_status(PMPI_Win_allocate(region_window_bytes(window_.size()), 1, MPI_INFO_NULL,
                                              window_.comm(), &base, &regions_),
                            "MPI_Win_allocate (attached memory tables)"));
  region_memory_ = static_cast<char *>(base);
  std::fill_n(region_memory_, region_window_bytes(window_.size()), 0);
  PMPI_Win_set_errhandler(regions_, MPI_ERRORS_RETURN);
  MPINOTIFY_TRY(host_status(PMPI_Win_lock_all(MPI_MODE_NOCHECK, regions_),
                            "MPI_Win_lock_all (attached memory tables)"));
  window_.local_regions().place(reinterpret_cast<RegionTable *>(region_memory_));
  PMPI_Win_sync(regions_);
  // Nobody reads a table before its owner has cleared it.
  return host_status(PMPI_Barrier(window_.comm()), "MPI_Barrier");
}

Status PmpiModule::close_region_window() {
  if (regions_ == MPI_WIN_NULL) return {};
  window_.local_regions().place(nullptr);
  const Status st =
      host_status(PMPI_Win_unlock_all(regions_), "MPI_Win_unlock_all (attached memory tables)");
  const Status freed =
      host_status(PMPI_Win_free(&regions_), "MPI_Win_free (attached memory tables)");
  region_memory_ = nullptr;
  return st.ok() ? freed : st;
}

void PmpiModule::attached(void * /*base*/, MPI_Aint /*size*/) {
  if (regions_ != MPI_WIN_NULL) PMPI_Win_sync(regions_);  // the table, for peers' gets
}

void PmpiModule::detaching(const void * /*base*/) {
  if (regions_ == MPI_WIN_NULL) return;
  PMPI_Win_sync(regions_);
  const std::int64_t one = 1;
  const auto word = static_cast<MPI_Aint>(
      sizeof(RegionTable) + static_cast<std::size_t>(window_.rank()) * sizeof(std::uint64_t));
  for (int r = 0; r < window_.size(); ++r)
    PMPI_Accumulate(&one, 1, MPI_INT64_T, r, word, 1, MPI_INT64_T, MPI_SUM, regions_);
  // Complete before MPI_Win_detach returns: whatever tells an origin of
  // the detach comes after.
  PMPI_Win_flush_all(regions_);
}

std::uint64_t PmpiModule::region_stamp(int target) {
  PMPI_Win_sync(regions_);
  auto *words = reinterpret_cast<std::uint64_t *>(region_memory_ + sizeof(RegionTable));
  return std::atomic_ref<std::uint64_t>(words[target]).load(std::memory_order_acquire);
}

Status PmpiModule::fetch_regions(int target, RegionTable &copy) {
  constexpr int kBytes = static_cast<int>(sizeof(RegionTable));
  MPINOTIFY_TRY(
      host_status(PMPI_Get(&copy, kBytes, MPI_BYTE, target, 0, kBytes, MPI_BYTE, regions_),
                  "MPI_Get (attached memory table)"));
  return host_status(PMPI_Win_flush(target, regions_), "MPI_Win_flush (attached memory table)");
}

}  // namespace mpinotify::pmpi
