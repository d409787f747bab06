// A group's key for per-group caches (peer endpoints, the shared-memory
// probe's answer): its members as MPI_COMM_WORLD ranks, which every member
// computes alike.
#pragma once

#include <vector>

#include "mpi_host.hpp"

namespace mpinotify {

// The members of `comm` as MPI_COMM_WORLD ranks; empty when some member is
// not in MPI_COMM_WORLD (spawned or connected processes).
std::vector<int> world_ranks(MPI_Comm comm);

}  // namespace mpinotify
