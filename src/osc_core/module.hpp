// The osc module table: what a backend does for one window. Every slot has
// a default, so a backend fills what it can and nothing is ever a null
// call: data and counter slots answer "unsupported", synchronisation hooks
// answer "nothing to do".
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "attached_regions.hpp"
#include "datatype.hpp"
#include "mpi_host.hpp"
#include "status.hpp"

namespace mpinotify {

class Window;

// How many notification counters each rank of a window attached: one
// number where every rank passed the same (kept once, whatever the size of
// the group), else one per rank.
class RankCounts {
 public:
  RankCounts() = default;
  explicit RankCounts(int every_rank) : every_rank_(every_rank) {}
  explicit RankCounts(std::vector<int> by_rank) : by_rank_(std::move(by_rank)) {}
  int operator[](int rank) const {
    if (by_rank_.empty()) [[likely]]
      return every_rank_;
    return by_rank_[static_cast<std::size_t>(rank)];
  }
  bool any() const {
    return by_rank_.empty()
               ? every_rank_ > 0
               : std::any_of(by_rank_.begin(), by_rank_.end(), [](int n) { return n > 0; });
  }

 private:
  int every_rank_ = 0;
  std::vector<int> by_rank_;  // empty where every rank has every_rank_
};

enum class OpKind { put, get, accumulate, get_accumulate };
const char *op_kind_name(OpKind kind);

// One notified operation, with every count widened to MPI_Count.
// How an operation to a target completes (osc_core/epochs.hpp decides).
enum class EpochMode {
  none,     // no access epoch covers the target: the call is erroneous
  passive,  // MPI_Win_lock / lock_all: flush is allowed
  fence,    // between fences: completes at the next MPI_Win_fence
  pscw,     // MPI_Win_start: completes at MPI_Win_complete
};

struct NotifyOp {
  OpKind kind = OpKind::put;
  const void *origin_addr = nullptr;
  MPI_Count origin_count = 0;
  MPI_Datatype origin_type = MPI_DATATYPE_NULL;
  void *result_addr = nullptr;  // get (as origin buffer) and get_accumulate
  MPI_Count result_count = 0;
  MPI_Datatype result_type = MPI_DATATYPE_NULL;
  int target_rank = MPI_PROC_NULL;
  MPI_Aint target_disp = 0;
  MPI_Count target_count = 0;
  MPI_Datatype target_type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;  // accumulate family only
  int idx = 0;
  // Filled by osc_core before the module sees the operation: the shapes of
  // target_type, and of origin_type and result_type where the operation
  // has such a buffer; the epoch that covers the target (checked: never
  // none, and passive for a request form).
  TypeShape target_shape;
  TypeShape origin_shape;
  TypeShape result_shape;
  EpochMode mode = EpochMode::none;
};

// A window synchronisation call as the interceptors saw it.
enum class SyncKind {
  lock,
  lock_all,
  unlock,
  unlock_all,
  flush,
  flush_all,
  flush_local,
  flush_local_all,
  fence,
  start,
  complete,
  post,
  wait,
  test
};

struct SyncCall {
  SyncKind kind = SyncKind::flush;
  int rank = MPI_PROC_NULL;        // lock, unlock, flush, flush_local
  int assert_flags = 0;            // lock, lock_all, fence, start, post
  std::vector<int> group;          // start, post: window ranks of the group
  const int *test_flag = nullptr;  // test: the host's answer, once it returned

  // False only for an MPI_Win_test whose exposure epoch goes on.
  bool completed() const {
    return kind != SyncKind::test || (test_flag != nullptr && *test_flag != 0);
  }
};

class Module {
 public:
  Module() = default;
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;
  virtual ~Module() = default;

  // --- notified data movement (request == nullptr for blocking forms).
  // Called with the index and target range already checked.
  virtual Status notify(const NotifyOp &op, MPI_Request *request);
  // The hot path's put (osc_core/hot_path.hpp): a blocking notified put of
  // `bytes` contiguous bytes from `origin` to displacement `disp` of
  // `target`'s window, in a passive-target epoch, with every argument
  // checked. Returns false, with nothing done, where the module wants
  // notify() instead; true when it took the call, with its outcome in
  // `status` (as notify() would have returned it).
  virtual bool put_contiguous(int /*target*/, MPI_Aint /*disp*/, const void * /*origin*/,
                              std::size_t /*bytes*/, int /*idx*/, Status & /*status*/) {
    return false;
  }

  // --- the process's own counters.
  virtual Status read_counter(int idx, MPI_Count *value);
  virtual Status reset_counter(int idx, MPI_Count *previous);
  // A wait on them that went on for MPINOTIFY_PEER_TIMEOUT: whether the
  // peers this module reached still answer, each within that time; an
  // error names one that does not (the wait then ends with it). Backends
  // whose operations cannot hang on a peer have nothing to check.
  virtual Status check_peers() { return {}; }

  // --- counter storage, in the order osc_core drives it for
  // MPI_Win_set_num_notify and at creation:
  //   quiesce (complete own in-flight increments), reserve (local, may fail),
  //   [agreement], then commit (collective) or release_reservation.
  virtual Status quiesce();
  // Prepares room for `capacity` counters of this rank; `grows` says whether
  // that needs new storage (then every rank re-makes it in commit).
  virtual Status reserve(int capacity, bool &grows);
  virtual void release_reservation() {}
  // Collective. Afterwards the counters [0, new_counts[rank]) exist, read 0
  // on every rank, and a capacity of at least the reserved one stands.
  // `any_growth`: some rank's reserve said it grows. A commit that fails,
  // fails on every rank and leaves the old storage as it was.
  virtual Status commit(const RankCounts &new_counts, bool any_growth);

  // --- dynamic windows: memory this rank attached (after the host's
  // MPI_Win_attach succeeded) or is detaching (before the host's
  // MPI_Win_detach, once the window's region table no longer lists it). A
  // backend that cannot use the memory leaves its operations to the host
  // path; these calls never fail for that.
  virtual void attached(void * /*base*/, MPI_Aint /*size*/) {}
  virtual void detaching(const void * /*base*/) {}
  // The range check on dynamic windows (osc_core/attached_regions.hpp):
  // the backend places this rank's RegionTable where peers can read it
  // (Window::local_regions().place, by the end of the first commit), says
  // what tells a current copy of a target's table from a stale one, and
  // reads a target's table.
  virtual std::uint64_t region_stamp(int /*target*/) { return 0; }
  virtual Status fetch_regions(int target, RegionTable &copy);

  // --- window synchronisation, around the host call: before_sync before
  // every call, after_sync after those that open or close an epoch (the
  // flush family changes none, and is the one programs call in loops).
  virtual Status before_sync(const SyncCall & /*call*/) { return {}; }
  virtual Status after_sync(const SyncCall & /*call*/) { return {}; }

  // Whether requests or counters of this module need polling to advance
  // (software-emulated transports).
  virtual bool needs_progress() const { return false; }
  virtual void progress() {}

  // Collective, before the host window is freed: release everything.
  virtual Status destroy() { return {}; }
};

// For reserve: MPI_ERR_NO_MEM when `capacity` counters of
// `bytes_per_counter` each exceed MPINOTIFY_COUNTER_MEMORY_LIMIT. `kind`
// names the memory in the message ("" or, e.g., " of shared memory").
Status check_counter_memory(int capacity, std::uint64_t bytes_per_counter, const char *kind = "");

}  // namespace mpinotify
