// Registration of the sm backend: every window whose ranks share one node,
// above ucx and pmpi.
#include <unistd.h>

#include <string>

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
    if (!query.single_node) return "the window's ranks are on more than one node";
    return std::nullopt;
  }
  // MPI_Win_allocate memory goes into shared memory, where load/store
  // reaches it; the window still looks like an MPI_Win_allocate window.
  int create_host_window(const CreateRequest &request, HostWindow &out) const override {
    if (request.flavor != Flavor::allocate || !request.create_shared)
      return Backend::create_host_window(request, out);
    MPI_Info info = MPI_INFO_NULL;
    int rc = request.info == MPI_INFO_NULL ? PMPI_Info_create(&info)
                                           : PMPI_Info_dup(request.info, &info);
    if (rc != MPI_SUCCESS) return Backend::create_host_window(request, out);
    // Each rank's memory on its own pages (and NUMA node), as an allocate
    // window's would be.
    PMPI_Info_set(info, "alloc_shared_noncontig", "true");
    rc = request.create_shared(info, &out.handle);
    PMPI_Info_free(&info);
    out.in_shared_memory = rc == MPI_SUCCESS;
    return rc;
  }
  std::unique_ptr<Module> make_module(Window &window) const override {
    return std::make_unique<SmModule>(window);
  }
};

const SmBackend backend;
const BackendRegistration registration(&backend);

}  // namespace
}  // namespace mpinotify::sm
