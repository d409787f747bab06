// Which ranks of a window can share memory: a guess from each machine's
// identity, checked with a real shared-memory segment where the guess says
// ranks share a machine (containers on one machine share host name and
// boot id but may each have their own /dev/shm).
#pragma once

#include <cstdint>
#include <vector>

#include "mpi_host.hpp"
#include "status.hpp"

namespace mpinotify {

// Identifies this machine as far as its name and kernel go: host name and
// boot id, hashed. Ranks with different keys share no memory.
std::uint64_t this_node();

struct MemorySharing {
  bool single_node = false;  // every rank can open segments the others make
  // Some ranks with the same node key cannot open each other's segments:
  // anything that judges "same machine" by host name or boot id (UCX's
  // shared-memory transports) is wrong about them.
  bool lookalikes_apart = false;
};

// Collective over `comm` (the library's communicator), given every rank's
// node key: in each group of equal keys the lowest rank makes a small
// segment and the others open it. Costs nothing beyond the keys when no two
// ranks have the same key. Probes even where this rank knows the answer
// (known_memory_sharing): every rank calls it or none.
Status probe_memory_sharing(MPI_Comm comm, const std::vector<std::uint64_t> &nodes,
                            MemorySharing &out);

// Local: the answer of an earlier probe_memory_sharing over the same
// processes (in the same order), if there was one. Every member of a group
// probed it together, so once that probe returned everywhere every member
// of `comm` gets the same answer here; while threads create windows over
// one group at once the members may differ, so creation decides whether to
// probe from every rank's answer (the creation summary), never from this
// alone.
bool known_memory_sharing(MPI_Comm comm, MemorySharing &out);

}  // namespace mpinotify
