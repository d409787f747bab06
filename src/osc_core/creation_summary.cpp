#include "creation_summary.hpp"

#include <algorithm>
#include <atomic>

namespace mpinotify {
namespace {

MPI_Datatype summary_type = MPI_DATATYPE_NULL;
MPI_Op summary_op = MPI_OP_NULL;
std::atomic<std::uint64_t> next_key{1};

void combine_in_mpi(void *in, void *inout, int *count, MPI_Datatype * /*type*/) {
  const auto *from = static_cast<const CreationSummary *>(in);
  auto *into = static_cast<CreationSummary *>(inout);
  for (int i = 0; i < *count; ++i) combine_summaries(from[i], into[i]);
}

}  // namespace

CreationSummary summary_of_rank(Errc verdict, int rank, bool disabled, bool same_counts,
                                MPI_Aint size, int disp_unit, std::uint64_t node,
                                std::uint32_t backends, bool backends_known) {
  return {size,
          size,
          node,
          node,
          0,
          static_cast<std::int32_t>(verdict),
          rank,
          disabled ? 1 : 0,
          same_counts ? 1 : 0,
          disp_unit,
          disp_unit,
          backends,
          backends_known ? 1 : 0,
          0,
          0};
}

void combine_summaries(const CreationSummary &in, CreationSummary &inout) {
  if (in.verdict > inout.verdict ||
      (in.verdict == inout.verdict && in.verdict_rank < inout.verdict_rank)) {
    inout.verdict = in.verdict;
    inout.verdict_rank = in.verdict_rank;
  }
  inout.size_min = std::min(inout.size_min, in.size_min);
  inout.size_max = std::max(inout.size_max, in.size_max);
  inout.node_min = std::min(inout.node_min, in.node_min);
  inout.node_max = std::max(inout.node_max, in.node_max);
  inout.window_key = std::max(inout.window_key, in.window_key);
  inout.disabled = std::max(inout.disabled, in.disabled);
  inout.same_counts = std::min(inout.same_counts, in.same_counts);
  inout.disp_unit_min = std::min(inout.disp_unit_min, in.disp_unit_min);
  inout.disp_unit_max = std::max(inout.disp_unit_max, in.disp_unit_max);
  inout.backends &= in.backends;
  inout.backends_known = std::min(inout.backends_known, in.backends_known);
  inout.groups_known &= in.groups_known;
  inout.single_node = std::min(inout.single_node, in.single_node);
}

std::uint64_t next_window_key() { return next_key.load(std::memory_order_relaxed); }

void window_key_taken(std::uint64_t agreed) {
  std::uint64_t known = next_key.load(std::memory_order_relaxed);
  while (known <= agreed &&
         !next_key.compare_exchange_weak(known, agreed + 1, std::memory_order_relaxed)) {
  }
}

Status reduce_summaries(MPI_Comm comm, const CreationSummary &mine, CreationSummary &all) {
  if (summary_op == MPI_OP_NULL) return error(Errc::intern, "window creation before MPI_Init");
  return host_status(PMPI_Allreduce(&mine, &all, 1, summary_type, summary_op, comm),
                     "MPI_Allreduce");
}

Status make_summary_reduction() {
  if (summary_op != MPI_OP_NULL) return {};
  MPINOTIFY_TRY(host_status(
      PMPI_Type_contiguous(static_cast<int>(sizeof(CreationSummary)), MPI_BYTE, &summary_type),
      "MPI_Type_contiguous"));
  MPINOTIFY_TRY(host_status(PMPI_Type_commit(&summary_type), "MPI_Type_commit"));
  return host_status(PMPI_Op_create(combine_in_mpi, 1, &summary_op), "MPI_Op_create");
}

void free_summary_reduction() {
  if (summary_op != MPI_OP_NULL) PMPI_Op_free(&summary_op);
  if (summary_type != MPI_DATATYPE_NULL) PMPI_Type_free(&summary_type);
}

}  // namespace mpinotify
