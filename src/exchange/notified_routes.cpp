#include "notified_routes.hpp"

#include <mpi_notify.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>

#include "mpinotify/exchange.hpp"

#include "mpi_call.hpp"
#include "payload_messages.hpp"

namespace mpinotify::detail {
namespace {

// Whether each peer shares this rank's node (a shared-memory domain, as
// the host MPI sees it).
std::vector<bool> on_this_node(MPI_Comm comm, const std::vector<int> &peers) {
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  MPI_Group all = MPI_GROUP_NULL;
  MPI_Group local = MPI_GROUP_NULL;
  check_mpi(MPI_Comm_group(comm, &all), "MPI_Comm_group");
  check_mpi(MPI_Comm_group(node, &local), "MPI_Comm_group");
  std::vector<int> there(peers.size(), MPI_UNDEFINED);
  const int rc = MPI_Group_translate_ranks(all, static_cast<int>(peers.size()), peers.data(), local,
                                           there.data());
  MPI_Group_free(&local);
  MPI_Group_free(&all);
  MPI_Comm_free(&node);
  check_mpi(rc, "MPI_Group_translate_ranks");
  std::vector<bool> near(peers.size());
  for (std::size_t i = 0; i < peers.size(); ++i) near[i] = there[i] != MPI_UNDEFINED;
  return near;
}

// Whether UCX's transport setting for the library (docs/usage.md) leaves
// it a shared-memory transport between ranks of one node. Unset: UCX
// takes all it has.
bool ucx_has_shared_memory() {
  const char *tls = std::getenv("MPINOTIFY_UCX_TLS");  // NOLINT(concurrency-mt-unsafe)
  if (tls == nullptr) tls = std::getenv("UCX_TLS");    // NOLINT(concurrency-mt-unsafe)
  if (tls == nullptr || *tls == '\0') return true;
  std::string_view list(tls);
  const bool excluding = list.starts_with('^');
  if (excluding) list.remove_prefix(1);
  bool named = false;  // a shared-memory transport or alias is in the list
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    for (const std::string_view shm : {"all", "sm", "shm", "posix", "sysv", "xpmem", "knem", "cma"})
      named = named || name == shm;
    list.remove_prefix(comma == std::string_view::npos ? list.size() : comma + 1);
  }
  return excluding ? !named : named;
}

}  // namespace

// The routes to a peer on this node, by what the backend's data path is
// (measured, docs/exchange.md): sm and pmpi move a payload through the
// ring faster than the host MPI's messages do; ucx over shared memory
// matches them with messages, and beats them from a few MiB by pulling;
// ucx over a network and ofi (tcp, and shm) are 2-5x slower than them.
PayloadRoutes::PeerRoutes PayloadRoutes::routes_within_node(const std::string &backend) {
  if (backend == "ucx" && ucx_has_shared_memory()) return {.pull = true, .message = true};
  if (backend == "ucx" || backend == "ofi") return {.message = true};
  return {};
}

RouteOptions route_options_from_environment() {
  RouteOptions options;
  const char *value = std::getenv("MPINOTIFY_EXCHANGE_LARGE");  // NOLINT(concurrency-mt-unsafe)
  if (value == nullptr) return options;
  const std::string_view name(value);
  if (name == "ring") {
    options.large = LargePayloads::RING;
  } else if (name == "pull") {
    options.large = LargePayloads::PULL;
  } else if (name == "message") {
    options.large = LargePayloads::MESSAGE;
  } else if (!name.empty() && name != "auto") {
    static std::once_flag warned;
    std::call_once(warned, [&] {
      std::fprintf(stderr,
                   "mpinotify exchange: MPINOTIFY_EXCHANGE_LARGE=\"%s\" is none of auto, ring, "
                   "pull, message; using auto\n",
                   value);
    });
  }
  return options;
}

void PayloadRoutes::open(MPI_Comm comm, int op_id, const std::vector<int> &peers,
                         const std::vector<int> &index_at_peer, const RouteOptions &options,
                         const std::string &backend) {
  comm_ = comm;
  op_id_ = op_id;
  peers_ = peers;
  index_at_peer_ = index_at_peer;
  options_ = options;
  payload_tag_ = payload_tag_below(record_tag(comm, op_id));
  exposed_.assign(peers.size(), 0);
  pulls_.assign(peers.size(), {});
  // Collective: on every rank, whatever its options.
  const std::vector<bool> near = on_this_node(comm, peers);
  large_.assign(peers.size(), {});
  switch (options.large) {
    case LargePayloads::RING: break;
    case LargePayloads::PULL: large_.assign(peers.size(), {.pull = true}); break;
    case LargePayloads::MESSAGE: large_.assign(peers.size(), {.message = true}); break;
    case LargePayloads::BY_LOCALITY: {
      const PeerRoutes within = routes_within_node(backend);
      for (std::size_t i = 0; i < peers.size(); ++i)
        large_[i] = near[i] ? within : PeerRoutes{.message = true};
      break;
    }
  }
  // Whether any rank pulls: the window is made where any does, so that
  // ranks run with other options still agree on the collective.
  int any_pull = std::ranges::any_of(large_, [](const PeerRoutes &r) { return r.pull; }) ? 1 : 0;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &any_pull, 1, MPI_INT, MPI_LOR, comm),
            "MPI_Allreduce (payload routes)");
  if (any_pull == 0) return;
  check_mpi(MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &win_),
            "MPI_Win_create_dynamic (exchange payloads)");
  check_mpi(MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
  check_mpi(MPI_Win_set_num_notify(win_, MPI_INFO_NULL, static_cast<int>(peers.size())),
            "MPI_Win_set_num_notify (payloads)");
  check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
}

