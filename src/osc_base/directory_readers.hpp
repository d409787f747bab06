// Dynamic windows of ucx, ofi and pmpi: who must hear of a detach.
//
// An origin keeps a copy of a target's directory of attached memory (and of
// its RegionTable), and the target tells of each detach by moving a word in
// the block of every rank that may hold such a copy, complete before
// MPI_Win_detach returns. Told to every rank, that made a peer of (and
// connected to) every rank of the window at the first detach, although a
// program usually reads few of them. So each rank marks itself in a target's
// block (one byte, at its own rank) before it first reads that target's
// directory, complete there before the read; the target tells only the
// ranks marked in its own block.
//
// Why no reader is missed: the target lists the new directory, then (after a
// full fence) reads the marks; the reader's mark is complete at the target,
// then (after a full fence) it reads the directory. A mark the target does
// not see landed after that read, so the read of the directory that follows
// the mark finds the new list. A failed mark fails the read: nothing is
// read unmarked. One mutex serves all targets (marks are rare: a target's
// first read), so a target that does not answer holds other threads' first
// reads of other targets until MPINOTIFY_PEER_TIMEOUT.
// Marks are never cleared: a rank that read once may hold a copy for good.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <unordered_set>

#include "osc_core/status.hpp"

namespace mpinotify {

class DirectoryReaders {
 public:
  // Before any read of `target`'s directory or RegionTable: the first time,
  // `mark()` writes this rank's mark into target's block and completes it
  // there. A failed mark is tried again by the next read.
  template <class Mark>
  Status before_read(int target, Mark &&mark) {
    std::lock_guard guard(mutex_);
    if (marked_.contains(target)) return {};
    MPINOTIFY_TRY(mark());
    // Store, then load, on both sides: where the transport's put is this
    // CPU's store into a mapped segment (UCX over shared memory), the mark
    // may still wait in the store buffer when the read's loads run.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    marked_.insert(target);
    return {};
  }

  // The ranks marked in this rank's own `marks` (one byte per window rank),
  // read after every change to the directory before it.
  template <class Each>
  static void for_each_marked(unsigned char *marks, int ranks, Each &&each) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    for (int r = 0; r < ranks; ++r) {
      if (std::atomic_ref<unsigned char>(marks[r]).load(std::memory_order_acquire) != 0) each(r);
    }
  }

  // What a mark writes (its source buffer).
  static constexpr unsigned char kMark = 1;

  // Bytes of marks in a block for `ranks`, whole 8-byte words.
  static std::size_t mark_bytes(int ranks) { return (static_cast<std::size_t>(ranks) + 7) / 8 * 8; }

 private:
  std::mutex mutex_;
  std::unordered_set<int> marked_;  // targets whose block holds this rank's mark
};

}  // namespace mpinotify
