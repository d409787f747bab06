// The hot paths of a one-way message: the put, the flush that completes
// it and the poll of the counter that sees it, inlined into their entry
// points (docs/performance.md says where their nanoseconds went).
//
// The put's: the common case (one predefined contiguous type on both
// sides, a window of memory in a passive-target epoch, a blocking call, no
// statistics) checked inline and handed to the module's put_contiguous,
// skipping the general path's operation record, its type lookups and its
// calls between translation units.
//
// It decides nothing on its own: whatever it does not accept (an argument
// that fails a check included) goes to the general path, which checks
// everything again and reports the error. So the checks it makes are
// SEMANTICS 3.4's, made where they are cheap: the same type on both sides
// makes one size check two, a known predefined type needs no commit check,
// and a count below 2^31 of a type of at most 2^31 bytes cannot overflow.
#pragma once

#include <atomic>
#include <cstdint>

#include "mpi_host.hpp"
#include "params.hpp"
#include "registry.hpp"
#include "stats.hpp"
#include "window.hpp"

namespace mpinotify {

// True when the put took this path, with its outcome in `status`; false
// when the caller must take the general path (nothing happened).
inline bool put_on_hot_path(Window &window, const void *origin, MPI_Count origin_count,
                            MPI_Datatype origin_type, int target, MPI_Aint disp,
                            MPI_Count target_count, MPI_Datatype target_type, int idx,
                            Status &status) {
  if (origin_type != target_type || origin_count != target_count || stats_enabled ||
      window.flavor() == Flavor::dynamic || !window.enabled())
    return false;
  const TypeShape *shape = known_predefined_shape(target_type);
  constexpr std::uint64_t kSmall = std::uint64_t{1} << 31;
  // Negative counts, ranks (MPI_PROC_NULL) and displacements turn huge.
  if (shape == nullptr || !shape->contiguous() || shape->true_lb != 0 ||
      static_cast<std::uint64_t>(target_count) >= kSmall ||
      static_cast<std::uint64_t>(shape->size) >= kSmall ||
      static_cast<std::uint64_t>(disp) >= kSmall * kSmall ||
      static_cast<unsigned>(target) >= static_cast<unsigned>(window.size()))
    return false;
  auto guard = window.shared_access();
  if (static_cast<unsigned>(idx) >= static_cast<unsigned>(window.count(target))) return false;
  const MPI_Count bytes = target_count * shape->size;
  const RankSpan &span = window.span(target);
  // disp < 2^62 and disp_unit < 2^31 in a window: the product may still
  // overflow, which the builtin catches.
  MPI_Count offset = 0;
  if (bytes > 0 && (__builtin_mul_overflow(static_cast<MPI_Count>(disp),
                                           static_cast<MPI_Count>(span.disp_unit), &offset) ||
                    offset > span.size - bytes))
    return false;
  if (window.epochs().mode_for(target) != EpochMode::passive) return false;
  return window.module().put_contiguous(target, disp, origin, static_cast<std::size_t>(bytes), idx,
                                        status);
}

inline bool is_flush(SyncKind kind) {
  return kind == SyncKind::flush || kind == SyncKind::flush_local;
}
inline bool is_flush_all(SyncKind kind) {
  return kind == SyncKind::flush_all || kind == SyncKind::flush_local_all;
}

// A flush in a passive-target epoch that owes the host nothing: the host's
// call would complete no operation, and across hosts on Open MPI it costs a
// round trip that waits for the target to enter MPI. Outside such an epoch
// the host answers (its MPI_ERR_RMA_SYNC). The local forms keep the marks:
// remote completion is still owed.
inline bool host_flush_idle(Window &window, const SyncCall &call) {
  static const bool skip_idle = params().skip_idle_host_flush != 0;
  if (!skip_idle) return false;
  const Epochs &epochs = window.epochs();
  OwedTargets &owed = window.host_owed();
  switch (call.kind) {
    case SyncKind::flush:
      return epochs.mode_for(call.rank) == EpochMode::passive && !owed.take(call.rank);
    case SyncKind::flush_local:
      return epochs.mode_for(call.rank) == EpochMode::passive && !owed.owes(call.rank);
    case SyncKind::flush_all: return epochs.passive_open() && !owed.take_all();
    case SyncKind::flush_local_all: return epochs.passive_open() && !owed.owes_any();
    default: return false;
  }
}

// What the skipped call would still have done: order this process's memory
// accesses (some programs flush to order load/store on shared windows) and,
// now and then, let the host progress (a program may spin on flushes while
// others' operations to it wait for its progress).
inline void stand_in_for_host_flush(Window &window) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  window.skipped_flush_nudge().tick(window.comm());
}

// The four flushes (call.kind one of them): the module completes its own
// operations, then the host completes the user's unless it owes nothing.
// No epoch changes. Inline into the interceptors: an idle flush between a
// put and the next is on every one-way message's path.
inline Status flush_window(Window &window, const SyncCall &call, HostCall host_call) {
  // A flush naming a target that is no rank of the window never reaches
  // the hooks (nothing is indexed by it): it does nothing for MPI_PROC_NULL
  // and gets MPI_ERR_RANK otherwise, as on MPICH (SEMANTICS 3.9); Open MPI
  // 4.1's osc/rdma would crash on both.
  if (is_flush(call.kind) &&
      static_cast<unsigned>(call.rank) >= static_cast<unsigned>(window.size())) [[unlikely]] {
    if (call.rank == MPI_PROC_NULL) return {};
    return window.check_rank(call.rank);
  }
  auto guard = window.shared_access();
  MPINOTIFY_TRY(window.module().before_sync(call));
  if (host_flush_idle(window, call)) {
    stand_in_for_host_flush(window);
    return {};
  }
  return host_reported(host_call(), "window synchronisation");
}

// SEMANTICS 2.6 and 2.7: own counter idx through one of the module's
// counter slots.
inline Status access_counter(Window &window, int idx, MPI_Count *out,
                             Status (Module::*slot)(int, MPI_Count *)) {
  auto guard = window.shared_access();
  MPINOTIFY_TRY(window.check_index(window.rank(), idx));
  MPI_Count v = 0;
  MPINOTIFY_TRY((window.module().*slot)(idx, &v));
  // SEMANTICS 2.6: like MPI_Win_sync, the data behind `v` is visible now.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *out = v;
  return {};
}

// The poll: inline into MPI_Win_get_notify_value.
inline Status read_counter(Window &window, int idx, MPI_Count *value) {
  MPINOTIFY_TRY(access_counter(window, idx, value, &Module::read_counter));
  window.tally(Stat::counter_reads);
  return {};
}

inline Status reset_counter(Window &window, int idx, MPI_Count *previous) {
  MPINOTIFY_TRY(access_counter(window, idx, previous, &Module::reset_counter));
  window.tally(Stat::counter_resets);
  return {};
}

}  // namespace mpinotify
