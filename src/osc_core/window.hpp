// What the library keeps for one window: notification bookkeeping (attached
// counts, limits), the module serving it, its open epochs and the
// values behind its attributes.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <vector>

#include "backend.hpp"
#include "datatype.hpp"
#include "epochs.hpp"
#include "hints.hpp"
#include "host_nudge.hpp"
#include "module.hpp"
#include "owed_targets.hpp"
#include "stats.hpp"

namespace mpinotify {

// A rank's window memory, for range checks (size 0 and unchecked for
// dynamic windows).
struct RankSpan {
  MPI_Aint size = 0;
  int disp_unit = 1;
};

struct WindowSetup {
  MPI_Win handle = MPI_WIN_NULL;
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate, owned by the window
  Flavor flavor = Flavor::create;
  bool in_shared_memory = false;          // an MPI_Win_allocate window made as allocate_shared
  bool lookalikes_apart = false;          // see WindowQuery
  bool single_node = false;               // see WindowQuery
  std::uint32_t tail_counter_stride = 0;  // see HostWindow
  // The same on every rank, and unique among this process's windows but
  // for windows created concurrently (creation_summary.hpp).
  std::uint64_t key = 0;
  CreationHints hints;  // this rank's
  // Every rank asserted mpi_assert_same_num_notifications.
  bool same_counts = false;
  NotifyLimits limits;
  const Backend *backend = nullptr;  // nullptr: notifications disabled
  // By backend (registry order): every rank knew the group's peers before
  // the creation summary (Backend::knows_group).
  std::uint32_t groups_known = 0;
  int ranks = 0;  // in the window's group
  // Every rank's memory span, or one that is every rank's.
  std::vector<RankSpan> spans;
};

class Window {
 public:
  explicit Window(WindowSetup setup);
  Window(const Window &) = delete;
  Window &operator=(const Window &) = delete;
  ~Window();

  MPI_Win handle() const { return setup_.handle; }
  MPI_Comm comm() const { return setup_.comm; }
  int rank() const { return rank_; }
  int size() const { return setup_.ranks; }
  Flavor flavor() const { return setup_.flavor; }
  // The host window is an MPI_Win_allocate_shared window although the
  // program asked for MPI_Win_allocate.
  bool in_shared_memory() const { return setup_.in_shared_memory; }
  std::uint32_t tail_counter_stride() const { return setup_.tail_counter_stride; }
  bool lookalikes_apart() const { return setup_.lookalikes_apart; }
  // Every rank shares this node (see WindowQuery).
  bool single_node() const { return setup_.single_node; }
  // Every rank's backend knew the group's peers (the same on every rank).
  bool group_known() const;
  std::uint64_t key() const { return setup_.key; }
  bool enabled() const { return setup_.backend != nullptr; }
  const char *backend_name() const;
  const CreationHints &hints() const { return setup_.hints; }
  // Every rank asserted that it passes the same count to
  // MPI_Win_set_num_notify (SEMANTICS 4.2b).
  bool same_counts() const { return setup_.same_counts; }
  const NotifyLimits &limits() const { return setup_.limits; }
  // The window memory of `rank` as every rank reported it at creation.
  const RankSpan &span(int rank) const {
    return setup_.spans[setup_.spans.size() == 1 ? 0 : static_cast<std::size_t>(rank)];
  }

  Module &module() { return *module_; }
  // Dynamic windows: this rank's attached regions, and its copies of the
  // other ranks' (osc_core/attached_regions.hpp).
  LocalRegions &local_regions() { return local_regions_; }
  PeerRegions &peer_regions() { return peer_regions_; }
  void set_module(std::unique_ptr<Module> module) { module_ = std::move(module); }
  Epochs &epochs() { return epochs_; }
  // Targets with the program's own RMA outstanding on the host window (the
  // plain calls, marked as they return): a flush owing the host nothing
  // need not call it (osc_core/sync.cpp).
  OwedTargets &host_owed() { return host_owed_; }
  // Flushes that skipped the host let it progress now and then.
  HostNudge<64> &skipped_flush_nudge() { return skipped_flush_nudge_; }

