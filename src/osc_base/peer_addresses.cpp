#include "peer_addresses.hpp"

#include "osc_core/agreement.hpp"
#include "osc_core/world_ranks.hpp"

namespace mpinotify {

Status GroupAddresses::get(MPI_Comm comm, const std::function<Status(std::string &)> &mine,
                           std::shared_ptr<const PeerAddresses> &out) {
  const std::vector<int> group = world_ranks(comm);
  {
    std::lock_guard guard(mutex_);
    if (const auto known = by_group_.find(group); !group.empty() && known != by_group_.end()) {
      out = known->second;
      return {};
    }
  }
  std::string address;
  // Collective whatever happened here: the others must not wait in vain.
  const Status made = mine(address);
  if (!made.ok()) address.clear();
  auto all = std::make_shared<PeerAddresses>();
  // A UCX worker address is 215 bytes with the default transports, a
  // libfabric name 16 over tcp: one collective, mostly.
  constexpr std::size_t kAddressSlotBytes = 256;
  MPINOTIFY_TRY(allgather_bytes(comm, address, *all, kAddressSlotBytes));
  MPINOTIFY_TRY(made);
  for (std::size_t r = 0; r < all->size(); ++r) {
    if ((*all)[r].empty())
      return error(Errc::other, "rank " + std::to_string(r) + " has no address to be reached at");
  }
  out = std::move(all);
  std::lock_guard guard(mutex_);
  if (!group.empty()) by_group_[group] = out;
  return {};
}

}  // namespace mpinotify
