// SEMANTICS 3.8: put and get whose target type is cut into many contiguous
// pieces, in every shape a type constructor makes: negative strides,
// displacements in descending order, blocks, subarrays in C and Fortran
// order, nested and resized types, a duplicate, a count of several
// elements; and types a backend may leave to the host (a distributed array,
// a type of thousands of pieces, a pair type with a hole, an overlapping
// type read by a get). The expected bytes come from the host's own
// MPI_Pack/MPI_Unpack of the same types, so every type map is checked
// byte for byte, gaps included.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "datatype_helpers.hpp"

namespace mpitest::datatypes {
namespace {

struct PieceCase {
  const char *name;
  MPI_Datatype type;
  int count;
  bool ints_only;       // the origin may describe it as plain MPI_INTs
  bool put = true;      // overlapping types may only be read
  MPI_Aint put_at = 0;  // buffer start in every rank's window
  MPI_Aint get_at = 0;
};

// `type` by reference: it is read only after the constructor call ran.
MPI_Datatype make(int rc, MPI_Datatype &type) {
  EXPECT_MPI_OK(rc);
  return committed(type);
}

std::vector<PieceCase> make_cases() {
  std::vector<PieceCase> cases;
  MPI_Datatype t = MPI_DATATYPE_NULL;
  cases.push_back({"hvector, negative stride",
                   make(MPI_Type_create_hvector(3, 2, -40, MPI_INT, &t), t), 2, true});
  {
    const int lengths[3] = {2, 1, 3};
    const MPI_Aint displs[3] = {64, 24, 0};
    cases.push_back({"hindexed, descending",
                     make(MPI_Type_create_hindexed(3, lengths, displs, MPI_INT, &t), t), 2, true});
  }
  {
    const int displs[3] = {9, 1, 5};
    cases.push_back({"indexed_block",
                     make(MPI_Type_create_indexed_block(3, 2, displs, MPI_INT, &t), t), 1, true});
  }
  {
    const MPI_Aint displs[3] = {100, 40, 4};
    cases.push_back({"hindexed_block",
                     make(MPI_Type_create_hindexed_block(3, 3, displs, MPI_INT, &t), t), 1, true});
  }
  {
    const int sizes[2] = {4, 6}, subsizes[2] = {2, 3}, starts[2] = {1, 2};
    cases.push_back(
        {"subarray, C order",
         make(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t), t), 2,
         true});
  }
  {
    const int sizes[3] = {5, 4, 3}, subsizes[3] = {2, 2, 2}, starts[3] = {1, 1, 0};
    cases.push_back(
        {"subarray, Fortran order",
         make(MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &t),
              t),
         1, true});
  }
  {
    // Two ints 8 bytes apart, resized to 16, in a vector: nested holes.
    const int blocks[2] = {1, 1};
    const MPI_Aint displs[2] = {0, 8};
    const MPI_Datatype members[2] = {MPI_INT, MPI_INT};
    MPI_Datatype raw = MPI_DATATYPE_NULL, pair = MPI_DATATYPE_NULL;
    EXPECT_MPI_OK(MPI_Type_create_struct(2, blocks, displs, members, &raw));
    EXPECT_MPI_OK(MPI_Type_create_resized(raw, 0, 16, &pair));
    cases.push_back(
        {"vector of resized struct", make(MPI_Type_vector(2, 2, 3, pair, &t), t), 2, true});
    MPI_Type_free(&raw);
    MPI_Type_free(&pair);
  }
  {
    MPI_Datatype vec = MPI_DATATYPE_NULL, shifted = MPI_DATATYPE_NULL;
    EXPECT_MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    cases.push_back({"dup of a vector", make(MPI_Type_dup(vec, &t), t), 3, true});
    cases.push_back({"resized, lower bound moved",
                     make(MPI_Type_create_resized(vec, -8, 24, &shifted), shifted), 3, true});
    MPI_Type_free(&vec);
  }
  {
    // Rank 0's share of 8 ints dealt cyclically to 2 processes.
    const int gsizes[1] = {8}, distribs[1] = {MPI_DISTRIBUTE_CYCLIC}, dargs[1] = {1},
              psizes[1] = {2};
    cases.push_back({"darray",
                     make(MPI_Type_create_darray(2, 0, 1, gsizes, distribs, dargs, psizes,
                                                 MPI_ORDER_C, MPI_INT, &t),
                          t),
                     1, true});
  }
  cases.push_back(
      {"vector of 4200 pieces", make(MPI_Type_vector(4200, 1, 2, MPI_INT, &t), t), 1, true});
  {
    // A struct of an int and a double: the origin uses the same type.
    const int blocks[2] = {1, 1};
    const MPI_Aint displs[2] = {0, 8};
    const MPI_Datatype members[2] = {MPI_INT, MPI_DOUBLE};
    cases.push_back({"struct with padding",
                     make(MPI_Type_create_struct(2, blocks, displs, members, &t), t), 3, false});
  }
  {
    const int lengths[2] = {2, 2};
    const int displs[2] = {0, 1};  // ints 1 twice
    PieceCase overlap{"overlapping indexed",
                      make(MPI_Type_indexed(2, lengths, displs, MPI_INT, &t), t), 1, true};
    overlap.put = false;
    cases.push_back(overlap);
  }
  cases.push_back({"MPI_SHORT_INT", MPI_SHORT_INT, 3, false});
  return cases;
}

