// Helpers shared by the datatype tests (test_datatypes.cpp and
// test_datatypes_accumulate.cpp): the window image every case starts from,
// byte-for-byte comparison, the derived types both files use, and the
// Datatypes suite itself (its tests live in both files; test_datatypes.cpp
// instantiates it).
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "harness.hpp"

namespace mpitest::datatypes {

inline constexpr MPI_Aint kBytes = 4096;
inline constexpr MPI_Aint kRegion = 256;  // bytes per case: case k lives at k * kRegion

// Byte i of rank r's window before a test writes anything.
inline unsigned char initial_byte(int r, MPI_Aint i) {
  return static_cast<unsigned char>((r * 53 + i * 7 + 1) & 0xff);
}

inline std::vector<unsigned char> initial_bytes(int r) {
  std::vector<unsigned char> v(static_cast<std::size_t>(kBytes));
  for (MPI_Aint i = 0; i < kBytes; ++i) v[static_cast<std::size_t>(i)] = initial_byte(r, i);
  return v;
}

template <class T>
void store(std::vector<unsigned char> &bytes, MPI_Aint offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}

template <class T>
T load(const std::vector<unsigned char> &bytes, MPI_Aint offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

// Compares `len` bytes and reports the first few differences.
inline void expect_bytes(const void *expected, const void *actual, std::size_t len,
                         const std::string &what) {
  const auto *e = static_cast<const unsigned char *>(expected);
  const auto *a = static_cast<const unsigned char *>(actual);
  int wrong = 0;
  for (std::size_t i = 0; i < len; ++i) {
    if (e[i] != a[i] && ++wrong <= 4) {
      ADD_FAILURE() << what << ": byte " << i << " (case " << i / kRegion << ", byte "
                    << i % kRegion << " of it) is " << int{a[i]} << ", expected " << int{e[i]};
    }
  }
  EXPECT_EQ(0, wrong) << what << ": bytes differ on rank " << mpitest::rank();
}

inline void expect_counters(MPI_Win win, int n, MPI_Count expected) {
  for (int idx = 0; idx < n; ++idx) {
    MPI_Count v = -1;
    EXPECT_MPI_OK(MPI_Win_get_notify_value(win, idx, &v));
    EXPECT_EQ(expected, v) << "counter " << idx << " (case " << idx << ") on rank "
                           << mpitest::rank();
  }
}

// Loads `image` into this rank's window (a barrier must follow).
inline void load_window(const TestWindow &w, const std::vector<unsigned char> &image) {
  std::memcpy(w.base(), image.data(), image.size());
}

inline MPI_Datatype committed(MPI_Datatype type) {
  EXPECT_MPI_OK(MPI_Type_commit(&type));
  return type;
}

inline void free_types(std::vector<MPI_Datatype> types) {
  for (MPI_Datatype &t : types) MPI_Type_free(&t);
}

// One suite for both files: the fixture must be one type everywhere.
class Datatypes : public FlavorTest {};

// ---------------------------------------------------------------------------
// Derived types.

struct S {  // 4 bytes of padding after a, 7 after c
  int a;
  double b;
  char c;
};

// The derived types of these tests, committed; free with free_types.
struct Types {
  MPI_Datatype vec = MPI_DATATYPE_NULL;          // 4 blocks of 2 ints, stride 5 ints
  MPI_Datatype indexed = MPI_DATATYPE_NULL;      // ints at 0, 4,5,6, 10,11
  MPI_Datatype s = MPI_DATATYPE_NULL;            // struct S (a, b, c), resized to sizeof(S)
  MPI_Datatype every_third = MPI_DATATYPE_NULL;  // MPI_INT resized to an extent of 12 bytes
  MPI_Datatype two_s = MPI_DATATYPE_NULL;        // contiguous of 2 S
  std::vector<MPI_Datatype> all() const { return {vec, indexed, s, every_third, two_s}; }
};

inline constexpr int kVecOffsets[8] = {0, 1, 5, 6, 10, 11, 15, 16};
inline constexpr int kIndexedOffsets[6] = {0, 4, 5, 6, 10, 11};

inline Types make_types() {
  Types t;
  EXPECT_MPI_OK(MPI_Type_vector(4, 2, 5, MPI_INT, &t.vec));
  t.vec = committed(t.vec);
  const int lengths[3] = {1, 3, 2};
  const int displs[3] = {0, 4, 10};
  EXPECT_MPI_OK(MPI_Type_indexed(3, lengths, displs, MPI_INT, &t.indexed));
  t.indexed = committed(t.indexed);
  const int blocks[3] = {1, 1, 1};
  const MPI_Aint offsets[3] = {offsetof(S, a), offsetof(S, b), offsetof(S, c)};
  const MPI_Datatype members[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Datatype raw = MPI_DATATYPE_NULL;
  EXPECT_MPI_OK(MPI_Type_create_struct(3, blocks, offsets, members, &raw));
  EXPECT_MPI_OK(MPI_Type_create_resized(raw, 0, sizeof(S), &t.s));
  MPI_Type_free(&raw);
  t.s = committed(t.s);
  EXPECT_MPI_OK(MPI_Type_create_resized(MPI_INT, 0, 12, &t.every_third));
  t.every_third = committed(t.every_third);
  EXPECT_MPI_OK(MPI_Type_contiguous(2, t.s, &t.two_s));
  t.two_s = committed(t.two_s);
  return t;
}

}  // namespace mpitest::datatypes
