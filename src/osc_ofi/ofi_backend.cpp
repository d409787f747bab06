// Registration of the ofi backend: any window whose ranks the chosen
// libfabric provider reaches, below sm and ucx, above pmpi.
//
// Below ucx while ucx is the network backend measured and proven across
// hosts; where UCX is missing (or refuses), ofi serves before the host's
// own RMA does. MPINOTIFY_BACKEND=ofi or the info key mpinotify_backend
// choose it outright.
#include <rdma/fabric.h>

#include "ofi_module.hpp"
#include "osc_core/backend.hpp"
#include "osc_core/params.hpp"

namespace mpinotify::ofi {
namespace {

class OfiBackend final : public Backend {
 public:
  const char *name() const override { return "ofi"; }
  int priority() const override { return 20; }
  std::optional<std::string> unavailable_reason() const override {
    return Context::unavailable_reason();
  }
  std::string details() const override {
    const std::uint32_t version = fi_version();
    std::string text = "libfabric " + std::to_string(FI_MAJOR(version)) + "." +
                       std::to_string(FI_MINOR(version)) +
                       "; provider as MPINOTIFY_OFI_PROVIDER, else fi_getinfo's first usable; "
                       "notifications as MPINOTIFY_OFI_NOTIFY (" +
                       params().ofi_notify + ")";
    const ProviderFacts *chosen = Context::chosen();
    auto yes = [](bool b) { return b ? "yes" : "no"; };
    for (const ProviderFacts &f : providers_seen()) {
      text += "\n         - " + f.name + " (" + f.domain + ")" +
              (chosen != nullptr && chosen->name == f.name ? " [chosen]" : "") + ": atomics " +
              yes(f.atomics) + ", remote CQ data " + std::to_string(f.cq_data_size) +
              " B, RMA events " + yes(f.rma_event) + ", RMA write-after-write ordered " +
              yes(f.write_after_write) + (f.local_only ? ", one node only" : "") +
              "\n           notification: " + f.path;
    }
    return text;
  }
  std::optional<std::string> refuse(const WindowQuery &query) const override {
    const ProviderFacts *chosen = Context::chosen();
    if (chosen != nullptr && chosen->local_only && (!query.single_node || query.lookalikes_apart))
      return "the libfabric provider " + chosen->name + " reaches processes of one node only";
    return std::nullopt;
  }
  std::unique_ptr<Module> make_module(Window &window) const override {
    // If the context cannot be made, the module's storage reservation
    // reports it through the agreement.
    Status st;
    Context *context = Context::instance(st);
    if (context == nullptr) return std::make_unique<Module>();
    return std::make_unique<OfiModule>(window, *context);
  }
  void shutdown() const override { Context::shutdown(); }
  bool knows_group(MPI_Comm comm) const override { return Context::knows_group(comm); }
};

const OfiBackend backend;
const BackendRegistration registration(&backend);

}  // namespace
}  // namespace mpinotify::ofi