void PayloadRoutes::close() noexcept {
  if (closed_) return;
  closed_ = true;
  if (win_ == MPI_WIN_NULL) return;
  MPI_Win_unlock_all(win_);
  MPI_Win_free(&win_);
}

void PayloadRoutes::forget() noexcept { closed_ = true; }

PayloadRoute PayloadRoutes::route(std::size_t peer, std::size_t bytes) const noexcept {
  const PeerRoutes &routes = large_[peer];
  if (routes.pull && bytes >= options_.pull_from_bytes && attached_ < kMaxExposed) {
    return PayloadRoute::PULL;
  }
  if (routes.message && bytes >= options_.message_from_bytes) return PayloadRoute::MESSAGE;
  return PayloadRoute::RING;
}

PayloadRoutes::Exposed PayloadRoutes::expose(std::size_t peer, std::span<const std::byte> payload) {
  if (closed_) throw std::logic_error("mpinotify exchange: its window was freed");
  // MPI_Win_attach takes a non-const base: the memory is only read.
  void *base =
      const_cast<std::byte *>(payload.data());  // NOLINT(cppcoreguidelines-pro-type-const-cast)
  check_mpi(MPI_Win_attach(win_, base, static_cast<MPI_Aint>(payload.size())),
            "MPI_Win_attach (payload)");
  ++attached_;
  MPI_Aint address = 0;
  check_mpi(MPI_Get_address(base, &address), "MPI_Get_address");
  return {static_cast<std::uint64_t>(address), ++exposed_[peer]};
}

bool PayloadRoutes::pulled(std::size_t peer, std::uint64_t number,
                           std::span<const std::byte> payload) {
  if (closed_) return true;  // the window went, and the attachment with it
  MPI_Count count = 0;
  check_mpi(MPI_Win_get_notify_value(win_, static_cast<int>(peer), &count),
            "MPI_Win_get_notify_value (payloads)");
  if (static_cast<std::uint64_t>(count) < number) return false;
  unexpose(payload);
  return true;
}

void PayloadRoutes::unexpose(std::span<const std::byte> payload) {
  if (closed_) return;
  void *base =
      const_cast<std::byte *>(payload.data());  // NOLINT(cppcoreguidelines-pro-type-const-cast)
  --attached_;
  check_mpi(MPI_Win_detach(win_, base), "MPI_Win_detach (payload)");
}

std::shared_ptr<PayloadRoutes::Pull> PayloadRoutes::pull(std::size_t peer, std::uint64_t location,
                                                         std::span<std::byte> into) {
  auto pull = std::make_shared<Pull>();
  pull->location = location;
  pull->into = into;
  pulls_[peer].push_back(pull);
  advance(peer);
  return pull;
}

void PayloadRoutes::advance(std::size_t peer) {
  auto &queue = pulls_[peer];
  while (!queue.empty()) {
    Pull &head = *queue.front();
    if (closed_) {
      head.done = true;  // nothing more can arrive
      queue.pop_front();
      continue;
    }
    if (!head.started) {
      // The notification goes to this rank's counter at the peer.
      const auto bytes = static_cast<MPI_Count>(head.into.size());
      const int rc = MPI_Rget_notify_c(head.into.data(), bytes, MPI_BYTE, peers_[peer],
                                       static_cast<MPI_Aint>(head.location), bytes, MPI_BYTE,
                                       index_at_peer_[peer], win_, &head.request);
      if (rc != MPI_SUCCESS) {
        // The range check of dynamic windows (SEMANTICS 3.4) refuses
        // memory the peer did not attach.
        throw ProtocolError(peers_[peer], op_id_,
                            "a pulled payload at " + std::to_string(head.location) +
                                ", which the peer did not expose (" + mpi_error_text(rc) + ")");
      }
      head.started = true;
    }
    int done = 0;
    check_mpi(MPI_Test(&head.request, &done, MPI_STATUS_IGNORE), "MPI_Test (payload pull)");
    if (done == 0) return;
    head.done = true;
    queue.pop_front();
  }
}

bool PayloadRoutes::withdraw(std::size_t peer, const Pull &pull) {
  if (pull.started) return false;
  std::erase_if(pulls_[peer], [&](const std::shared_ptr<Pull> &p) { return p.get() == &pull; });
  return true;
}

}  // namespace mpinotify::detail