  // --- notification bookkeeping
  int count(int rank) const { return counts_[rank]; }
  bool any_counters() const { return any_counters_; }
  void set_counts(RankCounts counts);

  // MPI_ERR_RANK unless 0 <= rank < size().
  Status check_rank(int rank) const {
    if (rank >= 0 && rank < size()) [[likely]]
      return {};
    return rank_error(rank);
  }
  // The shared helper behind SEMANTICS 2.8/3.2: idx against `target`'s
  // attached count.
  Status check_index(int target, int idx) const {
    if (idx >= 0 && idx < count(target)) [[likely]]
      return {};
    return index_error(target, idx);
  }
  // SEMANTICS 3.4: the target range of `op` inside `target`'s window memory
  // (not checked for dynamic windows, whose attached memory is remote);
  // `target_shape` is the shape of op.target_type.
  Status check_target_range(const NotifyOp &op, const TypeShape &target_shape) const {
    if (setup_.flavor == Flavor::dynamic || op.target_count == 0) return {};
    const RankSpan &span = this->span(op.target_rank);
    const ByteSpan bytes = target_shape.span(op.target_count);
    if (bytes.lo == bytes.hi) return {};
    MPI_Count base = 0;
    MPI_Count lo = 0;
    MPI_Count hi = 0;
    if (__builtin_mul_overflow(static_cast<MPI_Count>(op.target_disp),
                               static_cast<MPI_Count>(span.disp_unit), &base) ||
        __builtin_add_overflow(base, bytes.lo, &lo) ||
        __builtin_add_overflow(base, bytes.hi, &hi) || lo < 0 || hi > span.size) [[unlikely]]
      return range_error(op);
    return {};
  }

  // Held shared by every operation and exclusively by the collectives that
  // replace counter storage. Taken only under MPI_THREAD_MULTIPLE (the
  // thread level is fixed before any window exists).
  std::shared_lock<std::shared_mutex> shared_access() {
    if (!thread_multiple_) [[likely]]
      return {};
    return std::shared_lock(access_);
  }
  bool thread_multiple() const { return thread_multiple_; }
  std::unique_lock<std::shared_mutex> exclusive_access();
  // For pollers that must not block: nullopt when a collective holds the
  // window exclusively.
  std::optional<std::shared_lock<std::shared_mutex>> try_shared_access();

  // MPINOTIFY_STATS: counts `n` for this window; nothing unless counting
  // is on. The process's counts are those of its live windows plus those
  // folded into their backend's when they left the registry.
  void tally(Stat stat, std::uint64_t n = 1) noexcept {
    if (!stats_enabled) [[likely]]
      return;
    stats_.add(stat, n);
  }
  const Stats &stats() const { return stats_; }
  void fold_stats() noexcept {
    if (backend_stats_ != nullptr) backend_stats_->add_all(stats_.snapshot());
    backend_stats_ = nullptr;
  }

  // Storage behind the three attributes (MPI_Win_get_attr yields pointers).
  int attr_num_sb = 0;
  int attr_num_ub = 0;
  MPI_Count attr_value_ub = 0;
  // MPI_WIN_SIZE as requested, for windows whose host allocation is padded.
  MPI_Aint requested_size = 0;
  bool padded = false;

 private:
  [[gnu::cold]] Status rank_error(int rank) const;
  [[gnu::cold]] Status index_error(int target, int idx) const;
  [[gnu::cold]] Status range_error(const NotifyOp &op) const;

  WindowSetup setup_;
  int rank_ = 0;
  bool thread_multiple_ = false;
  std::unique_ptr<Module> module_;
  Epochs epochs_;
  OwedTargets host_owed_;
  HostNudge<64> skipped_flush_nudge_;
  LocalRegions local_regions_;
  PeerRegions peer_regions_;
  RankCounts counts_;
  bool any_counters_ = false;
  std::shared_mutex access_;
  Stats stats_;
  Stats *backend_stats_ = nullptr;  // set where counting is on
};

}  // namespace mpinotify
