// SEMANTICS 3.6: once MPI_Win_flush_all returns, every operation of the
// origin is complete and its buffers may go. Here they go for good
// (munmap), so a transport that still reads one later faults at once:
// UCX 1.13's worker flush returned with emulated puts (posix, sysv) still
// queued, which crashed a later call (found at 4 ranks on 2 cores).
#include <sys/mman.h>

#include <cstdint>
#include <cstring>

#include "harness.hpp"

namespace {

using mpitest::Flavor;
using mpitest::TestWindow;

constexpr int kPutsPerTarget = 8;
constexpr std::size_t kPutBytes = std::size_t{1} << 20;
constexpr std::size_t kPerOrigin = kPutsPerTarget * kPutBytes;

unsigned char fill_of(int origin, int put) {
  return static_cast<unsigned char>(1 + (origin * 37 + put * 11) % 251);
}

TEST(BufferLifetimes, FlushAllCompletesEveryPutBeforeBuffersGo_3_6) {
  const int me = mpitest::rank();
  const int ranks = mpitest::size();
  TestWindow w(Flavor::allocate, static_cast<MPI_Aint>(kPerOrigin * ranks));
  w.set_num_notify(1);
  std::memset(w.base(), 0, kPerOrigin * static_cast<std::size_t>(ranks));
  // One mapping per target, so the puts read from memory that munmap takes.
  const std::size_t source_bytes = kPerOrigin * static_cast<std::size_t>(ranks);
  void *mapped =
      mmap(nullptr, source_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(MAP_FAILED, mapped);
  auto *source = static_cast<unsigned char *>(mapped);
  for (int put = 0; put < kPutsPerTarget; ++put) {
    for (int target = 0; target < ranks; ++target) {
      std::memset(source + static_cast<std::size_t>(target) * kPerOrigin + put * kPutBytes,
                  fill_of(me, put), kPutBytes);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_MPI_OK(MPI_Win_lock_all(0, w.win()));
  for (int put = 0; put < kPutsPerTarget; ++put) {
    for (int target = 0; target < ranks; ++target) {
      const std::size_t at = static_cast<std::size_t>(me) * kPerOrigin + put * kPutBytes;
      EXPECT_MPI_OK(MPI_Put_notify(
          source + static_cast<std::size_t>(target) * kPerOrigin + put * kPutBytes,
          static_cast<int>(kPutBytes), MPI_BYTE, target, w.disp(target, static_cast<MPI_Aint>(at)),
          static_cast<int>(kPutBytes), MPI_BYTE, 0, w.win()));
    }
  }
  EXPECT_MPI_OK(MPI_Win_flush_all(w.win()));
  EXPECT_EQ(0, munmap(mapped, source_bytes));
  // More operations, and progress, after the buffers went.
  const std::uint64_t word = 1;
  for (int target = 0; target < ranks; ++target) {
    EXPECT_MPI_OK(
        MPI_Put_notify(&word, 0, MPI_BYTE, target, w.disp(target, 0), 0, MPI_BYTE, 0, w.win()));
  }
  EXPECT_MPI_OK(MPI_Win_flush_all(w.win()));
  EXPECT_MPI_OK(MPI_Win_unlock_all(w.win()));
  MPI_Barrier(MPI_COMM_WORLD);
  // The target checks what every origin put.
  MPI_Count count = 0;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 0, &count));
  EXPECT_EQ(static_cast<MPI_Count>(ranks) * (kPutsPerTarget + 1), count);
  const auto *memory = reinterpret_cast<const unsigned char *>(w.base());
  for (int origin = 0; origin < ranks; ++origin) {
    for (int put = 0; put < kPutsPerTarget; ++put) {
      const unsigned char *at = memory + static_cast<std::size_t>(origin) * kPerOrigin +
                                static_cast<std::size_t>(put) * kPutBytes;
      const unsigned char want = fill_of(origin, put);
      EXPECT_TRUE(at[0] == want && at[kPutBytes / 2] == want && at[kPutBytes - 1] == want)
          << "origin " << origin << ", put " << put;
    }
  }
}

}  // namespace
