#include "datatype.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

namespace mpinotify {
namespace {}  // namespace

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

namespace mpinotify {

Status measure_type(MPI_Datatype type, TypeShape &shape) {
  MPI_Count lb = 0;
  MPINOTIFY_TRY(host_status(PMPI_Type_size_x(type, &shape.size), "MPI_Type_size_x"));
  MPINOTIFY_TRY(
      host_status(PMPI_Type_get_extent_x(type, &lb, &shape.extent), "MPI_Type_get_extent_x"));
  return host_status(PMPI_Type_get_true_extent_x(type, &shape.true_lb, &shape.true_extent),
                     "MPI_Type_get_true_extent_x");
}

namespace {

Status ask_host(MPI_Datatype type, MPI_Comm comm, TypeShape &shape) {
  int integers = 0;
  int addresses = 0;
  int types = 0;
  int combiner = 0;
  MPINOTIFY_TRY(host_status(PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner),
                            "MPI_Type_get_envelope"));
  shape.predefined = combiner == MPI_COMBINER_NAMED;
  if (!shape.predefined) {
    char none = 0;
    int position = 0;
    MPINOTIFY_TRY(host_status(PMPI_Pack(&none, 0, type, &none, 0, &position, comm),
                              "datatype check (MPI_Pack)"));
  }
  return measure_type(type, shape);
}

#if MPI_VERSION >= 4
int pack(const void *in, MPI_Count count, MPI_Datatype type, void *out, MPI_Count bytes,
         MPI_Comm comm) {
  MPI_Count position = 0;
  return PMPI_Pack_c(in, count, type, out, bytes, &position, comm);
}
int unpack(const void *in, MPI_Count bytes, void *out, MPI_Count count, MPI_Datatype type,
           MPI_Comm comm) {
  MPI_Count position = 0;
  return PMPI_Unpack_c(in, bytes, &position, out, count, type, comm);
}
#else
int pack(const void *in, MPI_Count count, MPI_Datatype type, void *out, MPI_Count bytes,
         MPI_Comm comm) {
  int position = 0;
  return PMPI_Pack(in, static_cast<int>(count), type, out, static_cast<int>(bytes), &position,
                   comm);
}
int unpack(const void *in, MPI_Count bytes, void *out, MPI_Count count, MPI_Datatype type,
           MPI_Comm comm) {
  int position = 0;
  return PMPI_Unpack(in, static_cast<int>(bytes), &position, out, static_cast<int>(count), type,
                     comm);
}
#endif

}  // namespace

namespace datatype_detail {

constinit PredefinedShape predefined_shapes[kPredefinedSlots] = {};

namespace {
std::mutex remember_mutex;
}  // namespace

Status ask_and_remember(MPI_Datatype type, MPI_Comm comm, TypeShape &shape) {
  MPINOTIFY_TRY(ask_host(type, comm, shape));
  if (!shape.predefined) return {};
  std::lock_guard guard(remember_mutex);
  PredefinedShape &entry = predefined_shapes[predefined_slot(type)];
  if (entry.set.load(std::memory_order_relaxed)) return {};
  entry.type = type;
  entry.shape = shape;
  entry.set.store(true, std::memory_order_release);
  return {};
}

}  // namespace datatype_detail

Status local_copy(const void *source, MPI_Count source_count, MPI_Datatype source_type,
                  const TypeShape &from, void *destination, MPI_Count destination_count,
                  MPI_Datatype destination_type, const TypeShape &to, MPI_Comm comm, bool &copied) {
  copied = false;
  const MPI_Count bytes = from.size * source_count;
  if (bytes != to.size * destination_count)
    return error(Errc::type, "origin and target describe different amounts of data (" +
                                 std::to_string(bytes) + " and " +
                                 std::to_string(to.size * destination_count) + " bytes)");
  const auto *in = static_cast<const char *>(source);
  auto *out = static_cast<char *>(destination);
  if (bytes == 0) {
    copied = true;
    return {};
  }
  if (from.contiguous() && to.contiguous()) {
    std::memmove(out + to.true_lb, in + from.true_lb, static_cast<std::size_t>(bytes));
    copied = true;
    return {};
  }
#if MPI_VERSION < 4
  if (bytes > INT_MAX || source_count > INT_MAX || destination_count > INT_MAX) return {};
#endif
  if (to.contiguous()) {
    MPINOTIFY_TRY(host_status(pack(in, source_count, source_type, out + to.true_lb, bytes, comm),
                              "MPI_Pack"));
  } else if (from.contiguous()) {
    MPINOTIFY_TRY(host_status(
        unpack(in + from.true_lb, bytes, out, destination_count, destination_type, comm),
        "MPI_Unpack"));
  } else {
    std::vector<char> bounce(static_cast<std::size_t>(bytes));
    MPINOTIFY_TRY(
        host_status(pack(in, source_count, source_type, bounce.data(), bytes, comm), "MPI_Pack"));
    MPINOTIFY_TRY(
        host_status(unpack(bounce.data(), bytes, out, destination_count, destination_type, comm),
                    "MPI_Unpack"));
  }
  copied = true;
  return {};
}

}  // namespace mpinotify
