#include "peer_addresses.hpp"

#include "osc_core/agreement.hpp"
#include "osc_core/params.hpp"
#include "osc_core/world_ranks.hpp"
#include "process_directory.hpp"

namespace mpinotify {

PeerAddresses::PeerAddresses(std::vector<std::string> gathered)
    : size_(gathered.size()), gathered_(std::move(gathered)) {}

PeerAddresses::PeerAddresses(ProcessDirectory &directory, std::string key, MPI_Group group,
                             std::size_t size)
    : size_(size), directory_(&directory), key_(std::move(key)), group_(group) {}

PeerAddresses::~PeerAddresses() {
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (group_ != MPI_GROUP_NULL && finalized == 0) PMPI_Group_free(&group_);
}

Status PeerAddresses::get(int rank, std::string &out) const {
  if (rank < 0 || static_cast<std::size_t>(rank) >= size_)
    return error(Errc::intern, "no address for rank " + std::to_string(rank));
  if (directory_ == nullptr) {
    out = gathered_[static_cast<std::size_t>(rank)];
    return {};
  }
  // The directory knows processes by MPI_COMM_WORLD rank; a group made
  // the directory's only when all its members are in MPI_COMM_WORLD.
  MPI_Group world = MPI_GROUP_NULL;
  int world_rank = MPI_UNDEFINED;
  MPINOTIFY_TRY(host_status(PMPI_Comm_group(MPI_COMM_WORLD, &world), "MPI_Comm_group"));
  const int translated = PMPI_Group_translate_ranks(group_, 1, &rank, world, &world_rank);
  PMPI_Group_free(&world);
  MPINOTIFY_TRY(host_status(translated, "MPI_Group_translate_ranks"));
  if (world_rank == MPI_UNDEFINED)
    return error(Errc::intern, "rank " + std::to_string(rank) + " is not in MPI_COMM_WORLD");
  return directory_->lookup(key_, world_rank, out);
}

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
  // Members outside MPI_COMM_WORLD make every member's group empty here
  // (each process is in one MPI_COMM_WORLD), so all exchange alike.
  if (group.empty()) return exchange(comm, group, mine, out);
  bool world = false;
  {
    std::lock_guard guard(mutex_);
    world = world_published_;
  }
  if (!world) {
    if (!on_every_rank(comm, published(comm, mine))) return exchange(comm, group, mine, out);
    int world_size = 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    world = group.size() == static_cast<std::size_t>(world_size);
  }
  MPI_Group members = MPI_GROUP_NULL;
  MPINOTIFY_TRY(host_status(PMPI_Comm_group(comm, &members), "MPI_Comm_group"));
  out = std::make_shared<const PeerAddresses>(*ProcessDirectory::instance(), "mpinotify." + name_,
                                              members, group.size());
  // Every member took this way at once, so all remember it alike: the
  // world for every group within it, another group (4 bytes a member) so
  // that its next window needs no allreduce either.
  std::lock_guard guard(mutex_);
  if (world) {
    world_published_ = true;
  } else {
    by_group_[group] = out;
  }
  return {};
}

bool GroupAddresses::published(MPI_Comm comm, const std::function<Status(std::string &)> &mine) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (fault_injected("directory:" + name_, rank)) return false;
  ProcessDirectory *directory = ProcessDirectory::instance();
  if (directory == nullptr) return false;
  std::lock_guard guard(mutex_);
  if (published_) return true;
  std::string address;
  published_ = mine(address).ok() && !address.empty() &&
               directory->publish("mpinotify." + name_, address).ok();
  return published_;
}

Status GroupAddresses::exchange(MPI_Comm comm, const std::vector<int> &group,
                                const std::function<Status(std::string &)> &mine,
                                std::shared_ptr<const PeerAddresses> &out) {
  std::string address;
  // Collective whatever happened here: the others must not wait in vain.
  const Status made = mine(address);
  if (!made.ok()) address.clear();
  std::vector<std::string> all;
  // A UCX worker address is 215 bytes with the default transports, a
  // libfabric name 16 over tcp: one collective, mostly.
  constexpr std::size_t kAddressSlotBytes = 256;
  MPINOTIFY_TRY(allgather_bytes(comm, address, all, kAddressSlotBytes));
  MPINOTIFY_TRY(made);
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r].empty())
      return error(Errc::other, "rank " + std::to_string(r) + " has no address to be reached at");
  }
  out = std::make_shared<const PeerAddresses>(std::move(all));
  std::lock_guard guard(mutex_);
  if (!group.empty()) by_group_[group] = out;
  return {};
}

}  // namespace mpinotify
