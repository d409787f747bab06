// ofi peers: what this rank knows of a target, made on its first use.
//
// Inserting every rank's name at creation, and reading from every peer
// this process had not reached (the only way to learn that a provider
// connected), cost each rank a connection to every member of the group,
// and failed the whole window where one peer could not be reached; keeping
// every rank's keys cost each rank a record per member and window. A
// target's keys come from its key table (one fi_read, rarely a few) or from
// the gathered copy.
#include <cstring>

#include "ofi_module.hpp"

namespace mpinotify::ofi {

Status OfiModule::make_peer(int target, const Peer *&out) {
  const auto at = static_cast<std::size_t>(target);
  const std::string whom = "rank " + std::to_string(target);
  if (names_ == nullptr || target < 0 || at >= names_->size() ||
      (!published_.in_table() && at >= gathered_.size()))
    return error(Errc::intern, "ofi: no address for " + whom);
  // Several threads may need a new target at once: one makes it, the
  // others find it made.
  std::lock_guard guard(peers_.mutex());
  if (const Peer *known = peers_.find(target)) {
    out = known;
    return {};
  }
  // The address read has a deadline of its own; the connection check and
  // the key reads share one, whose clock starts with the check (not while
  // this thread waits for another's connection: reach's lock).
  PeerDeadline reading;
  PeerDeadline deadline;
  Context::Reached reached;
  std::string name;
  MPINOTIFY_TRY(names_->get(target, reading, name));
  MPINOTIFY_TRY(context_.reach(name, target, reached, &deadline));
  GatheredRecord theirs{};
  if (published_.in_table()) {
    KeySlot slot{};
    WindowKeys found;
    const auto read = [&](std::size_t index, KeySlot &into) {
      return context_.read_key_slot(reached, target, index, into, &deadline);
    };
    MPINOTIFY_TRY(find_keys(window_.key(), published_.generation(), context_.key_slots().count(),
                            target, read, slot, found));
    if (found.keys[0].size() != sizeof(KeyRecord))
      return error(Errc::intern, "ofi: " + whom + "'s key table holds a malformed record");
    theirs.bases = found.bases;
    std::memcpy(&theirs.keys, found.keys[0].data(), sizeof(KeyRecord));
  } else {
    theirs = gathered_[at];
  }
  auto made = std::make_unique<Peer>();
  made->addr = reached.addr;
  made->sink = reached.sink;
  made->window_key = theirs.keys.window_key;
  made->has_memory = theirs.keys.has_memory != 0;
  made->memory_address = theirs.bases[1];
  made->memory_key = theirs.keys.memory_key;
  made->counter_address = theirs.bases[0];
  made->counter_key = theirs.keys.counter_key;
  out = peers_.publish(target, std::move(made));
  return {};
}

}  // namespace mpinotify::ofi
