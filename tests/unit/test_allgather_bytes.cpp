// allgather_bytes (osc_core/agreement.hpp) under mpiexec: byte strings of
// every length around a slot's room (none, fitting, exactly filling it, one
// over, far over) arrive whole on every rank, through the one-slot round,
// its second round, and the lengths-first path for groups too large for
// slots. Each rank checks every rank's string.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "agreement.hpp"

namespace {

// Rank r's string for a slot of `slot` bytes: a length chosen around the
// slot's room by r, with content that names r and each byte's position.
std::string string_of(int rank, std::size_t slot) {
  const std::size_t room = slot > 4 ? slot - 4 : 16;
  const std::size_t lengths[] = {0, room / 2, room, room + 1, 3 * room + 5};
  const std::size_t length = lengths[rank % 5];
  std::string s(length, '\0');
  for (std::size_t i = 0; i < length; ++i) s[i] = static_cast<char>('a' + (rank * 7 + i) % 26);
  return s;
}

void check_gather(std::size_t slot, bool only_short) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // A string per rank; with `only_short`, all fit their slot (one round).
  auto mine_of = [&](int r) { return only_short ? string_of(r % 3, slot) : string_of(r, slot); };
  std::vector<std::string> all;
  ASSERT_TRUE(mpinotify::allgather_bytes(MPI_COMM_WORLD, mine_of(rank), all, slot).ok());
  ASSERT_EQ(static_cast<std::size_t>(size), all.size());
  for (int r = 0; r < size; ++r)
    EXPECT_EQ(mine_of(r), all[static_cast<std::size_t>(r)]) << "rank " << r << "'s string";
}

TEST(AllgatherBytes, LengthsFirstWithoutASlot) { check_gather(0, false); }
TEST(AllgatherBytes, OneRoundWhenEveryStringFitsItsSlot) { check_gather(64, true); }
TEST(AllgatherBytes, ASecondRoundCarriesWhatDidNotFit) { check_gather(64, false); }
TEST(AllgatherBytes, SlotsTooLargeForTheGroupFallBackToLengthsFirst) {
  check_gather(mpinotify::kSlotGatherLimit, false);
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
