#include "type_layout.hpp"

#include <map>
#include <memory>
#include <mutex>

#include "osc_core/datatype.hpp"

namespace mpinotify {

bool PieceList::add(MPI_Count offset, MPI_Count length) {
  if (length <= 0) return true;
  if (!pieces_.empty()) {
    TypePiece &last = pieces_.back();
    if (last.offset + last.length == offset) {
      last.length += length;
      return true;
    }
  }
  if (pieces_.size() == TypeLayout::kMaxPieces) return false;
  pieces_.push_back({offset, length});
  return true;
}

bool for_each_subarray_run(const std::vector<MPI_Count> &sizes,
                           const std::vector<MPI_Count> &subsizes,
                           const std::vector<MPI_Count> &starts, bool c_order,
                           const std::function<bool(MPI_Count, MPI_Count)> &run) {
  const std::size_t dims = sizes.size();
  if (dims == 0 || subsizes.size() != dims || starts.size() != dims) return false;
  // Dimension d of the walk, slowest first.
  auto dim = [&](std::size_t d) { return c_order ? d : dims - 1 - d; };
  std::vector<MPI_Count> stride(dims);  // elements between neighbours along dim(d)
  MPI_Count step = 1;
  for (std::size_t d = dims; d-- > 0;) {
    stride[d] = step;
    step *= sizes[dim(d)];
  }
  for (std::size_t d = 0; d < dims; ++d) {
    if (subsizes[dim(d)] <= 0) return true;  // no elements at all
  }
  std::vector<MPI_Count> index(dims, 0);  // position within the subarray, odometer
  const std::size_t fastest = dims - 1;
  for (;;) {
    MPI_Count first = 0;
    for (std::size_t d = 0; d < dims; ++d) first += (starts[dim(d)] + index[d]) * stride[d];
    if (!run(first, subsizes[dim(fastest)])) return false;
    std::size_t d = fastest;
    for (;;) {
      if (d == 0) return true;
      --d;
      if (++index[d] < subsizes[dim(d)]) break;
      index[d] = 0;
    }
  }
}

namespace {

bool shape_of(MPI_Datatype type, TypeShape &s) { return measure_type(type, s).ok(); }

// A type's constructor arguments; derived types among them are the
// caller's to free (MPI_Type_get_contents makes new handles for them).
struct Contents {
  int combiner = 0;
  std::vector<int> ints;
  std::vector<MPI_Aint> addresses;
  std::vector<MPI_Datatype> types;

  Contents() = default;
  Contents(const Contents &) = delete;
  Contents &operator=(const Contents &) = delete;
  ~Contents() {
    for (MPI_Datatype &t : types) {
      int ni = 0, na = 0, nt = 0, combiner_of_t = 0;
      if (PMPI_Type_get_envelope(t, &ni, &na, &nt, &combiner_of_t) == MPI_SUCCESS &&
          combiner_of_t != MPI_COMBINER_NAMED)
        PMPI_Type_free(&t);
    }
  }
  bool read(MPI_Datatype type) {
    int ni = 0, na = 0, nt = 0;
    if (PMPI_Type_get_envelope(type, &ni, &na, &nt, &combiner) != MPI_SUCCESS) return false;
    if (combiner == MPI_COMBINER_NAMED) return true;
    ints.resize(static_cast<std::size_t>(ni));
    addresses.resize(static_cast<std::size_t>(na));
    std::vector<MPI_Datatype> got(static_cast<std::size_t>(nt), MPI_DATATYPE_NULL);
    if (PMPI_Type_get_contents(type, ni, na, nt, ints.data(), addresses.data(), got.data()) !=
        MPI_SUCCESS)
      return false;
    types = std::move(got);
    return true;
  }
};

// Walks a type map, appending its pieces. Every step spends budget, so a
// type of many empty blocks ends as "not usable" instead of a long walk.
class Decoder {
 public:
  explicit Decoder(PieceList &out) : out_(out) {}

  // `count` elements of `type` from byte `at`.
  bool elements(MPI_Datatype type, MPI_Count count, MPI_Count at) {
    if (count < 0 || --budget_ < 0) return false;
    TypeShape s;
    if (!shape_of(type, s)) return false;
    if (s.size == 0 || count == 0) return true;
    if (s.contiguous()) return out_.add(at + s.true_lb, count * s.size);
    if (s.size == s.true_extent) {  // one dense block per element
      for (MPI_Count i = 0; i < count; ++i) {
        if (--budget_ < 0 || !out_.add(at + i * s.extent + s.true_lb, s.size)) return false;
      }
      return true;
    }
    for (MPI_Count i = 0; i < count; ++i) {
      if (!one(type, at + i * s.extent)) return false;
    }
    return true;
  }

 private:
  static MPI_Count extent_of(MPI_Datatype type) {
    TypeShape s;
    return shape_of(type, s) ? s.extent : 0;
  }