struct ByteSpan {
  MPI_Aint lo;
  MPI_Aint hi;
};

// Bytes [lo, hi) that `count` elements of `type` touch from the buffer start.
ByteSpan span_of(MPI_Datatype type, int count) {
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  MPI_Type_get_extent(type, &lb, &extent);
  MPI_Type_get_true_extent(type, &true_lb, &true_extent);
  const MPI_Aint first = true_lb, last = true_lb + (count - 1) * extent;
  return {std::min(first, last), std::max(first, last) + true_extent};
}

// Lays the cases out one after another; every rank computes the same.
MPI_Aint place(std::vector<PieceCase> &cases) {
  MPI_Aint cursor = 64;
  auto next = [&](const PieceCase &c) {
    const ByteSpan s = span_of(c.type, c.count);
    const MPI_Aint start = cursor - s.lo;
    cursor += ((s.hi - s.lo + 64) / 64) * 64;
    return start;
  };
  for (PieceCase &c : cases) {
    c.put_at = next(c);
    c.get_at = next(c);
  }
  return cursor;
}

int type_size(MPI_Datatype type) {
  int size = 0;
  MPI_Type_size(type, &size);
  return size;
}

// What origin rank `r` puts in case k: MPI_INTs, or (for the others) a
// buffer of the case's own type filled with a pattern.
std::vector<unsigned char> origin_data(int r, std::size_t k, const PieceCase &c) {
  const ByteSpan s = span_of(c.type, c.count);
  const auto bytes = static_cast<std::size_t>(c.ints_only ? type_size(c.type) * c.count : s.hi);
  std::vector<unsigned char> data(bytes);
  for (std::size_t i = 0; i < bytes; ++i)
    data[i] =
        static_cast<unsigned char>(r * 31 + static_cast<int>(k) * 17 + static_cast<int>(i) * 5 + 3);
  return data;
}

// MPI_Pack of `count` elements at `buffer` (the host's type-map order).
std::vector<unsigned char> packed(const void *buffer, int count, MPI_Datatype type) {
  std::vector<unsigned char> out(static_cast<std::size_t>(type_size(type) * count));
  int position = 0;
  EXPECT_MPI_OK(MPI_Pack(buffer, count, type, out.data(), static_cast<int>(out.size()), &position,
                         MPI_COMM_SELF));
  return out;
}

void unpack_into(const std::vector<unsigned char> &stream, void *buffer, int count,
                 MPI_Datatype type) {
  int position = 0;
  EXPECT_MPI_OK(MPI_Unpack(stream.data(), static_cast<int>(stream.size()), &position, buffer, count,
                           type, MPI_COMM_SELF));
}

