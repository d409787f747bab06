// Window creation and free: the agreement on hints and backend, the host
// window, the module and its first counter reservation.
#include <cstdint>
#include <cstdio>

#include "agreement.hpp"
#include "info.hpp"
#include "osc.hpp"
#include "params.hpp"
#include "progress.hpp"
#include "registry.hpp"
#include "runtime.hpp"

namespace mpinotify {
namespace {

constexpr const char *kAssertKey = "mpi_assert_max_num_notify";
constexpr const char *kDisableKey = "mpinotify_disable";

// One rank's view of a window about to be created, gathered on every rank.
struct CreationRecord {
  Errc verdict;
  std::uint32_t accepted;  // bit i: backend i of the registry accepts
  int disabled;
  int disp_unit;
  MPI_Aint size;
};

// Which backends accept the window here; a forced backend limits the
// choice to one. Refusal reasons go to `why`.
std::uint32_t accepting_backends(const std::vector<const Backend *> &backends,
                                 const WindowQuery &query, std::string &why) {
  const std::string &forced = params().backend;
  std::uint32_t mask = 0;
  for (std::size_t i = 0; i < backends.size() && i < 32; ++i) {
    const Backend &b = *backends[i];
    if (!forced.empty() && forced != b.name()) continue;
    auto reason = b.unavailable_reason();
    if (!reason) reason = b.refuse(query);
    if (reason) {
      why += std::string(why.empty() ? "" : "; ") + b.name() + ": " + *reason;
    } else {
      mask |= 1U << i;
    }
  }
  return mask;
}

std::string backend_names(const std::vector<const Backend *> &backends) {
  std::string names;
  for (const Backend *b : backends) names += std::string(names.empty() ? "" : ", ") + b->name();
  return names;
}

// The local part of creation: hints and backend acceptance.
Status local_verdict(const CreateRequest &request, const std::vector<const Backend *> &backends,
                     CreationHints &hints, std::uint32_t &accepted) {
  MPINOTIFY_TRY(parse_creation_hints(info_value(request.info, kAssertKey),
                                     info_value(request.info, kDisableKey), hints));
  if (hints.disabled) return {};
  const std::string &forced = params().backend;
  if (!forced.empty() && BackendRegistry::instance().find(forced) == nullptr)
    return error(Errc::unsupported,
                 "MPINOTIFY_BACKEND=" + forced +
                     " names no backend of this library (built: " + backend_names(backends) + ")");
  std::string why;
  accepted = accepting_backends(backends, {request.flavor, request.comm}, why);
  if (accepted == 0)
    return error(Errc::unsupported,
                 (forced.empty() ? std::string("no backend can serve this window")
                                 : "MPINOTIFY_BACKEND=" + forced + " cannot serve this window") +
                     " (" + why + ")");
  return {};
}

// Gives the window its module and first reservation; collective.
Status attach_module(Window &window, const Backend &backend) {
  window.set_module(backend.make_module(window));
  Module &module = window.module();
  Status local = module.reserve(window.limits().reserve);
  Status agreed = agree(window.comm(), local, "window creation");
  if (!agreed.ok()) {
    if (local.ok()) module.release_reservation();
    return agreed;
  }
  MPINOTIFY_TRY(module.commit(std::vector<int>(static_cast<std::size_t>(window.size()), 0), true));
  window.set_counts(std::vector<int>(static_cast<std::size_t>(window.size()), 0),
                    window.limits().reserve);
  return {};
}

Status set_attributes(Window &window) {
  const Runtime &rt = runtime();
  MPI_Win handle = window.handle();
  MPINOTIFY_TRY(host_status(PMPI_Win_set_attr(handle, rt.keyval_num_sb(), &window.attr_num_sb),
                            "MPI_Win_set_attr"));
  MPINOTIFY_TRY(host_status(PMPI_Win_set_attr(handle, rt.keyval_num_ub(), &window.attr_num_ub),
                            "MPI_Win_set_attr"));
  return host_status(PMPI_Win_set_attr(handle, rt.keyval_value_ub(), &window.attr_value_ub),
                     "MPI_Win_set_attr");
}

}  // namespace

Status create_window(const CreateRequest &request, MPI_Win *win) {
  const std::vector<const Backend *> backends = BackendRegistry::instance().all();
  CreationHints hints;
  std::uint32_t accepted = 0;
  const Status local = local_verdict(request, backends, hints, accepted);

  CreationRecord mine{local.code(), accepted, hints.disabled ? 1 : 0, request.disp_unit,
                      request.flavor == Flavor::dynamic ? 0 : request.size};
  std::vector<CreationRecord> all;
  MPINOTIFY_TRY(allgather_records(request.comm, mine, all));

  std::vector<Errc> verdicts;
  std::uint32_t common = ~0U;
  bool disabled = false;
  for (const CreationRecord &r : all) {
    verdicts.push_back(r.verdict);
    disabled = disabled || r.disabled != 0;
  }
  for (const CreationRecord &r : all) {
    if (!disabled) common &= r.accepted;
  }
  int my_rank = 0;
  PMPI_Comm_rank(request.comm, &my_rank);
  const Verdict verdict = combine_verdicts(verdicts);
  MPINOTIFY_TRY(agreed_status(local, verdict, my_rank, "window creation"));

  const Backend *backend = nullptr;
  if (!disabled) {
    for (std::size_t i = 0; i < backends.size() && i < 32; ++i) {
      if ((common & (1U << i)) != 0) {
        backend = backends[i];
        break;
      }
    }
    if (backend == nullptr)
      return error(Errc::unsupported, "no backend accepts this window on every rank (built: " +
                                          backend_names(backends) + ")");
  }

  MPI_Win handle = MPI_WIN_NULL;
  MPINOTIFY_TRY(host_reported(request.create_host_window(&handle), "window creation"));

  WindowSetup setup;
  setup.handle = handle;
  setup.flavor = request.flavor;
  setup.hints = hints;
  setup.hints.disabled = disabled;  // one rank asking disables it for all
  setup.limits = notify_limits(setup.hints, params().num_counters);
  setup.backend = backend;
  for (const CreationRecord &r : all) setup.spans.push_back({r.size, r.disp_unit});
  Status st = host_status(PMPI_Comm_dup(request.comm, &setup.comm), "MPI_Comm_dup");
  if (!st.ok()) {
    PMPI_Win_free(&handle);
    return st;
  }
  auto window = std::make_shared<Window>(std::move(setup));
  if (backend != nullptr) st = attach_module(*window, *backend);
  if (st.ok()) st = set_attributes(*window);
  if (!st.ok()) {
    window.reset();
    PMPI_Win_free(&handle);
    return st;
  }
  window->requested_size = request.size;
  window->padded = request.padded;
  windows().add(window);
  if (params().verbose != 0 && window->rank() == 0)
    std::fprintf(stderr, "mpinotify: %s window of %d ranks served by %s\n",
                 flavor_name(request.flavor), window->size(), window->backend_name());
  *win = handle;
  return {};
}

MPI_Aint host_allocation_size(MPI_Aint size) {
#ifdef MPICH_VERSION
  constexpr MPI_Aint kQuantum = 16;
  if (size > 0 && size % kQuantum != 0) return size + (kQuantum - size % kQuantum);
#endif
  return size;
}

const MPI_Aint *requested_window_size(MPI_Win win) {
  const std::shared_ptr<Window> window = windows().find(win);
  if (!window || !window->padded) return nullptr;
  return &window->requested_size;
}

Status free_window(MPI_Win *win) {
  std::shared_ptr<Window> window = windows().remove(*win);
  if (!window) return host_reported(PMPI_Win_free(win), "MPI_Win_free");
  progress().cancel_window(window.get());
  Status st;
  {
    auto guard = window->exclusive_access();
    st = window->module().destroy();
  }
  window.reset();
  const Status host = host_reported(PMPI_Win_free(win), "MPI_Win_free");
  return st.ok() ? host : st;
}

Status describe_window(Window &window, MPI_Info info) {
  MPINOTIFY_TRY(info_set(info, kAssertKey, std::to_string(window.hints().max_num_notify)));
  return info_set(info, "mpinotify_backend", window.backend_name());
}

Status strip_library_keys(MPI_Info info, MPI_Info *stripped) {
  MPINOTIFY_TRY(host_status(PMPI_Info_dup(info, stripped), "MPI_Info_dup"));
  for (const char *key : {kAssertKey, kDisableKey, "mpinotify_backend"}) {
    Status st = info_erase(*stripped, key);
    if (!st.ok()) {
      PMPI_Info_free(stripped);
      return st;
    }
  }
  return {};
}

}  // namespace mpinotify
