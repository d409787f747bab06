// Window creation and free: the agreement on hints and backend, the host
// window, the module and its first counter reservation.
#include <cstdint>
#include <cstdio>
#include <string>

#include "agreement.hpp"
#include "creation_summary.hpp"
#include "host_creation_turn.hpp"
#include "info.hpp"
#include "node_probe.hpp"
#include "osc.hpp"
#include "params.hpp"
#include "progress.hpp"
#include "registry.hpp"
#include "runtime.hpp"

namespace mpinotify {
namespace {

constexpr const char *kAssertKey = "mpi_assert_max_num_notify";
constexpr const char *kSameCountsKey = "mpi_assert_same_num_notifications";
constexpr const char *kDisableKey = "mpinotify_disable";
constexpr const char *kBackendKey = "mpinotify_backend";

// A backend the window must have, and who asked for it: the creation info
// (for this window) or MPINOTIFY_BACKEND (for every window).
struct ForcedBackend {
  std::string name;  // empty: none
  std::string source;

  std::string describe() const { return source + "=" + name; }
};

ForcedBackend forced_backend(MPI_Info info) {
  if (auto asked = info_value(info, kBackendKey)) return {*asked, "info mpinotify_backend"};
  return {params().backend, "MPINOTIFY_BACKEND"};
}

std::string backend_names(const std::vector<const Backend *> &backends) {
  std::string names;
  for (const Backend *b : backends) names += std::string(names.empty() ? "" : ", ") + b->name();
  return names;
}

// The local part of creation: the info hints, and a forced backend exists
// (a name in the info is an info error, in the environment a missing
// backend).
Status local_verdict(const CreateRequest &request, CreationHints &hints) {
  MPINOTIFY_TRY(parse_creation_hints(info_value(request.info, kAssertKey),
                                     info_value(request.info, kDisableKey), hints,
                                     info_value(request.info, kSameCountsKey)));
  const ForcedBackend forced = forced_backend(request.info);
  if (!hints.disabled && !forced.name.empty() &&
      BackendRegistry::instance().find(forced.name) == nullptr)
    return error(forced.source == "MPINOTIFY_BACKEND" ? Errc::unsupported : Errc::info,
                 forced.describe() + " names no backend of this library (built: " +
                     backend_names(BackendRegistry::instance().all()) + ")");
  return {};
}

// Which backends accept the window here; a forced backend limits the
// choice to one. Refusal reasons go to `why`.
std::uint32_t accepting_backends(const std::vector<const Backend *> &backends,
                                 const WindowQuery &query, const ForcedBackend &forced,
                                 std::string &why) {
  std::uint32_t mask = 0;
  for (std::size_t i = 0; i < backends.size() && i < 32; ++i) {
    const Backend &b = *backends[i];
    if (!forced.name.empty() && forced.name != b.name()) continue;
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

// By backend (registry order, as accepting_backends): which know how to
// find the peers of `comm`'s group already.
std::uint32_t groups_known(MPI_Comm comm) {
  const std::vector<const Backend *> backends = BackendRegistry::instance().all();
  std::uint32_t mask = 0;
  for (std::size_t i = 0; i < backends.size() && i < 32; ++i) {
    if (backends[i]->knows_group(comm)) mask |= 1U << i;
  }
  return mask;
}

// What a rank knows of the backends before the creation record goes out.
struct BackendChoice {
  bool known = false;  // the memory sharing was known: `accepted` is set
  std::uint32_t accepted = 0;
  MemorySharing sharing;
  std::string why;  // refusal reasons here
};

BackendChoice choose_backends(const CreateRequest &request, const MemorySharing &sharing,
                              int ranks) {
  BackendChoice choice;
  choice.known = true;
  choice.sharing = sharing;
  const WindowQuery query{request.flavor, request.comm, ranks, sharing.single_node,
                          sharing.lookalikes_apart};
  choice.accepted = accepting_backends(BackendRegistry::instance().all(), query,
                                       forced_backend(request.info), choice.why);
  return choice;
}

// Which ranks share a machine, for a probe: every rank's key, gathered
// only when they differ.
Status node_keys(MPI_Comm comm, const CreationSummary &all, int ranks,
                 std::vector<std::uint64_t> &nodes) {
  if (all.node_min == all.node_max) {
    nodes.assign(static_cast<std::size_t>(ranks), all.node_min);
    return {};
  }
  return allgather_records(comm, this_node(), nodes);
}

// Collective over the library's communicator `comm` unless every rank
// knew its choice already (`all`): the backends that accept the window on
// every rank, highest priority first; what they found of memory sharing
// goes into `setup`.
Status agreed_backends(const CreateRequest &request, const CreationSummary &all, int ranks,
                       MPI_Comm comm, BackendChoice choice,
                       std::vector<const Backend *> &candidates, WindowSetup &setup) {
  const std::vector<const Backend *> backends = BackendRegistry::instance().all();
  std::uint32_t common = all.backends;
  if (all.backends_known == 0) {
    std::vector<std::uint64_t> nodes;
    MPINOTIFY_TRY(node_keys(comm, all, ranks, nodes));
    MemorySharing sharing;
    MPINOTIFY_TRY(probe_memory_sharing(comm, nodes, sharing));
    choice = choose_backends(request, sharing, ranks);
    MPINOTIFY_TRY(
        host_status(PMPI_Allreduce(&choice.accepted, &common, 1, MPI_UINT32_T, MPI_BAND, comm),
                    "MPI_Allreduce"));
  }
  setup.lookalikes_apart = choice.sharing.lookalikes_apart;
  // A probe's answer is the group's; a remembered one only as agreed.
  setup.single_node = all.backends_known == 0 ? choice.sharing.single_node : all.single_node != 0;
  for (std::size_t i = 0; i < backends.size() && i < 32; ++i) {
    if ((common & (1U << i)) != 0) candidates.push_back(backends[i]);
  }
  if (!candidates.empty()) return {};
  const ForcedBackend forced = forced_backend(request.info);
  return error(
      Errc::unsupported,
      (forced.name.empty() ? std::string("no backend can serve this window")
                           : forced.describe() + " cannot serve this window") +
          " (" + (choice.why.empty() ? std::string("refused on another rank") : choice.why) + ")");
}

// Collective over `comm`: every rank's memory span, one for all when they
// are the same.
Status rank_spans(MPI_Comm comm, const CreationSummary &all, const RankSpan &mine,
                  std::vector<RankSpan> &spans) {
  if (all.size_min == all.size_max && all.disp_unit_min == all.disp_unit_max) {
    spans.assign(1, RankSpan{static_cast<MPI_Aint>(all.size_min), all.disp_unit_min});
    return {};
  }
  return allgather_records(comm, mine, spans);
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

// Gives the window its attributes, module and first reservation;
// collective, and every failure is agreed: every rank fails together.
Status attach_module(Window &window, const Backend &backend) {
  window.set_module(backend.make_module(window));
  Module &module = window.module();
  bool grows = false;
  Status local = set_attributes(window);
  if (local.ok() && fault_injected(std::string("reserve:") + backend.name(), window.rank()))
    local = error(Errc::no_mem, std::string("MPINOTIFY_FAULT: ") + backend.name() +
                                    " cannot reserve its counters");
  if (local.ok()) local = module.reserve(window.limits().reserve, grows);
  Status agreed = agree(window.comm(), local, "window creation");
  if (!agreed.ok()) {
    if (local.ok()) module.release_reservation();
    return agreed;
  }
  MPINOTIFY_TRY(module.commit(RankCounts(0), true));
  window.set_counts(RankCounts(0));
  return {};
}

// A duplicate of the program's communicator for the library's own calls:
// their errors return to the library.
Status library_comm(MPI_Comm comm, MPI_Comm &out) {
  MPINOTIFY_TRY(host_status(PMPI_Comm_dup(comm, &out), "MPI_Comm_dup"));
  PMPI_Comm_set_errhandler(out, MPI_ERRORS_RETURN);
  return {};
}

// Collective: the host window for `request` made by `backend` (nullptr:
// notifications disabled), with its module and first reservation. On
// error nothing is left: the host window and `comm` (which the window
// owns from here on) are gone.
Status make_window(const CreateRequest &request, const Backend *backend, WindowSetup setup,
                   std::shared_ptr<Window> &out) {
  CreateRequest attempt = request;
  attempt.library_comm = setup.comm;
  attempt.counters_reserved = setup.limits.reserve;
  attempt.single_node = setup.single_node;
  HostWindow host;
  int rc = MPI_SUCCESS;
  {
    HostCreationTurn turn;
    const Status taken = turn.take(setup.comm, setup.single_node);
    if (!taken.ok()) {
      PMPI_Comm_free(&setup.comm);
      return taken;
    }
    rc = backend != nullptr ? backend->create_host_window(attempt, host)
                            : request.create(request.info, &host.handle);
  }
  if (rc != MPI_SUCCESS) PMPI_Comm_free(&setup.comm);
  MPINOTIFY_TRY(host_reported(rc, "window creation"));
  MPI_Win handle = host.handle;
  setup.handle = handle;
  setup.in_shared_memory = host.in_shared_memory;
  setup.tail_counter_stride = host.tail_counter_stride;
  setup.backend = backend;
  auto window = std::make_shared<Window>(std::move(setup));
  const Status st = backend != nullptr ? attach_module(*window, *backend) : set_attributes(*window);
  if (!st.ok()) {
    PMPI_Win_free(&handle);  // before the window's communicator: see free_window
    window.reset();
    return st;
  }
  window->requested_size = request.size;
  window->padded = request.padded || host.tail_counter_stride != 0;
  out = std::move(window);
  return {};
}

}  // namespace

Status create_window(const CreateRequest &request, MPI_Win *win) {
  CreationHints hints;
  const Status local = local_verdict(request, hints);
  // A group met before needs no probe: the backends can be chosen now and
  // agreed in the summary (not for a window this rank disables: asking a
  // backend may start it).
  BackendChoice choice;
  MemorySharing sharing;
  int ranks = 0;
  PMPI_Comm_size(request.comm, &ranks);
  if (local.ok() && !hints.disabled && known_memory_sharing(request.comm, sharing))
    choice = choose_backends(request, sharing, ranks);
  int my_rank = 0;
  PMPI_Comm_rank(request.comm, &my_rank);
  const RankSpan span{request.flavor == Flavor::dynamic ? 0 : request.size, request.disp_unit};
  CreationSummary mine =
      summary_of_rank(local.code(), my_rank, hints.disabled, hints.same_num_notifications,
                      span.size, span.disp_unit, this_node(), choice.accepted, choice.known);
  mine.window_key = next_window_key();
  // Asked before the summary, so that a group another thread teaches this
  // process meanwhile counts for the next window, on every rank alike.
  mine.groups_known = local.ok() && !hints.disabled ? groups_known(request.comm) : 0;
  mine.single_node = choice.known && choice.sharing.single_node ? 1 : 0;
  CreationSummary all{};
  MPINOTIFY_TRY(reduce_summaries(request.comm, mine, all));
  window_key_taken(all.window_key);
  const Verdict verdict =
      all.verdict == 0 ? Verdict{} : Verdict{static_cast<Errc>(all.verdict), all.verdict_rank};
  MPINOTIFY_TRY(agreed_status(local, verdict, my_rank, "window creation"));
  const bool disabled = all.disabled != 0;

  WindowSetup setup;
  setup.flavor = request.flavor;
  setup.hints = hints;
  setup.hints.disabled = disabled;           // one rank asking disables it for all
  setup.same_counts = all.same_counts != 0;  // only an assertion of every rank counts
  setup.limits = notify_limits(setup.hints, params().num_counters);
  setup.ranks = ranks;
  setup.key = all.window_key;
  setup.groups_known = all.groups_known;
  MPINOTIFY_TRY(rank_spans(request.comm, all, span, setup.spans));
  MPINOTIFY_TRY(library_comm(request.comm, setup.comm));

  std::vector<const Backend *> candidates;
  if (disabled) {
    candidates.push_back(nullptr);
  } else {
    const Status st =
        agreed_backends(request, all, ranks, setup.comm, std::move(choice), candidates, setup);
    if (!st.ok()) {
      PMPI_Comm_free(&setup.comm);
      return st;
    }
  }
  // A backend that fails after its host window exists (its counter
  // storage, say) failed on every rank: the next one is tried, unless the
  // program forced this one (SEMANTICS 5.4) or the program's own host call
  // failed (the host reported that, as it would without the library).
  const bool forced = !forced_backend(request.info).name.empty();
  std::shared_ptr<Window> window;
  std::string failures;  // why each backend tried could not serve
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (i > 0) MPINOTIFY_TRY(library_comm(request.comm, setup.comm));
    Status st = make_window(request, candidates[i], setup, window);
    if (st.ok()) break;
    if (forced || st.reported() || candidates.size() == 1) return st;
    failures +=
        std::string(failures.empty() ? "" : "; ") + candidates[i]->name() + ": " + st.message();
    if (i + 1 == candidates.size())
      return error(st.code() == Errc::host ? Errc::other : st.code(),
                   "no backend could serve this window (" + failures + ")");
    if (params().verbose != 0 && my_rank == 0)
      std::fprintf(stderr, "mpinotify: %s cannot serve this window (%s); trying %s\n",
                   candidates[i]->name(), st.message().c_str(), candidates[i + 1]->name());
  }
  windows().add(window);
  if (params().verbose != 0 && window->rank() == 0)
    std::fprintf(stderr, "mpinotify: %s window of %d ranks served by %s\n",
                 flavor_name(request.flavor), window->size(), window->backend_name());
  *win = window->handle();
  return {};
}

MPI_Aint host_allocation_size(MPI_Aint size) {
#ifdef MPICH_VERSION
  constexpr MPI_Aint kQuantum = 16;
  if (size > 0 && size % kQuantum != 0) return size + (kQuantum - size % kQuantum);
#endif
  return size;
}

const void *visible_attribute(MPI_Win win, int keyval) {
  static const int kAllocateFlavor = MPI_WIN_FLAVOR_ALLOCATE;
  const std::shared_ptr<Window> window = windows().find(win);
  if (!window) return nullptr;
  if (keyval == MPI_WIN_SIZE && window->padded) return &window->requested_size;
  if (keyval == MPI_WIN_CREATE_FLAVOR && window->in_shared_memory()) return &kAllocateFlavor;
  return nullptr;
}

Status free_window(MPI_Win *win) {
  std::shared_ptr<Window> window = windows().remove(*win);
  if (!window) return host_reported(PMPI_Win_free(win), "MPI_Win_free");
  progress().cancel_window(window.get());
  Status st;
  {
    auto guard = window->exclusive_access();
    window->local_regions().place(nullptr);  // its memory is the module's
    st = window->module().destroy();
  }
  // The host window goes before the communicator it was made over (which
  // the Window frees): MPICH names a window by that communicator's context
  // id and a count of its windows, so a context id freed while its window
  // lives can name another thread's next window the same, and that
  // window's lock and unlock messages then reach this one (an assertion in
  // MPI_Win_lock_all, or a hang).
  const Status host = host_reported(PMPI_Win_free(win), "MPI_Win_free");
  window.reset();
  return st.ok() ? host : st;
}

Status describe_window(Window &window, MPI_Info info) {
  MPINOTIFY_TRY(info_set(info, kAssertKey, std::to_string(window.hints().max_num_notify)));
  MPINOTIFY_TRY(
      info_set(info, kSameCountsKey, window.hints().same_num_notifications ? "true" : "false"));
  return info_set(info, kBackendKey, window.backend_name());
}

Status strip_library_keys(MPI_Info info, MPI_Info *stripped) {
  MPINOTIFY_TRY(host_status(PMPI_Info_dup(info, stripped), "MPI_Info_dup"));
  for (const char *key : {kAssertKey, kSameCountsKey, kDisableKey, kBackendKey}) {
    Status st = info_erase(*stripped, key);
    if (!st.ok()) {
      PMPI_Info_free(stripped);
      return st;
    }
  }
  return {};
}

}  // namespace mpinotify
