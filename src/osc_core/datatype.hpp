// Datatype arithmetic the library needs: the bytes an access touches, and
// large counts for hosts whose RMA calls take int counts.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "mpi_host.hpp"
#include "status.hpp"

namespace mpinotify {

// Bytes [lo, hi) touched by `count` elements of a type, relative to the
// buffer start; empty (lo == hi == 0) for count 0.
struct ByteSpan {
  MPI_Count lo = 0;
  MPI_Count hi = 0;
};

// a * b + c, saturated: a span that overflows can never fit a window anyway.
inline MPI_Count saturating_mul_add(MPI_Count a, MPI_Count b, MPI_Count c) {
  MPI_Count product = 0;
  MPI_Count sum = 0;
  if (__builtin_mul_overflow(a, b, &product) || __builtin_add_overflow(product, c, &sum))
    return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
  return sum;
}

// Pure: the span of `count` elements with the given extent and true bounds.
inline ByteSpan element_span(MPI_Count count, MPI_Count extent, MPI_Count true_lb,
                             MPI_Count true_extent) {
  if (count <= 0 || true_extent <= 0) return {};
  const MPI_Count first = true_lb;
  const MPI_Count last = saturating_mul_add(count - 1, extent, true_lb);
  const MPI_Count lo = first < last ? first : last;
  const MPI_Count hi = saturating_mul_add(1, first < last ? last : first, true_extent);
  return {lo, hi};
}

// What the library needs to know of a datatype.
struct TypeShape {
  bool predefined = false;  // named types are committed from the start
  MPI_Count size = 0;
  MPI_Count extent = 0;
  MPI_Count true_lb = 0;
  MPI_Count true_extent = 0;
  // Elements follow each other without gaps, so `count` of them are one
  // block of count * size bytes at true_lb.
  bool contiguous() const { return size == true_extent && size == extent; }
  ByteSpan span(MPI_Count count) const { return element_span(count, extent, true_lb, true_extent); }
};

// Pure: whether `count` elements of `shape` have a byte size and a span that
// MPI_Count can hold. An operation whose sizes overflow is refused before
// anything moves (SEMANTICS 3.4); without the check its size would wrap.
inline bool representable(const TypeShape &shape, MPI_Count count) {
  if (count <= 1) return true;
  MPI_Count bytes = 0;
  MPI_Count reach = 0;
  MPI_Count low = 0;
  MPI_Count high = 0;
  return !__builtin_mul_overflow(count, shape.size, &bytes) &&
         !__builtin_mul_overflow(count - 1, shape.extent, &reach) &&
         !__builtin_add_overflow(reach, shape.true_lb, &low) &&
         !__builtin_add_overflow(low, shape.true_extent, &high);
}

// The shape of MPI_BYTE, for packed buffers.
inline TypeShape byte_shape() { return {true, 1, 1, 0, 1}; }

// Size, extent and true extent of `type`, asked of the host with no
// commit check (types from MPI_Type_get_contents need not be committed).
Status measure_type(MPI_Datatype type, TypeShape &shape);

namespace datatype_detail {
// Shapes of predefined types met so far, in a direct-mapped table keyed by
// the handle (a handle that collides with another simply asks the host).
// An entry is written once, under a mutex in datatype.cpp, and published by
// `set`; readers take it without a lock.
struct PredefinedShape {
  std::atomic<bool> set{false};
  MPI_Datatype type{};
  TypeShape shape;
};
inline constexpr std::size_t kPredefinedSlots = 64;
extern constinit PredefinedShape predefined_shapes[kPredefinedSlots];

inline std::size_t predefined_slot(MPI_Datatype type) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &type, sizeof type < sizeof bits ? sizeof type : sizeof bits);
  return static_cast<std::size_t>((bits * 0x9E3779B97F4A7C15ULL) >> 58);
}

Status ask_and_remember(MPI_Datatype type, MPI_Comm comm, TypeShape &shape);
}  // namespace datatype_detail

