// MPINOTIFY_STATS: counts of what the library did, per window and per
// process (by backend), read through MPINOTIFY_Win_get_stats and
// MPINOTIFY_Get_stats and printed at MPI_Finalize. Counted only when
// enabled: otherwise a call pays one load of a flag and a branch that is
// always taken the same way.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace mpinotify {

// In the order of the fields of MPINOTIFY_Stats (mpi_notify.h).
enum class Stat : unsigned {
  put,
  get,
  accumulate,
  get_accumulate,
  request_forms,  // of the above, request-based
  bytes,          // target bytes of the above
  host_path,      // of the above, data moved by the host MPI
  counter_reads,
  counter_resets,
  threshold_requests,
  num_notify_calls,  // MPI_Win_set_num_notify calls that succeeded
  growths,           // of those, the ones that made new counter storage
  windows,           // windows served with notifications
  count_
};
inline constexpr std::size_t kStatCount = static_cast<std::size_t>(Stat::count_);
using StatValues = std::array<std::uint64_t, kStatCount>;

// Names as printed (and as the fields of MPINOTIFY_Stats).
const char *stat_name(Stat stat);

// One set of counts, updated from any thread.
class Stats {
 public:
  void add(Stat stat, std::uint64_t n = 1) noexcept {
    values_[static_cast<std::size_t>(stat)].fetch_add(n, std::memory_order_relaxed);
  }
  void add_all(const StatValues &values) noexcept {
    for (std::size_t i = 0; i < kStatCount; ++i)
      values_[i].fetch_add(values[i], std::memory_order_relaxed);
  }
  StatValues snapshot() const noexcept;

 private:
  std::array<std::atomic<std::uint64_t>, kStatCount> values_{};
};

// Set at MPI_Init from MPINOTIFY_STATS / MPINOTIFY_STATS_FILE, before any
// window exists; read on every counted call.
inline bool stats_enabled = false;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)

// The counts of `backend`'s windows that left the registry (made on
// first use; the reference stays valid for the process's life).
Stats &process_stats(const std::string &backend);
// The process's counts: those of the live windows and of the ones gone,
// of one backend, or of all (backend empty); all zero for a backend no
// window used.
StatValues process_totals(const std::string &backend);

// At MPI_Finalize, when enabled: a line per backend used and the total,
// on stderr or in MPINOTIFY_STATS_FILE.<rank> (`rank` in MPI_COMM_WORLD).
void report_stats(int rank);

}  // namespace mpinotify
