// Registration of the sm backend: every window whose ranks share one node,
// above ucx and pmpi.
#include <unistd.h>

#include <limits>
#include <string>

#include "osc_core/agreement.hpp"
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
    MPI_Info info = MPI_INFO_NULL;
    int rc = request.info == MPI_INFO_NULL ? PMPI_Info_create(&info)
                                           : PMPI_Info_dup(request.info, &info);
    if (rc == MPI_SUCCESS) {
      // Each rank's memory on its own pages (and NUMA node), as an allocate
      // window's would be.
      rc = PMPI_Info_set(info, "alloc_shared_noncontig", "true");
      if (rc == MPI_SUCCESS)
        rc = request.create_shared(tail_counters_offset(request.size, stride) + tail, info,
                                   request.library_comm, &out.handle);
      PMPI_Info_free(&info);
    }
    // One collective says both whether every rank has the window and
    // whether every rank placed its counters at the same stride (another
    // rank's counters are found by that stride alone).
    int agreed[3] = {rc == MPI_SUCCESS ? 1 : 0, static_cast<int>(stride),
                     -static_cast<int>(stride)};
    if (PMPI_Allreduce(MPI_IN_PLACE, agreed, 3, MPI_INT, MPI_MIN, request.library_comm) !=
            MPI_SUCCESS ||
        agreed[0] != 1) {
      if (rc == MPI_SUCCESS) PMPI_Win_free(&out.handle);
      out.handle = MPI_WIN_NULL;
      return Backend::create_host_window(request, out);
    }
    out.in_shared_memory = true;
    if (agreed[1] == -agreed[2]) out.tail_counter_stride = static_cast<std::uint32_t>(agreed[1]);
    return MPI_SUCCESS;
  }
  std::unique_ptr<Module> make_module(Window &window) const override {
    return std::make_unique<SmModule>(window);
  }
};

const SmBackend backend;
const BackendRegistration registration(&backend);

}  // namespace
}  // namespace mpinotify::sm
