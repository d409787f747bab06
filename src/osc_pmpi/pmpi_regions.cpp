// pmpi dynamic windows: every rank's table of attached memory in a host
// window (osc_core/attached_regions.hpp), read by origins with MPI_Get;
// after the table, one word per rank. Rank r adds 1 to word r of every
// peer that reads its table when it detaches memory, flushed before
// MPI_Win_detach returns, so an origin knows its copy of a table is stale
// from a local load. Last, one byte per rank: the marks of the ranks that
// read this rank's table, the only ones told (osc_base/directory_readers.hpp).
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "osc_core/host_creation_turn.hpp"
#include "pmpi_module.hpp"

namespace mpinotify::pmpi {
namespace {
// Where the readers' marks start: after the table and the detach words.
MPI_Aint first_mark_byte(int ranks) {
  return static_cast<MPI_Aint>(sizeof(RegionTable)) +
         static_cast<MPI_Aint>(ranks) * static_cast<MPI_Aint>(sizeof(std::uint64_t));
}

// Whole 64-byte blocks per rank (see whole_blocks in pmpi_counters.cpp).
MPI_Aint region_window_bytes(int ranks) {
  const MPI_Aint bytes =
      first_mark_byte(ranks) + static_cast<MPI_Aint>(DirectoryReaders::mark_bytes(ranks));
  return (bytes + 63) / 64 * 64;
}
}  // namespace

Status PmpiModule::open_region_window() {
  void *base = nullptr;
  HostCreationTurn turn;  // the host names window files by context id
  MPINOTIFY_TRY(turn.take(window_.comm(), window_.single_node()));
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
  auto *marks = reinterpret_cast<unsigned char *>(region_memory_ + first_mark_byte(window_.size()));
  DirectoryReaders::for_each_marked(marks, window_.size(), [&](int r) {
    PMPI_Accumulate(&one, 1, MPI_INT64_T, r, word, 1, MPI_INT64_T, MPI_SUM, regions_);
  });
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
  auto mark = [&] {
    const MPI_Aint at = first_mark_byte(window_.size()) + window_.rank();
    MPINOTIFY_TRY(host_status(
        PMPI_Put(&DirectoryReaders::kMark, 1, MPI_BYTE, target, at, 1, MPI_BYTE, regions_),
        "MPI_Put (attached memory table's reader mark)"));
    // At the target before its table is read.
    return host_status(PMPI_Win_flush(target, regions_),
                       "MPI_Win_flush (attached memory table's reader mark)");
  };
  MPINOTIFY_TRY(readers_.before_read(target, mark));
  constexpr int kBytes = static_cast<int>(sizeof(RegionTable));
  MPINOTIFY_TRY(
      host_status(PMPI_Get(&copy, kBytes, MPI_BYTE, target, 0, kBytes, MPI_BYTE, regions_),
                  "MPI_Get (attached memory table)"));
  return host_status(PMPI_Win_flush(target, regions_), "MPI_Win_flush (attached memory table)");
}

}  // namespace mpinotify::pmpi
