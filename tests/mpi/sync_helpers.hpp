// Helpers shared by the synchronisation-mode tests (test_sync_passive.cpp
// and test_sync_active.cpp): a 4 KiB int window cut into regions, the
// payloads written into them, the window each rank should end up with, and
// the SyncModes suite itself (its tests live in both files;
// test_sync_passive.cpp instantiates it).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "harness.hpp"

namespace mpitest::sync_modes {

inline constexpr int kWords = 1024;  // ints: a 4 KiB window per rank
inline constexpr MPI_Aint kBytes = kWords * static_cast<MPI_Aint>(sizeof(int));
inline constexpr int kRegion = 32;  // ints per region
inline constexpr int kCount = 8;    // ints moved by one operation

inline int initial(int owner, int i) { return (owner + 1) * 1000000 + i; }
inline int payload(int origin, int slot, int i) { return origin * 10000 + slot * 100 + i + 1; }

inline std::vector<int> payloads(int slot, int count = kCount) {
  std::vector<int> v(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    v[static_cast<std::size_t>(i)] = payload(mpitest::rank(), slot, i);
  return v;
}

// This rank's window as it starts: initial(me, i) everywhere.
inline void fill_initial(const TestWindow &w) {
  int *mem = w.as<int>();
  for (int i = 0; i < kWords; ++i) mem[i] = initial(mpitest::rank(), i);
}

// The window this rank should have: initial data with the given changes.
class Expected {
 public:
  Expected() : ints_(kWords) {
    for (int i = 0; i < kWords; ++i)
      ints_[static_cast<std::size_t>(i)] = initial(mpitest::rank(), i);
  }
  int &operator[](int i) { return ints_[static_cast<std::size_t>(i)]; }
  // Region `slot` received `origin`'s payloads (put).
  void put(int slot, int origin) {
    for (int i = 0; i < kCount; ++i) (*this)[slot * kRegion + i] = payload(origin, slot, i);
  }
  // Region `slot` had `origin`'s payloads added (accumulate SUM).
  void add(int slot, int origin) {
    for (int i = 0; i < kCount; ++i) (*this)[slot * kRegion + i] += payload(origin, slot, i);
  }
  // Compares the first `regions` regions (later phases of a test write only
  // later regions, possibly already) with the window, reporting the first
  // few differences.
  void check(const TestWindow &w, const std::string &when, int regions = kWords / kRegion) const {
    const int *mem = w.as<int>();
    int wrong = 0;
    for (int i = 0; i < regions * kRegion; ++i) {
      if (mem[i] != ints_[static_cast<std::size_t>(i)] && ++wrong <= 4) {
        ADD_FAILURE() << when << ": int " << i << " (region " << i / kRegion << ") of rank "
                      << mpitest::rank() << " is " << mem[i] << ", expected "
                      << ints_[static_cast<std::size_t>(i)];
      }
    }
    EXPECT_EQ(0, wrong) << when << ": ints of the window differ on rank " << mpitest::rank();
  }

 private:
  std::vector<int> ints_;
};

inline void expect_counter(MPI_Win win, int idx, MPI_Count expected, const std::string &when) {
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(win, idx, &v));
  EXPECT_EQ(expected, v) << "counter " << idx << " on rank " << mpitest::rank() << " " << when;
}

// Expects `got` to hold `target`'s initial ints of region `slot`.
inline void expect_read(const std::vector<int> &got, int target, int slot,
                        const std::string &what) {
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(initial(target, slot * kRegion + i), got[static_cast<std::size_t>(i)])
        << what << " from rank " << target << ", element " << i;
  }
}

inline MPI_Aint at(const TestWindow &w, int target, int slot) {
  return w.disp(target, static_cast<MPI_Aint>(slot) * kRegion * static_cast<MPI_Aint>(sizeof(int)));
}

// A group of window ranks (MPI_COMM_WORLD ranks here); free with MPI_Group_free.
inline MPI_Group group_of(const std::vector<int> &ranks) {
  MPI_Group world = MPI_GROUP_NULL;
  MPI_Group g = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  EXPECT_MPI_OK(MPI_Group_incl(world, static_cast<int>(ranks.size()), ranks.data(), &g));
  MPI_Group_free(&world);
  return g;
}

// One suite for both files: the fixture must be one type everywhere.
class SyncModes : public FlavorTest {};

}  // namespace mpitest::sync_modes
