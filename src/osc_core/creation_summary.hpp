// What the ranks of a window about to be created agree on, in one
// allreduce: each rank's part (its verdict on the arguments, its hints, its
// memory span, its machine, the backends it would accept) reduces to the
// group's, so that creation costs a fixed-size collective rather than a
// record from every rank. What is not uniform (ranks with different spans,
// or on different machines when the memory sharing is not known yet) is
// gathered in a second round only then.
#pragma once

#include <cstdint>

#include "mpi_host.hpp"
#include "status.hpp"

namespace mpinotify {

struct CreationSummary {
  std::int64_t size_min;
  std::int64_t size_max;
  std::uint64_t node_min;  // machine keys (node_probe.hpp)
  std::uint64_t node_max;
  // The highest window key any rank would give the window: a key above
  // every key a member gave before (next_window_key below).
  std::uint64_t window_key;
  std::int32_t verdict;       // the highest Errc ...
  std::int32_t verdict_rank;  // ... and the lowest rank with it
  std::int32_t disabled;      // any rank asked for mpinotify_disable
  std::int32_t same_counts;   // every rank asserted mpi_assert_same_num_notifications
  std::int32_t disp_unit_min;
  std::int32_t disp_unit_max;
  std::uint32_t backends;       // accepted on every rank
  std::int32_t backends_known;  // every rank knew which it accepts
  std::uint32_t groups_known;   // by backend: every rank knew the group's peers
  // Every rank knew that the group shares one node (its remembered probe
  // answer): where backends_known skips the probe, the placement of the
  // host window follows this agreed bit, never a rank's own memory.
  std::int32_t single_node;
};

// One rank's part.
CreationSummary summary_of_rank(Errc verdict, int rank, bool disabled, bool same_counts,
                                MPI_Aint size, int disp_unit, std::uint64_t node,
                                std::uint32_t backends, bool backends_known);

// Pure: folds `in` into `inout`; commutative and associative.
void combine_summaries(const CreationSummary &in, CreationSummary &inout);

// This process's next window key, and what it becomes once a window took
// `agreed` (the summary's): keys only grow, so a process's live windows
// differ in key, unless two were created at once from different threads
// (backends that key by it must check).
std::uint64_t next_window_key();
void window_key_taken(std::uint64_t agreed);

// Collective over `comm`.
Status reduce_summaries(MPI_Comm comm, const CreationSummary &mine, CreationSummary &all);

// The reduction's MPI type and operation, made once after MPI_Init and
// freed before MPI_Finalize (runtime.cpp).
Status make_summary_reduction();
void free_summary_reduction();

}  // namespace mpinotify