// The shape of a predefined type met before, from the table; nullptr for
// others (ask find_shape).
inline const TypeShape *known_predefined_shape(MPI_Datatype type) {
  const datatype_detail::PredefinedShape &known =
      datatype_detail::predefined_shapes[datatype_detail::predefined_slot(type)];
  if (known.set.load(std::memory_order_acquire) && known.type == type) [[likely]]
    return &known.shape;
  return nullptr;
}

// The shape of `type`, after making sure it may be used: a derived type must
// be committed, which only an (empty) MPI_Pack on `comm` reveals in both
// hosts; errors go to `comm`, which must return them. Predefined types are
// answered from a table (their handles never change meaning), inline: every
// notified operation asks. `shape` points into that table, or at `scratch`
// for other types. Reading through the pointer, rather than from a fresh
// copy, spares the hot path a load that waits for the copy's store.
inline Status find_shape(MPI_Datatype type, MPI_Comm comm, TypeShape &scratch,
                         const TypeShape *&shape) {
  shape = known_predefined_shape(type);
  if (shape != nullptr) [[likely]]
    return {};
  shape = &scratch;
  return datatype_detail::ask_and_remember(type, comm, scratch);
}

// The same, copied into `shape`.
inline Status type_shape(MPI_Datatype type, MPI_Comm comm, TypeShape &shape) {
  const TypeShape *found = nullptr;
  MPINOTIFY_TRY(find_shape(type, comm, shape, found));
  if (found != &shape) shape = *found;
  return {};
}

// An int count and datatype describing the same data as an MPI_Count
// count: the original pair when the count fits, otherwise one element of a
// derived type built for the purpose (freed with the object).
class IntCount {
 public:
  IntCount() = default;
  IntCount(const IntCount &) = delete;
  IntCount &operator=(const IntCount &) = delete;
  ~IntCount();
  Status assign(MPI_Count count, MPI_Datatype type);
  int count() const { return count_; }
  MPI_Datatype type() const { return type_; }

 private:
  int count_ = 0;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  bool owned_ = false;
};

// Copies data between two buffers of this process described by
// (count, datatype) pairs of the same type signature: a memmove when both
// are contiguous, otherwise MPI_Pack/MPI_Unpack straight into or out of the
// contiguous side (a bounce buffer only when neither is). Derived types
// must be committed (MPI_ERR_TYPE otherwise). Errors of the host's calls
// go to `comm`, which must return them. `copied` is false when the host
// cannot do it here (more than INT_MAX bytes on an MPI-3 host); the caller
// then lets the host move the data.
Status local_copy(const void *source, MPI_Count source_count, MPI_Datatype source_type,
                  const TypeShape &source_shape, void *destination, MPI_Count destination_count,
                  MPI_Datatype destination_type, const TypeShape &destination_shape, MPI_Comm comm,
                  bool &copied);

// The common case of local_copy, inline: both sides contiguous and the same
// size. Falls back to local_copy otherwise.
inline Status local_copy_fast(const void *source, MPI_Count source_count, MPI_Datatype source_type,
                              const TypeShape &from, void *destination, MPI_Count destination_count,
                              MPI_Datatype destination_type, const TypeShape &to, MPI_Comm comm,
                              bool &copied) {
  const MPI_Count bytes = from.size * source_count;
  if (from.contiguous() && to.contiguous() && bytes == to.size * destination_count) [[likely]] {
    if (bytes > 0)
      std::memmove(static_cast<char *>(destination) + to.true_lb,
                   static_cast<const char *>(source) + from.true_lb,
                   static_cast<std::size_t>(bytes));
    copied = true;
    return {};
  }
  return local_copy(source, source_count, source_type, from, destination, destination_count,
                    destination_type, to, comm, copied);
}

// Pure: how a count above INT_MAX is split into `blocks` blocks of
// `block_len` elements plus `remainder` elements.
struct CountSplit {
  MPI_Count blocks = 0;
  MPI_Count block_len = 0;
  MPI_Count remainder = 0;
};
CountSplit split_count(MPI_Count count);

}  // namespace mpinotify
