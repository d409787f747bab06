// Registration of the sm backend: every window whose ranks share one node,
// above ucx and pmpi.
#include <unistd.h>

#include <limits>
#include <string>

#include "osc_base/shared_memory_window.hpp"
#include "osc_core/backend.hpp"
#include "osc_core/info.hpp"
#include "sm_module.hpp"
#include "sm_topology.hpp"

namespace mpinotify::sm {
namespace {

// The stride of the `reserved` counters placed after this rank's `size`
// bytes; 0 when there are none, or they would not fit
// MPINOTIFY_COUNTER_MEMORY_LIMIT (the reservation then fails, as it would
// for a segment) or the host's sizes.
std::uint32_t tail_stride(int reserved, MPI_Aint size) {
  const std::uint32_t stride = counter_stride();
  if (reserved <= 0 || size < 0 || !check_counter_memory(reserved, stride, "").ok()) return 0;
  const MPI_Aint tail = static_cast<MPI_Aint>(reserved) * stride;
  if (size > std::numeric_limits<MPI_Aint>::max() - tail - stride) return 0;
  return stride;
}

class SmBackend final : public Backend {
 public:
  const char *name() const override { return "sm"; }
  int priority() const override { return 50; }
  std::optional<std::string> unavailable_reason() const override {
    if (access("/dev/shm", W_OK) != 0) return "/dev/shm is not writable here";
    return std::nullopt;
  }
  std::string details() const override {
    const Topology &t = topology();
    return "counters every " + std::to_string(counter_stride()) + " bytes (cache line " +
           std::to_string(t.cache_line) + " from " + t.source + "), " +
           std::to_string(t.numa_nodes) + " NUMA node(s)";
  }
  std::optional<std::string> refuse(const WindowQuery &query) const override {
    if (query.lookalikes_apart)
      return "ranks with the same host name and boot id cannot open each other's shared "
             "memory (separate /dev/shm)";
    if (!query.single_node) return "the window's ranks are on more than one node";
    return std::nullopt;
  }
  // MPI_Win_allocate memory goes into shared memory, where load/store
  // reaches it; the window still looks like an MPI_Win_allocate window.
  // Each rank's first counters follow its memory in the same allocation,
  // which spares the window a segment of its own (its name, its mapping on
  // every rank, a broadcast and an agreement). Some hosts cannot make
  // shared windows (Open MPI's osc/pt2pt and osc/rdma): asked on the
  // library's communicator, a refusal on any rank falls back to the plain
  // allocation, whose data the host then moves.
  int create_host_window(const CreateRequest &request, HostWindow &out) const override {
    if (request.flavor != Flavor::allocate || !request.create_shared)
      return Backend::create_host_window(request, out);
    const std::uint32_t stride = tail_stride(request.counters_reserved, request.size);
    const MPI_Aint tail = static_cast<MPI_Aint>(request.counters_reserved) * stride;
    return make_host_window_in_shared_memory(
        request, tail_counters_offset(request.size, stride) + tail, stride, out);
  }
  std::unique_ptr<Module> make_module(Window &window) const override {
    return std::make_unique<SmModule>(window);
  }
};

const SmBackend backend;
const BackendRegistration registration(&backend);

}  // namespace
}  // namespace mpinotify::sm
