// pmpi counter storage: the counter window, its growth, reads and resets.
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "osc_core/host_creation_turn.hpp"
#include "osc_core/host_nudge.hpp"
#include "pmpi_module.hpp"

namespace mpinotify::pmpi {
namespace {
constexpr MPI_Aint kCounterBytes = sizeof(std::int64_t);

// Counter windows hold whole 64-byte blocks: MPICH 4.0.2 misplaces the
// memory of later ranks in MPI_Win_allocate when per-rank sizes are not
// multiples of 16 bytes.
int whole_blocks(int capacity) {
  constexpr int kBlock = 8;
  const long long rounded = (static_cast<long long>(capacity) + kBlock - 1) / kBlock * kBlock;
  return static_cast<int>(std::min<long long>(rounded, INT_MAX - kBlock + 1));
}
}  // namespace

PmpiModule::PmpiModule(Window &window)
    : window_(window), unflushed_(window.size()), deferred_(window) {}

// The counter window goes with destroy(); the host releases its memory.
PmpiModule::~PmpiModule() = default;

Status PmpiModule::open_counter_window(int requested) {
  const int capacity = whole_blocks(requested);
  MPI_Info info = MPI_INFO_NULL;
  MPINOTIFY_TRY(host_status(PMPI_Info_create(&info), "MPI_Info_create"));
  // Only SUM and NO_OP ever touch a counter.
  PMPI_Info_set(info, "accumulate_ops", "same_op_no_op");
  void *base = nullptr;
  HostCreationTurn turn;  // the host names window files by context id
  MPINOTIFY_TRY(turn.take(window_.comm(), window_.single_node()));
  const int rc = PMPI_Win_allocate(capacity * kCounterBytes, static_cast<int>(kCounterBytes), info,
                                   window_.comm(), &base, &counters_);
  PMPI_Info_free(&info);
  MPINOTIFY_TRY(host_status(rc, "MPI_Win_allocate (counters)"));
  storage_ = static_cast<std::int64_t *>(base);
  capacity_.hold(capacity);
  if (capacity > 0) std::memset(storage_, 0, static_cast<std::size_t>(capacity) * kCounterBytes);
  PMPI_Win_set_errhandler(counters_, MPI_ERRORS_RETURN);
  return host_status(PMPI_Win_lock_all(MPI_MODE_NOCHECK, counters_), "MPI_Win_lock_all (counters)");
}

Status PmpiModule::close_counter_window() {
  if (counters_ == MPI_WIN_NULL) return {};
  Status st = host_status(PMPI_Win_unlock_all(counters_), "MPI_Win_unlock_all (counters)");
  const Status freed = host_status(PMPI_Win_free(&counters_), "MPI_Win_free (counters)");
  storage_ = nullptr;
  capacity_.hold(0);
  unflushed_.take_all();
  return st.ok() ? freed : st;
}

Status PmpiModule::reserve(int capacity, bool &grows) {
  MPINOTIFY_TRY(capacity_.reserve(capacity, counters_ != MPI_WIN_NULL, kCounterBytes, grows));
  if (!grows) return {};
  const std::uint64_t bytes = static_cast<std::uint64_t>(capacity) * kCounterBytes;
  // The host allocates inside a collective, where a failure would strand the
  // other ranks: prove the memory is there first.
  void *probe = std::malloc(static_cast<std::size_t>(bytes));
  if (probe == nullptr) {
    capacity_.release();
    return error(Errc::no_mem, "cannot allocate " + std::to_string(bytes) + " bytes for " +
                                   std::to_string(capacity) + " counters");
  }
  std::free(probe);
  return {};
}

void PmpiModule::release_reservation() { capacity_.release(); }

Status PmpiModule::quiesce() {
  if (counters_ == MPI_WIN_NULL) return {};
  unflushed_.take_all();
  return host_status(PMPI_Win_flush_all(counters_), "MPI_Win_flush_all (counters)");
}

Status PmpiModule::commit(const RankCounts & /*new_counts*/, bool any_growth) {
  if (!any_growth) {
    // Every counter that can be non-zero lies below the old attached count,
    // and no increment is in flight (quiesce + agreement).
    clear_counters(storage_, window_.count(window_.rank()));
    return host_status(PMPI_Win_sync(counters_), "MPI_Win_sync (counters)");
  }
  // The counter window has a fixed size: every rank makes a new one, at
  // least as large as before, and it starts zeroed.
  const auto capacity = static_cast<int>(capacity_.grown(0));
  MPINOTIFY_TRY(close_counter_window());
  MPINOTIFY_TRY(open_counter_window(capacity));
  if (window_.flavor() == Flavor::dynamic && regions_ == MPI_WIN_NULL) return open_region_window();
  return {};
}

Status PmpiModule::own_fetch_and_op(const std::int64_t *operand, std::int64_t *result, MPI_Op op,
                                    int idx) {
  const int me = window_.rank();
  MPINOTIFY_TRY(host_status(PMPI_Fetch_and_op(operand, result, MPI_INT64_T, me, idx, op, counters_),
                            "MPI_Fetch_and_op"));
  return host_status(PMPI_Win_flush(me, counters_), "MPI_Win_flush (counters)");
}

Status PmpiModule::publish_owed() {
  // The host may hold increments back until a flush (osc/pt2pt buffers
  // passive-target accumulates until the origin's next flush or unlock).
  if (counters_ == MPI_WIN_NULL || !unflushed_.take_all()) return {};
  return host_status(PMPI_Win_flush_all(counters_), "MPI_Win_flush_all (counters)");
}

Status PmpiModule::read_counter(int idx, MPI_Count *value) {
  // SEMANTICS 3.10: a poller publishes what it owes others, so two ranks
  // that poll their own counters and never flush still progress.
  MPINOTIFY_TRY(publish_owed());
  // Some host RMA advances at a target only while it progresses its
  // point-to-point engine (Open MPI's osc/ucx over tcp), which fetch-and-op
  // on a process's own counter does not do.
  HostNudge<1>::now(window_.comm());
  const std::int64_t ignored = 0;
  std::int64_t result = 0;
  MPINOTIFY_TRY(own_fetch_and_op(&ignored, &result, MPI_NO_OP, idx));
  *value = result;
  return {};
}

Status PmpiModule::reset_counter(int idx, MPI_Count *previous) {
  // Fetch-and-zero from SUM and NO_OP only: read v, then subtract v. An
  // increment landing in between stays counted, as if it came after a
  // fetch-and-zero at the moment of the read. Local threads take turns so
  // that no two subtract the same v.
  std::lock_guard guard(reset_mutex_);
  MPI_Count seen = 0;
  MPINOTIFY_TRY(read_counter(idx, &seen));
  if (seen != 0) {
    const std::int64_t minus = -static_cast<std::int64_t>(seen);
    std::int64_t before = 0;
    MPINOTIFY_TRY(own_fetch_and_op(&minus, &before, MPI_SUM, idx));
  }
  *previous = seen;
  return {};
}

Status PmpiModule::destroy() {
  Status st = deferred_.finish();
  const Status regions = close_region_window();
  if (st.ok()) st = regions;
  const Status closed = close_counter_window();
  release_reservation();
  return st.ok() ? closed : st;
}

}  // namespace mpinotify::pmpi
