#include "datatype.hpp"

#include <algorithm>
#include <climits>
#include <limits>

namespace mpinotify {
namespace {
constexpr MPI_Count kCountMax = std::numeric_limits<MPI_Count>::max();
constexpr MPI_Count kCountMin = std::numeric_limits<MPI_Count>::min();

// a*b+c, saturated: a span that overflows can never fit a window anyway.
MPI_Count mul_add(MPI_Count a, MPI_Count b, MPI_Count c) {
  MPI_Count product = 0;
  MPI_Count sum = 0;
  if (__builtin_mul_overflow(a, b, &product) || __builtin_add_overflow(product, c, &sum))
    return ((a < 0) != (b < 0)) ? kCountMin : kCountMax;
  return sum;
}
}  // namespace

ByteSpan element_span(MPI_Count count, MPI_Count extent, MPI_Count true_lb, MPI_Count true_extent) {
  if (count <= 0 || true_extent <= 0) return {};
  const MPI_Count first = true_lb;
  const MPI_Count last = mul_add(count - 1, extent, true_lb);
  const MPI_Count lo = std::min(first, last);
  const MPI_Count hi = mul_add(1, std::max(first, last), true_extent);
  return {lo, hi};
}

Status type_span(MPI_Count count, MPI_Datatype type, ByteSpan &out) {
  MPI_Count lb = 0;
  MPI_Count extent = 0;
  MPI_Count true_lb = 0;
  MPI_Count true_extent = 0;
  MPINOTIFY_TRY(host_status(PMPI_Type_get_extent_x(type, &lb, &extent), "MPI_Type_get_extent_x"));
  MPINOTIFY_TRY(host_status(PMPI_Type_get_true_extent_x(type, &true_lb, &true_extent),
                            "MPI_Type_get_true_extent_x"));
  out = element_span(count, extent, true_lb, true_extent);
  return {};
}

CountSplit split_count(MPI_Count count) {
  constexpr MPI_Count kBlock = MPI_Count{1} << 30;
  if (count <= INT_MAX) return {0, 0, count};
  return {count / kBlock, kBlock, count % kBlock};
}

IntCount::~IntCount() {
  if (owned_) PMPI_Type_free(&type_);
}

Status IntCount::assign(MPI_Count count, MPI_Datatype type) {
  if (count <= INT_MAX) {
    count_ = static_cast<int>(count);
    type_ = type;
    return {};
  }
  const CountSplit split = split_count(count);
  if (split.blocks > INT_MAX) return error(Errc::count, "count too large for the host MPI");
  MPI_Count lb = 0;
  MPI_Count extent = 0;
  MPINOTIFY_TRY(host_status(PMPI_Type_get_extent_x(type, &lb, &extent), "MPI_Type_get_extent_x"));
  MPI_Datatype blocks = MPI_DATATYPE_NULL;
  MPINOTIFY_TRY(host_status(
      PMPI_Type_vector(static_cast<int>(split.blocks), static_cast<int>(split.block_len),
                       static_cast<int>(split.block_len), type, &blocks),
      "MPI_Type_vector"));
  MPI_Datatype whole = blocks;
  if (split.remainder > 0) {
    MPI_Datatype rest = MPI_DATATYPE_NULL;
    Status st = host_status(PMPI_Type_contiguous(static_cast<int>(split.remainder), type, &rest),
                            "MPI_Type_contiguous");
    if (st.ok()) {
      int lengths[2] = {1, 1};
      MPI_Aint displs[2] = {0, static_cast<MPI_Aint>(split.blocks * split.block_len * extent)};
      MPI_Datatype parts[2] = {blocks, rest};
      st = host_status(PMPI_Type_create_struct(2, lengths, displs, parts, &whole),
                       "MPI_Type_create_struct");
      PMPI_Type_free(&rest);
    }
    PMPI_Type_free(&blocks);
    MPINOTIFY_TRY(st);
  }
  Status st = host_status(PMPI_Type_commit(&whole), "MPI_Type_commit");
  if (!st.ok()) {
    PMPI_Type_free(&whole);
    return st;
  }
  count_ = 1;
  type_ = whole;
  owned_ = true;
  return {};
}

}  // namespace mpinotify
