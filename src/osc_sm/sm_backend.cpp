// Registration of the sm backend: every window whose ranks share one node,
// above ucx and pmpi.
#include <unistd.h>

#include <string>

#include "osc_core/agreement.hpp"
#include "osc_core/backend.hpp"
#include "osc_core/info.hpp"
#include "sm_module.hpp"
#include "sm_topology.hpp"

namespace mpinotify::sm {
namespace {

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
  // Some hosts cannot make shared windows (Open MPI's osc/pt2pt and
  // osc/rdma): asked on the library's communicator, a refusal on any rank
  // falls back to the plain allocation, whose data the host then moves.
  int create_host_window(const CreateRequest &request, HostWindow &out) const override {
    if (request.flavor != Flavor::allocate || !request.create_shared)
      return Backend::create_host_window(request, out);
    MPI_Info info = MPI_INFO_NULL;
    int rc = request.info == MPI_INFO_NULL ? PMPI_Info_create(&info)
                                           : PMPI_Info_dup(request.info, &info);
    if (rc == MPI_SUCCESS) {
      // Each rank's memory on its own pages (and NUMA node), as an allocate
      // window's would be.
      rc = PMPI_Info_set(info, "alloc_shared_noncontig", "true");
      if (rc == MPI_SUCCESS) rc = request.create_shared(info, request.library_comm, &out.handle);
      PMPI_Info_free(&info);
    }
    if (!on_every_rank(request.library_comm, rc == MPI_SUCCESS)) {
      if (rc == MPI_SUCCESS) PMPI_Win_free(&out.handle);
      out.handle = MPI_WIN_NULL;
      return Backend::create_host_window(request, out);
    }
    out.in_shared_memory = true;
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
