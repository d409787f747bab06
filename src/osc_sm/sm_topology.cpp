#include "sm_topology.hpp"

#include <unistd.h>

#include <algorithm>
#include <mutex>

#ifdef MPINOTIFY_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace mpinotify::sm {
namespace {

#ifdef MPINOTIFY_HAVE_HWLOC
// Kept only on multi-NUMA machines, where binding needs it.
hwloc_topology_t numa_topology = nullptr;
std::mutex numa_mutex;

Topology read_topology() {
  Topology t;
  hwloc_topology_t topo = nullptr;
  if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
    if (topo != nullptr) hwloc_topology_destroy(topo);
    t.source = "defaults (hwloc failed to load the topology)";
    return t;
  }
  const hwloc_obj_t l1 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L1CACHE, 0);
  if (l1 != nullptr && l1->attr != nullptr && l1->attr->cache.linesize > 0)
    t.cache_line = l1->attr->cache.linesize;
  t.numa_nodes = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE));
  t.source = "hwloc";
  if (t.numa_nodes > 1) {
    numa_topology = topo;
  } else {
    hwloc_topology_destroy(topo);
  }
  return t;
}
#else
Topology read_topology() {
  Topology t;
  const long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
  if (line > 0) t.cache_line = static_cast<std::size_t>(line);
  t.source = "sysconf (built without hwloc)";
  return t;
}
#endif

}  // namespace

const Topology &topology() {
  static const Topology t = read_topology();
  return t;
}

void bind_to_local_numa_node(void *address, std::size_t bytes) {
#ifdef MPINOTIFY_HAVE_HWLOC
  if (topology().numa_nodes <= 1 || numa_topology == nullptr || bytes == 0) return;
  std::lock_guard guard(numa_mutex);
  hwloc_cpuset_t cpu = hwloc_bitmap_alloc();
  hwloc_nodeset_t nodes = hwloc_bitmap_alloc();
  if (hwloc_get_last_cpu_location(numa_topology, cpu, HWLOC_CPUBIND_THREAD) == 0) {
    hwloc_cpuset_to_nodeset(numa_topology, cpu, nodes);
    // Best effort: a refused binding leaves first-touch placement.
    hwloc_set_area_membind(numa_topology, address, bytes, nodes, HWLOC_MEMBIND_BIND,
                           HWLOC_MEMBIND_BYNODESET);
  }
  hwloc_bitmap_free(nodes);
  hwloc_bitmap_free(cpu);
#else
  (void)address;
  (void)bytes;
#endif
}

}  // namespace mpinotify::sm
