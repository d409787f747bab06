// Where network backends find peer processes. Each process's address (a
// UCX worker address, a libfabric endpoint name) is exchanged once per
// group of processes and kept; what a backend makes of an address (an
// endpoint, an address-vector entry) is made by the first operation that
// needs it and kept by the address's bytes, never by a rank number, so a
// pair of processes shares it across windows and groups. Window creation
// reaches no one: a rank pays for the peers it talks to.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "osc_core/mpi_host.hpp"
#include "osc_core/status.hpp"

namespace mpinotify {

// A group's addresses, by rank.
using PeerAddresses = std::vector<std::string>;

class GroupAddresses {
 public:
  // Collective over `comm`: its members' addresses, `mine` giving this
  // process's. Exchanged once per group, keyed by the members'
  // MPI_COMM_WORLD ranks: every member computes the same key and has seen
  // the same exchanges for it, so all skip the exchange or none does. A
  // member without an address fails the call on every member alike.
  Status get(MPI_Comm comm, const std::function<Status(std::string &)> &mine,
             std::shared_ptr<const PeerAddresses> &out);

 private:
  std::mutex mutex_;
  std::map<std::vector<int>, std::shared_ptr<const PeerAddresses>> by_group_;
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