  // One element with holes inside.
  bool one(MPI_Datatype type, MPI_Count at) {
    Contents c;
    if (!c.read(type)) return false;
    const std::vector<int> &n = c.ints;
    const std::vector<MPI_Aint> &a = c.addresses;
    switch (c.combiner) {
      case MPI_COMBINER_DUP:
      case MPI_COMBINER_RESIZED: return elements(c.types[0], 1, at);
      case MPI_COMBINER_CONTIGUOUS: return elements(c.types[0], n[0], at);
      case MPI_COMBINER_VECTOR:
      case MPI_COMBINER_HVECTOR: {
        const MPI_Count stride =
            c.combiner == MPI_COMBINER_VECTOR ? n[2] * extent_of(c.types[0]) : a[0];
        for (int i = 0; i < n[0]; ++i) {
          if (!elements(c.types[0], n[1], at + i * stride)) return false;
        }
        return true;
      }
      case MPI_COMBINER_INDEXED:
      case MPI_COMBINER_HINDEXED: {
        const bool in_bytes = c.combiner == MPI_COMBINER_HINDEXED;
        const MPI_Count unit = extent_of(c.types[0]);
        for (int i = 0; i < n[0]; ++i) {
          const auto k = static_cast<std::size_t>(i);
          const MPI_Count displacement =
              in_bytes ? a[k] : n[static_cast<std::size_t>(n[0]) + 1 + k] * unit;
          if (!elements(c.types[0], n[1 + k], at + displacement)) return false;
        }
        return true;
      }
      case MPI_COMBINER_INDEXED_BLOCK:
      case MPI_COMBINER_HINDEXED_BLOCK: {
        const bool in_bytes = c.combiner == MPI_COMBINER_HINDEXED_BLOCK;
        const MPI_Count unit = extent_of(c.types[0]);
        for (int i = 0; i < n[0]; ++i) {
          const auto k = static_cast<std::size_t>(i);
          const MPI_Count displacement = in_bytes ? a[k] : n[2 + k] * unit;
          if (!elements(c.types[0], n[1], at + displacement)) return false;
        }
        return true;
      }
      case MPI_COMBINER_STRUCT:
        for (int i = 0; i < n[0]; ++i) {
          const auto k = static_cast<std::size_t>(i);
          if (!elements(c.types[k], n[1 + k], at + a[k])) return false;
        }
        return true;
      case MPI_COMBINER_SUBARRAY: {
        const auto dims = static_cast<std::size_t>(n[0]);
        std::vector<MPI_Count> sizes(dims), subsizes(dims), starts(dims);
        for (std::size_t d = 0; d < dims; ++d) {
          sizes[d] = n[1 + d];
          subsizes[d] = n[1 + dims + d];
          starts[d] = n[1 + 2 * dims + d];
        }
        const MPI_Count unit = extent_of(c.types[0]);
        return for_each_subarray_run(sizes, subsizes, starts, n[1 + 3 * dims] == MPI_ORDER_C,
                                     [&](MPI_Count first, MPI_Count length) {
                                       return elements(c.types[0], length, at + first * unit);
                                     });
      }
      default: return false;  // a distributed array, a pair type with a hole, ...
    }
  }

  PieceList &out_;
  long budget_ = 16 * static_cast<long>(TypeLayout::kMaxPieces);
};

TypeLayout decode(MPI_Datatype type) {
  TypeLayout layout;
  TypeShape s;
  if (!shape_of(type, s)) return layout;
  PieceList pieces;
  Decoder decoder(pieces);
  if (!decoder.elements(type, 1, 0)) return layout;
  layout.usable = true;
  layout.extent = s.extent;
  layout.pieces = pieces.take();
  return layout;
}

int forget_layout(MPI_Datatype /*type*/, int /*keyval*/, void *value, void * /*extra*/) {
  delete static_cast<TypeLayout *>(value);
  return MPI_SUCCESS;
}

std::mutex layouts_mutex;
int layout_keyval = MPI_KEYVAL_INVALID;
// Predefined types never change meaning and take no attributes here.
std::map<MPI_Datatype, TypeLayout> predefined_layouts;

}  // namespace

Status type_layout(MPI_Datatype type, const TypeLayout *&layout) {
  std::lock_guard guard(layouts_mutex);
  int ni = 0, na = 0, nt = 0, combiner = 0;
  MPINOTIFY_TRY(
      host_status(PMPI_Type_get_envelope(type, &ni, &na, &nt, &combiner), "MPI_Type_get_envelope"));
  if (combiner == MPI_COMBINER_NAMED) {
    auto known = predefined_layouts.find(type);
    if (known == predefined_layouts.end())
      known = predefined_layouts.emplace(type, decode(type)).first;
    layout = &known->second;
    return {};
  }
  if (layout_keyval == MPI_KEYVAL_INVALID)
    MPINOTIFY_TRY(host_status(
        PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, forget_layout, &layout_keyval, nullptr),
        "MPI_Type_create_keyval"));
  void *value = nullptr;
  int found = 0;
  MPINOTIFY_TRY(
      host_status(PMPI_Type_get_attr(type, layout_keyval, &value, &found), "MPI_Type_get_attr"));
  if (found == 0) {
    auto made = std::make_unique<TypeLayout>(decode(type));
    MPINOTIFY_TRY(
        host_status(PMPI_Type_set_attr(type, layout_keyval, made.get()), "MPI_Type_set_attr"));
    value = made.release();
  }
  layout = static_cast<const TypeLayout *>(value);
  return {};
}

Status target_pieces(const NotifyOp &op, const TypeLayout *&layout, bool &usable) {
  layout = nullptr;
  usable = true;
  if (op.target_shape.contiguous()) return {};
  MPINOTIFY_TRY(type_layout(op.target_type, layout));
  constexpr MPI_Count kMaxPiecesPerOperation = 1 << 16;
  usable = layout->usable && static_cast<MPI_Count>(layout->pieces.size()) * op.target_count <=
                                 kMaxPiecesPerOperation;
  return {};
}

}  // namespace mpinotify
