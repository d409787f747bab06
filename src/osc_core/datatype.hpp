// Datatype arithmetic the library needs: the bytes an access touches, and
// large counts for hosts whose RMA calls take int counts.
#pragma once

#include "mpi_host.hpp"
#include "status.hpp"

namespace mpinotify {

// Bytes [lo, hi) touched by `count` elements of a type, relative to the
// buffer start; empty (lo == hi == 0) for count 0.
struct ByteSpan {
  MPI_Count lo = 0;
  MPI_Count hi = 0;
};

// Pure: the span of `count` elements with the given extent and true bounds.
ByteSpan element_span(MPI_Count count, MPI_Count extent, MPI_Count true_lb, MPI_Count true_extent);

// The span of `count` elements of `type` (asks the host for the bounds).
Status type_span(MPI_Count count, MPI_Datatype type, ByteSpan &out);

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
                  void *destination, MPI_Count destination_count, MPI_Datatype destination_type,
                  MPI_Comm comm, bool &copied);

// Pure: how a count above INT_MAX is split into `blocks` blocks of
// `block_len` elements plus `remainder` elements.
struct CountSplit {
  MPI_Count blocks = 0;
  MPI_Count block_len = 0;
  MPI_Count remainder = 0;
};
CountSplit split_count(MPI_Count count);

}  // namespace mpinotify
