// The contiguous pieces of a datatype, in type-map order: what a backend
// needs to move a non-contiguous target buffer as a few contiguous
// transfers (the packed stream of the origin is cut into the same pieces).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "osc_core/module.hpp"
#include "osc_core/mpi_host.hpp"
#include "osc_core/status.hpp"

namespace mpinotify {

// `length` bytes at `offset` from the buffer start (offset may be negative).
struct TypePiece {
  MPI_Count offset = 0;
  MPI_Count length = 0;
};

// One element of a type as pieces; element i of a count lies `extent`
// bytes after element i - 1. `usable` is false for a type that cannot be
// described here (a distributed array, a type of more than kMaxPieces
// pieces, a predefined pair type with a hole, a type the host will not
// decode): the caller then lets the host move the data.
struct TypeLayout {
  static constexpr std::size_t kMaxPieces = 4096;
  bool usable = false;
  MPI_Count extent = 0;
  std::vector<TypePiece> pieces;
};

// Pure: appends pieces in type-map order, merging a piece into the one
// before when it starts where that one ends; false once more than
// kMaxPieces would be needed.
class PieceList {
 public:
  bool add(MPI_Count offset, MPI_Count length);
  std::vector<TypePiece> take() { return std::move(pieces_); }
  const std::vector<TypePiece> &pieces() const { return pieces_; }

 private:
  std::vector<TypePiece> pieces_;
};

// Pure: the runs of a subarray (MPI_Type_create_subarray) in type-map
// order, in elements of the old type from the start of the full array:
// calls `run(first, length)` for each run along the fastest dimension and
// stops early when it returns false. `c_order` is MPI_ORDER_C.
bool for_each_subarray_run(const std::vector<MPI_Count> &sizes,
                           const std::vector<MPI_Count> &subsizes,
                           const std::vector<MPI_Count> &starts, bool c_order,
                           const std::function<bool(MPI_Count, MPI_Count)> &run);

// The layout of a committed `type`, decoded through the host's envelope
// and contents calls once and kept on the type as an attribute (so a freed
// handle that the host reuses never finds another type's layout). Valid
// while the type is. Thread safe.
Status type_layout(MPI_Datatype type, const TypeLayout *&layout);

// Calls move(packed_offset, target_offset, length) for each contiguous
// piece of `count` target elements, in type-map order: the packed stream
// of the other side is cut into the same pieces.
template <class Move>
Status for_each_piece(const TypeLayout &layout, MPI_Count count, Move move) {
  MPI_Count packed = 0;
  for (MPI_Count i = 0; i < count; ++i) {
    for (const TypePiece &piece : layout.pieces) {
      MPINOTIFY_TRY(move(packed, i * layout.extent + piece.offset, piece.length));
      packed += piece.length;
    }
  }
  return {};
}

// For a backend that moves data itself: op's target type as pieces, null
// (with `usable`) when the type is contiguous; `usable` false (too many
// pieces, a type that cannot be cut) leaves the operation to the host.
Status target_pieces(const NotifyOp &op, const TypeLayout *&layout, bool &usable);

}  // namespace mpinotify
