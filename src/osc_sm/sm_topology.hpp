// What the shared-memory backend needs to know about the machine: the cache
// line (counters written by different origins never share one) and the
// NUMA layout (a rank's counters live on its own NUMA node).
#pragma once

#include <cstddef>
#include <string>

namespace mpinotify::sm {

struct Topology {
  std::size_t cache_line = 64;  // bytes
  int numa_nodes = 1;
  std::string source;  // where the facts came from, for mpinotify-info
};

// Read once per process (hwloc when built with it, else the C library).
const Topology &topology();

// Places [address, address + bytes) on the NUMA node of the calling
// thread's CPU. Does nothing on a single-node machine or without hwloc.
void bind_to_local_numa_node(void *address, std::size_t bytes);

}  // namespace mpinotify::sm
