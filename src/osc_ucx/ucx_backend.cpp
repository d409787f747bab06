// Registration of the ucx backend: any window, where UCX works, below sm
// and above pmpi.
#include "osc_core/agreement.hpp"
#include "osc_core/backend.hpp"
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
  std::optional<std::string> refuse(const WindowQuery & /*query*/) const override {
    return std::nullopt;
  }
  int create_host_window(const CreateRequest &request, HostWindow &out) const override {
    // One process gains nothing from it (and Open MPI cannot make an
    // MPI_Win_create window of one process).
    int group = 0;
    PMPI_Comm_size(request.comm, &group);
    if (request.flavor != Flavor::allocate || !request.create_over || group < 2)
      return Backend::create_host_window(request, out);
    Status st;
    Context *context = Context::instance(st);
    std::shared_ptr<AllocatedMemory> memory;
    if (context != nullptr)
      memory = AllocatedMemory::make(context->context(), static_cast<std::size_t>(request.size));
    // All ranks make the same kind of host window.
    if (!on_every_rank(request.library_comm, memory != nullptr))
      return Backend::create_host_window(request, out);
    // Some hosts cannot make MPI_Win_create windows (Open MPI restricted to
    // its tcp transport): asked on the library's communicator, a refusal
    // falls back to the plain allocation instead of aborting.
    const int made =
        request.create_over(memory->base, request.info, request.library_comm, &out.handle);
    if (!on_every_rank(request.library_comm, made == MPI_SUCCESS)) {
      if (made == MPI_SUCCESS) PMPI_Win_free(&out.handle);
      out.handle = MPI_WIN_NULL;
      return Backend::create_host_window(request, out);
    }
    out.memory = std::move(memory);
    return MPI_SUCCESS;
  }
  std::unique_ptr<Module> make_module(Window &window) const override {
    // The context exists once a window needs it; if it cannot be made, the
    // module's storage reservation reports it through the agreement.
    Status st;
    Context *context = Context::instance(st);
    if (context == nullptr) return std::make_unique<Module>();
    return std::make_unique<UcxModule>(window, *context);
  }
  void shutdown() const override { Context::shutdown(); }
};

const UcxBackend backend;
const BackendRegistration registration(&backend);

}  // namespace
}  // namespace mpinotify::ucx
