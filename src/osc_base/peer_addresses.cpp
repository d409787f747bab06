#include "peer_addresses.hpp"

#include "osc_core/agreement.hpp"
#include "osc_core/params.hpp"
#include "osc_core/world_ranks.hpp"
#include "peer_deadline.hpp"
#include "process_directory.hpp"

namespace mpinotify {

PeerAddresses::PeerAddresses(std::vector<std::string> gathered)
    : size_(gathered.size()), gathered_(std::move(gathered)) {}

PeerAddresses::PeerAddresses(std::shared_ptr<const std::vector<std::string>> world,
                             std::vector<int> world_ranks)
    : size_(world_ranks.size()), world_(std::move(world)), world_ranks_(std::move(world_ranks)) {}

PeerAddresses::PeerAddresses(ProcessDirectory &directory, std::string key, MPI_Group group,
                             std::size_t size)
    : size_(size), directory_(&directory), key_(std::move(key)), group_(group) {}

PeerAddresses::~PeerAddresses() {
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (group_ != MPI_GROUP_NULL && finalized == 0) PMPI_Group_free(&group_);
}

Status PeerAddresses::get(int rank, PeerDeadline &deadline, std::string &out) const {
  if (rank < 0 || static_cast<std::size_t>(rank) >= size_)
    return error(Errc::intern, "no address for rank " + std::to_string(rank));
  if (world_ != nullptr) {
    out = (*world_)[static_cast<std::size_t>(world_ranks_[static_cast<std::size_t>(rank)])];
    return {};
  }
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
  return directory_->lookup(key_, world_rank, deadline, out);
}

bool GroupAddresses::known(MPI_Comm comm) {
  const std::vector<int> group = world_ranks(comm);
  if (group.empty()) return false;
  std::lock_guard guard(mutex_);
  return world_published_ || world_exchanged_ != nullptr || by_group_.contains(group);
}

Status GroupAddresses::get(MPI_Comm comm, bool known_by_all,
                           const std::function<Status(std::string &)> &mine,
                           std::shared_ptr<const PeerAddresses> &out) {
  const std::vector<int> group = world_ranks(comm);
  if (known_by_all) {
    // Every member knew: none takes a collective. Whichever way a member
    // learnt the group (a thread's earlier window may have learnt it
    // anew), its addresses are right.
    std::lock_guard guard(mutex_);
    if (const auto cached = by_group_.find(group); cached != by_group_.end()) {
      out = cached->second;
      return {};
    }
    if (!group.empty() && world_exchanged_ != nullptr) {
      out = std::make_shared<const PeerAddresses>(world_exchanged_, group);
      return {};
    }
    if (group.empty() || !world_published_)
      return error(Errc::intern, "a group every rank knew is unknown here");
    return directory_addresses(comm, group.size(), out);
  }
  // Members outside MPI_COMM_WORLD make every member's group empty here
  // (each process is in one MPI_COMM_WORLD), so all exchange alike.
  if (group.empty()) return exchange(comm, group, mine, out);
  // Everything that can fail on one rank comes before the allreduce, so
  // that it counts in it.
  ProcessDirectory *directory = ProcessDirectory::instance();
  MPI_Group members = MPI_GROUP_NULL;
  const bool ready = directory != nullptr && published(comm, mine) &&
                     PMPI_Comm_group(comm, &members) == MPI_SUCCESS;
  if (!on_every_rank(comm, ready)) {
    if (members != MPI_GROUP_NULL) PMPI_Group_free(&members);
    return exchange(comm, group, mine, out);
  }
  out = std::make_shared<const PeerAddresses>(*directory, directory_key_, members, group.size());
  int world_size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
  // Every member took this way: the world counts for every group within
  // it, another group (4 bytes a member) for its next window.
  std::lock_guard guard(mutex_);
  if (group.size() == static_cast<std::size_t>(world_size)) {
    world_published_ = true;
  } else {
    by_group_[group] = out;
  }
  return {};
}

Status GroupAddresses::directory_addresses(MPI_Comm comm, std::size_t size,
                                           std::shared_ptr<const PeerAddresses> &out) {
  ProcessDirectory *directory = ProcessDirectory::instance();
  if (directory == nullptr) return error(Errc::intern, "the address directory is gone");
  MPI_Group members = MPI_GROUP_NULL;
  MPINOTIFY_TRY(host_status(PMPI_Comm_group(comm, &members), "MPI_Comm_group"));
  out = std::make_shared<const PeerAddresses>(*directory, directory_key_, members, size);
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
  published_ =
      mine(address).ok() && !address.empty() && directory->publish(directory_key_, address).ok();
  return published_;
}

Status GroupAddresses::exchange(MPI_Comm comm, const std::vector<int> &group,
                                const std::function<Status(std::string &)> &mine,
                                std::shared_ptr<const PeerAddresses> &out) {
  std::string address;
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  // Collective whatever happened here: the others must not wait in vain.
  const Status made =
      fault_injected("exchange:" + name_, rank)
          ? error(Errc::other,
                  "exchanging addresses failed (MPINOTIFY_FAULT=exchange:" + name_ + ")")
          : mine(address);
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
  int world_size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (!group.empty() && group.size() == static_cast<std::size_t>(world_size)) {
    // All of MPI_COMM_WORLD, in whatever order: kept by its rank, for every
    // group within it.
    auto world = std::make_shared<std::vector<std::string>>(all.size());
    for (std::size_t r = 0; r < all.size(); ++r)
      (*world)[static_cast<std::size_t>(group[r])] = std::move(all[r]);
    out = std::make_shared<const PeerAddresses>(world, group);
    std::lock_guard guard(mutex_);
    if (world_exchanged_ == nullptr) world_exchanged_ = std::move(world);
    return {};
  }
  out = std::make_shared<const PeerAddresses>(std::move(all));
  std::lock_guard guard(mutex_);
  if (!group.empty()) by_group_[group] = out;
  return {};
}

}  // namespace mpinotify
