// ofi peers: a target's entry in the address vector, made on its first use.
//
// Inserting every rank's name at creation, and reading from every peer
// this process had not reached (the only way to learn that a provider
// connected), cost each rank a connection to every member of the group,
// and failed the whole window where one peer could not be reached. Only
// the names are kept from the exchange now.
#include "ofi_module.hpp"

namespace mpinotify::ofi {

Status OfiModule::make_address(int target, fi_addr_t &out) {
  const auto at = static_cast<std::size_t>(target);
  if (names_ == nullptr || target < 0 || at >= names_->size() || at >= peers_.size())
    return error(Errc::intern, "ofi: no address for rank " + std::to_string(target));
  // Several threads may need a new target at once: one makes it, the
  // others find it made.
  std::lock_guard guard(addrs_.mutex());
  if (const fi_addr_t *known = addrs_.find(target)) {
    out = *known;
    return {};
  }
  MPINOTIFY_TRY(context_.reach((*names_)[at], peers_[at].sink, target, out));
  addrs_.publish(target, std::make_unique<fi_addr_t>(out));
  return {};
}

}  // namespace mpinotify::ofi
