// Registration of the pmpi backend: serves every window on any host MPI,
// at the lowest priority.
#include "osc_core/backend.hpp"
#include "pmpi_module.hpp"

namespace mpinotify::pmpi {
namespace {

class PmpiBackend final : public Backend {
 public:
  const char *name() const override { return "pmpi"; }
  int priority() const override { return 10; }
  std::optional<std::string> refuse(const WindowQuery & /*query*/) const override {
    return std::nullopt;
  }
  std::unique_ptr<Module> make_module(Window &window) const override {
    return std::make_unique<PmpiModule>(window);
  }
};

const PmpiBackend backend;
const BackendRegistration registration(&backend);

}  // namespace
}  // namespace mpinotify::pmpi
