// Where network backends find peer processes. Each process's address (a
// UCX worker address, a libfabric endpoint name) is read on first use from
// the process manager's store where there is one (process_directory.hpp),
// else exchanged at a group's first window and kept; what a backend
// makes of an address (an endpoint, an address-vector entry) is made by the
// first operation that needs it and kept by the address's bytes, never by a
// rank number, so a pair of processes shares it across windows and groups.
// Window creation reaches no one: a rank pays for the peers it talks to.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "osc_core/mpi_host.hpp"
#include "osc_core/status.hpp"

namespace mpinotify {

class PeerDeadline;
class ProcessDirectory;

// A group's addresses, by rank: gathered from every member, taken from
// those MPI_COMM_WORLD gathered, or read from the directory on first use.
class PeerAddresses {
 public:
  explicit PeerAddresses(std::vector<std::string> gathered);
  // `world` by MPI_COMM_WORLD rank; `world_ranks` the group's, by group
  // rank.
  PeerAddresses(std::shared_ptr<const std::vector<std::string>> world,
                std::vector<int> world_ranks);
  // Takes `group` (the members, freed with this).
  PeerAddresses(ProcessDirectory &directory, std::string key, MPI_Group group, std::size_t size);
  PeerAddresses(const PeerAddresses &) = delete;
  PeerAddresses &operator=(const PeerAddresses &) = delete;
  ~PeerAddresses();

  std::size_t size() const { return size_; }
  // The address of group rank `rank` (< size()); a read from the directory
  // fails with MPI_ERR_OTHER when the peer's does not arrive before
  // `deadline`.
  Status get(int rank, PeerDeadline &deadline, std::string &out) const;

 private:
  std::size_t size_ = 0;
  std::vector<std::string> gathered_;
  std::shared_ptr<const std::vector<std::string>> world_;  // by MPI_COMM_WORLD rank
  std::vector<int> world_ranks_;                           // by group rank, into world_
  ProcessDirectory *directory_ = nullptr;
  std::string key_;
  MPI_Group group_ = MPI_GROUP_NULL;
};

class GroupAddresses {
 public:
  // `name` names the addresses in the directory ("ucx", "ofi"), and the
  // failure points directory:<name> and exchange:<name> of
  // MPINOTIFY_FAULT.
  explicit GroupAddresses(std::string name)
      : name_(std::move(name)), directory_key_("mpinotify." + name_) {}

  // Whether this process knows how to find the peers of `comm`'s group
  // (the group met before, or MPI_COMM_WORLD agreed on the directory or
  // exchanged its addresses).
  // Local; for the creation summary, which tells every rank whether all
  // knew (Backend::knows_group).
  bool known(MPI_Comm comm);
  // Collective over `comm` unless `known_by_all` (every member's known()
  // said so before the window's creation summary): its members'
  // addresses, `mine` giving this process's. Where every member published
  // its address in the directory they are read from there on first use:
  // after one allreduce that says all did, at a group's first window, and
  // none at all once MPI_COMM_WORLD said so. Else they are exchanged at a
  // group's first window, and none at all once MPI_COMM_WORLD exchanged
  // them (kept once, by MPI_COMM_WORLD rank). (A first window is one not every member knew
  // the group at: where threads create windows at once, a group may have
  // two.) Groups are known by their members' MPI_COMM_WORLD ranks. A
  // member without an address fails the call on every member alike.
  Status get(MPI_Comm comm, bool known_by_all, const std::function<Status(std::string &)> &mine,
             std::shared_ptr<const PeerAddresses> &out);

 private:
  // Whether this process's address is in the directory (published on the
  // first call that can).
  bool published(MPI_Comm comm, const std::function<Status(std::string &)> &mine);
  // Addresses read from the directory, for `comm`'s `size` members.
  Status directory_addresses(MPI_Comm comm, std::size_t size,
                             std::shared_ptr<const PeerAddresses> &out);
  Status exchange(MPI_Comm comm, const std::vector<int> &group,
                  const std::function<Status(std::string &)> &mine,
                  std::shared_ptr<const PeerAddresses> &out);

  const std::string name_;
  const std::string directory_key_;  // what the address is published under
  std::mutex mutex_;
  // Groups met before (where the directory serves, only those it serves
  // that are not MPI_COMM_WORLD's).
  std::map<std::vector<int>, std::shared_ptr<const PeerAddresses>> by_group_;
  bool published_ = false;
  // Every process of MPI_COMM_WORLD published: any group within it reads
  // the directory without a collective of its own.
  bool world_published_ = false;
  // MPI_COMM_WORLD exchanged its addresses (by its rank): any group within
  // it takes them from here without a collective of its own.
  std::shared_ptr<const std::vector<std::string>> world_exchanged_;
};

// What a process made of the peer addresses it reached, one per address.
template <class Handle>
class ReachedPeers {
 public:
  // The handle of `address`; on its first use make(handle) makes it, and
  // is where the backend learns whether the peer can be reached at all: a
  // make that fails undoes its own work and nothing is kept, so the next
  // use tries again. Other first uses wait meanwhile (one handle per
  // address, however many threads need it at once).
  template <class Make>
  Status get(const std::string &address, Make &&make, Handle &out) {
    std::lock_guard guard(mutex_);
    if (const auto known = by_address_.find(address); known != by_address_.end()) {
      out = known->second;
      return {};
    }
    Handle made{};
    MPINOTIFY_TRY(make(made));
    by_address_.emplace(address, made);
    count_.store(by_address_.size(), std::memory_order_release);
    out = made;
    return {};
  }
  // How many handles exist; only grows until the process forgets them all.
  std::size_t count() const { return count_.load(std::memory_order_acquire); }
  // Hands every handle to release(handle) and forgets them (at shutdown,
  // when nothing else uses them).
  template <class Release>
  void clear(Release &&release) {
    std::lock_guard guard(mutex_);
    for (auto &[address, handle] : by_address_) release(handle);
    by_address_.clear();
    count_.store(0, std::memory_order_release);
  }

 private:
  std::mutex mutex_;  // held while a handle is made and checked
  std::map<std::string, Handle> by_address_;
  std::atomic<std::size_t> count_{0};
};

}  // namespace mpinotify
