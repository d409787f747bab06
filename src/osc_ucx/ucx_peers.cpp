// ucx peers: a target's endpoint and unpacked keys, made on its first use.
//
// UCX unpacks a key against an endpoint, and an unpacked key of memory a
// shared-memory transport reaches maps that memory here: unpacking every
// rank's keys at creation cost each rank, per window, a mapping of every
// member's counters and two keys a member, besides an endpoint to each
// member (once per process). A target's packed keys come from its key
// table (one UCP get, rarely a few) or from the gathered copy.
#include "ucx_module.hpp"

namespace mpinotify::ucx {
namespace {

Status unpack(ucp_ep_h ep, std::string_view key, std::uint64_t base, RemoteMemory &out) {
  ucp_rkey_h rkey = nullptr;
  MPINOTIFY_TRY(ucs_result(ucp_ep_rkey_unpack(ep, key.data(), &rkey), "ucp_ep_rkey_unpack"));
  out = {base, rkey, mapped_here(rkey, base)};
  return {};
}

void destroy_keys(Peer &peer) {
  for (RemoteMemory *remote : {&peer.counters, &peer.memory}) {
    if (remote->rkey != nullptr) ucp_rkey_destroy(remote->rkey);
    *remote = {};
  }
}

}  // namespace

Status UcxModule::make_peer(int target, const Peer *&out) {
  const auto at = static_cast<std::size_t>(target);
  if (addresses_ == nullptr || target < 0 || at >= addresses_->size() ||
      (!published_.in_table() && at >= keys_.size()))
    return error(Errc::intern, "ucx: no keys for rank " + std::to_string(target));
  // Several threads may need a new target at once: one makes it, the
  // others find it made.
  std::lock_guard guard(peers_.mutex());
  if (const Peer *known = peers_.find(target)) {
    out = known;
    return {};
  }
  // Allocates now if at all (std::bad_alloc), so that publishing the
  // record below cannot fail once its keys are unpacked.
  peers_.make_room();
  // The address read has a deadline of its own; the connection check and
  // the key reads share one, whose clock starts with the check (not while
  // this thread waits for another's connection: reach's lock).
  PeerDeadline reading;
  PeerDeadline deadline;
  Context::Reached reached;
  std::string address;
  MPINOTIFY_TRY(addresses_->get(target, reading, address));
  MPINOTIFY_TRY(context_.reach(address, target, reached, &deadline));
  KeySlot slot{};  // the keys read from the target's table stay here
  WindowKeys theirs;
  if (published_.in_table()) {
    const auto read = [&](std::size_t at_slot, KeySlot &into) {
      return context_.read_key_slot(reached, target, at_slot, into, &deadline);
    };
    MPINOTIFY_TRY(find_keys(window_.key(), published_.generation(), context_.key_slots().count(),
                            target, read, slot, theirs));
  } else {
    theirs.bases = {keys_.bases(at).counters, keys_.bases(at).memory};
    theirs.keys = {keys_.counters_key(at), keys_.memory_key(at)};
  }
  if (theirs.keys[0].empty())
    return error(Errc::other, "ucx: rank " + std::to_string(target) + "'s counters have no key");
  auto made = std::make_unique<Peer>();
  made->ep = reached.ep;
  Status unpacked = unpack(made->ep, theirs.keys[0], theirs.bases[0], made->counters);
  if (unpacked.ok() && !theirs.keys[1].empty())
    unpacked = unpack(made->ep, theirs.keys[1], theirs.bases[1], made->memory);
  if (!unpacked.ok()) {
    destroy_keys(*made);
    return unpacked;
  }
  made->fence_orders = made->memory.mapped == made->counters.mapped;
  made->by_load_store = !shared_.empty() && made->counters.mapped;
  out = peers_.publish(target, std::move(made));
  return {};
}

void UcxModule::forget_peers() {
  peers_.clear([](int, Peer &peer) { destroy_keys(peer); });
}

}  // namespace mpinotify::ucx