// initial_bytes' pattern, over this test's larger window.
std::vector<unsigned char> start_image(int r, MPI_Aint bytes) {
  std::vector<unsigned char> v(static_cast<std::size_t>(bytes));
  for (MPI_Aint i = 0; i < bytes; ++i) v[static_cast<std::size_t>(i)] = initial_byte(r, i);
  return v;
}

TEST_P(Datatypes, TargetTypesCutIntoPieces_3_8) {
  std::vector<PieceCase> cases = make_cases();
  const MPI_Aint bytes = place(cases);
  TestWindow w(GetParam(), bytes);
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int target = (me + 1) % n;
  const int origin = (me + n - 1) % n;
  const int ops = static_cast<int>(2 * cases.size());
  std::memcpy(w.base(), start_image(me, bytes).data(), static_cast<std::size_t>(bytes));
  w.set_num_notify(ops);
  MPI_Barrier(MPI_COMM_WORLD);

  std::vector<std::vector<unsigned char>> sent(cases.size()), got(cases.size());
  const MPI_Win win = w.win();
  MPI_Win_lock_all(0, win);
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const PieceCase &c = cases[k];
    const int idx = static_cast<int>(2 * k);
    const int ints = type_size(c.type) * c.count / 4;
    if (c.put) {
      sent[k] = origin_data(me, k, c);
      const unsigned char *from = sent[k].data();
      EXPECT_MPI_OK(c.ints_only
                        ? MPI_Put_notify(from, ints, MPI_INT, target, w.disp(target, c.put_at),
                                         c.count, c.type, idx, win)
                        : MPI_Put_notify(from, c.count, c.type, target, w.disp(target, c.put_at),
                                         c.count, c.type, idx, win))
          << c.name;
    }
    got[k].assign(origin_data(me, k, c).size(), 0xcd);
    EXPECT_MPI_OK(c.ints_only
                      ? MPI_Get_notify(got[k].data(), ints, MPI_INT, target,
                                       w.disp(target, c.get_at), c.count, c.type, idx + 1, win)
                      : MPI_Get_notify(got[k].data(), c.count, c.type, target,
                                       w.disp(target, c.get_at), c.count, c.type, idx + 1, win))
        << c.name;
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);

  // As a target: each put wrote exactly its type map.
  std::vector<unsigned char> expected = start_image(me, bytes);
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const PieceCase &c = cases[k];
    if (!c.put) continue;
    const std::vector<unsigned char> from = origin_data(origin, k, c);
    const std::vector<unsigned char> stream =
        c.ints_only ? from : packed(from.data(), c.count, c.type);
    unpack_into(stream, expected.data() + c.put_at, c.count, c.type);
  }
  expect_bytes(expected.data(), w.base(), expected.size(), "window after puts of cut types");
  for (std::size_t k = 0; k < cases.size(); ++k) {
    for (int get = 0; get < 2; ++get) {
      MPI_Count v = -1;
      EXPECT_MPI_OK(MPI_Win_get_notify_value(win, static_cast<int>(2 * k) + get, &v));
      EXPECT_EQ(get == 1 || cases[k].put ? 1 : 0, v)
          << (get == 1 ? "get of " : "put of ") << cases[k].name << " on rank " << me;
    }
  }

  // As an origin: each get read exactly its type map.
  const std::vector<unsigned char> there = start_image(target, bytes);
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const PieceCase &c = cases[k];
    const std::vector<unsigned char> stream = packed(there.data() + c.get_at, c.count, c.type);
    std::vector<unsigned char> want = stream;
    if (!c.ints_only) {
      want.assign(got[k].size(), 0xcd);
      unpack_into(stream, want.data(), c.count, c.type);
    }
    EXPECT_EQ(want, got[k]) << "get of " << c.name;
  }
  for (PieceCase &c : cases) {
    if (c.type != MPI_SHORT_INT) MPI_Type_free(&c.type);
  }
}

}  // namespace
}  // namespace mpitest::datatypes
