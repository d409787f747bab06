// Registration of the ucx backend: any window, where UCX works, below sm
// and above pmpi.
#include "osc_base/shared_memory_window.hpp"
#include "osc_core/backend.hpp"
#include "osc_core/osc.hpp"
#include "ucx_module.hpp"

namespace mpinotify::ucx {
namespace {

class UcxBackend final : public Backend {
 public:
  const char *name() const override { return "ucx"; }
  int priority() const override { return 30; }
  std::optional<std::string> unavailable_reason() const override {
    return Context::unavailable_reason();
  }
  std::string details() const override {
    unsigned major = 0;
    unsigned minor = 0;
    unsigned release = 0;
    ucp_get_version(&major, &minor, &release);
    return "UCX " + std::to_string(major) + "." + std::to_string(minor) + "." +
           std::to_string(release) + "; transports as MPINOTIFY_UCX_TLS, else UCX_TLS, selects";
  }
  std::optional<std::string> refuse(const WindowQuery &query) const override {
    if (query.lookalikes_apart && Context::uses_shared_memory())
      return "some ranks look like one machine to UCX but share no memory, and this process's "
             "UCX context already uses shared-memory transports";
    return std::nullopt;
  }
  // On one node, MPI_Win_allocate memory goes into shared memory as sm
  // places it (the host's shared-memory component then serves plain RMA,
  // atomic as well): peers that UCX reaches by load/store get their data
  // by load/store too, so a put needs no flush before its add. UCX cannot
  // map the host's memory for peers itself; registered as it is, it moves
  // the data with cma (docs/performance.md).
  int create_host_window(const CreateRequest &request, HostWindow &out) const override {
    if (request.flavor != Flavor::allocate || !request.create_shared || !request.single_node)
      return Backend::create_host_window(request, out);
    return make_host_window_in_shared_memory(request, host_allocation_size(request.size), 0, out);
  }
  std::unique_ptr<Module> make_module(Window &window) const override {
    // The context exists once a window needs it; if it cannot be made, the
    // module's storage reservation reports it through the agreement.
    Status st;
    Context *context = Context::instance(st, window.lookalikes_apart());
    if (context == nullptr) return std::make_unique<Module>();
    return std::make_unique<UcxModule>(window, *context);
  }
  void shutdown() const override { Context::shutdown(); }
  bool knows_group(MPI_Comm comm) const override { return Context::knows_group(comm); }
};

const UcxBackend backend;
const BackendRegistration registration(&backend);

}  // namespace
}  // namespace mpinotify::ucx
