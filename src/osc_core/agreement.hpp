// Agreement collectives: every rank's verdict rides one collective, so a
// bad argument or a failed allocation on one rank fails the call on every
// rank, before anything changes, and no rank waits for one that gave up.
#pragma once

#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "mpi_host.hpp"
#include "status.hpp"

namespace mpinotify {

// The verdict all ranks adopt, and the rank that decided it.
struct Verdict {
  Errc code = Errc::ok;
  int rank = -1;  // -1 when every rank agreed to go ahead
};

// Pure: the highest code wins (see Errc), the lowest rank among equals.
Verdict combine_verdicts(std::span<const Errc> codes);

// Pure: what a rank returns once the verdict is known. A rank that failed
// with the deciding class keeps its own detailed status (its own reason is
// what its caller needs); the others get that class with a message naming
// the deciding rank.
Status agreed_status(const Status &local, const Verdict &verdict, int my_rank,
                     const char *operation);

// Collective over `comm`: combines every rank's `local` status. Internal
// communicator only (errors are the library's to report).
Status agree(MPI_Comm comm, const Status &local, const char *operation);

// Collective over `comm`: whether `mine` holds on every rank (false when
// the collective itself fails). For the outcome of an attempt every rank
// made, so that all take the same way on.
bool on_every_rank(MPI_Comm comm, bool mine);

// Collective over `comm`: gathers one trivially copyable record per rank.
template <class Record>
Status allgather_records(MPI_Comm comm, const Record &mine, std::vector<Record> &all) {
  static_assert(std::is_trivially_copyable_v<Record>);
  int size = 0;
  MPINOTIFY_TRY(host_status(PMPI_Comm_size(comm, &size), "MPI_Comm_size"));
  all.resize(static_cast<std::size_t>(size));
  return host_status(
      PMPI_Allgather(&mine, sizeof(Record), MPI_BYTE, all.data(), sizeof(Record), MPI_BYTE, comm),
      "MPI_Allgather");
}

// Collective over `comm`: gathers one byte string of any length per rank.
// With `slot_bytes` (what a string usually fits in, plus 4) and a group
// small enough that every rank receives at most kSlotGatherLimit bytes of
// slots, one allgather of fixed slots does it, and a second only if some
// string did not fit; otherwise the lengths go first, then the strings.
inline constexpr std::size_t kSlotGatherLimit = 64 * 1024;
Status allgather_bytes(MPI_Comm comm, const std::string &mine, std::vector<std::string> &all,
                       std::size_t slot_bytes = 0);

}  // namespace mpinotify
