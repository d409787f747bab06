// The process's UCP context and workers, its endpoints, and the thread that
// serves peers.
//
// One context per process, made on first use and released at MPI_Finalize,
// with two workers:
// - the issuing worker, which this process's operations go out on; its
//   thread mode follows the MPI thread level, so a program that is not
//   MPI_THREAD_MULTIPLE pays no lock per UCP call;
// - the serving worker, whose address peers connect to. Over transports
//   that emulate RMA and atomics with active messages (tcp), a peer's
//   operation on this process's memory advances only when this worker is
//   progressed; a process blocked in some host MPI call would then stall its
//   peers. So a progress thread sleeps on this worker's event file
//   descriptor and progresses it when something arrives (no busy loop, no
//   target participation where the hardware does the work); pollers of a
//   counter progress it too when the thread is not already in it.
//
// Addresses are read on first use from the process manager's store where
// the MPI runs on PMIx, else exchanged once per group of processes and
// kept; an endpoint is made when some window first needs it and kept by
// the peer's worker address (osc_base/peer_addresses.hpp). Window
// creation connects to no one: a rank pays for the peers it talks to.
//
// The context also holds the process's key table (osc_base/key_slots.hpp),
// registered once: its base and packed key ride with the worker address,
// so a peer reached for the first time can read the keys of any window
// this process published there.
#pragma once

#include <ucp/api/ucp.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "osc_base/key_slots.hpp"
#include "osc_base/peer_addresses.hpp"
#include "osc_base/peer_deadline.hpp"
#include "osc_core/mpi_host.hpp"
#include "osc_core/status.hpp"

namespace mpinotify::ucx {

class CounterPool;
struct LocalMemory;

class Context {
 public:
  // The process's context, made on first use (collective only in that it
  // is called from window creation on every rank). Made for a window whose
  // ranks only look alike (see WindowQuery::lookalikes_apart), it uses no
  // shared-memory transport: UCX would take them for one machine.
  static Context *instance(Status &status, bool lookalikes_apart);
  // Whether the context exists and may use shared-memory transports.
  static bool uses_shared_memory();
  // At MPI_Finalize: stops the progress thread and releases everything.
  static void shutdown();
  // Whether the context exists and knows how to find the peers of
  // `comm`'s group (GroupAddresses::known); starts nothing.
  static bool knows_group(MPI_Comm comm);
  // Whether UCX works here at all (checked once, without a worker).
  static std::optional<std::string> unavailable_reason();

  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context();

  ucp_context_h context() const { return context_; }
  // The issuing worker.
  ucp_worker_h worker() const { return worker_; }
  // Where windows' counters are registered (ucx_memory.hpp).
  CounterPool &counter_pool() { return *counter_pool_; }

  // This process's key table, where its windows publish their keys.
  KeySlots &key_slots() { return *key_slots_; }

  // A group's ranks' addresses, by rank: each its serving worker's address
  // and where its key table is.
  using Addresses = PeerAddresses;
  // Collective over `comm`: the address of every rank of it (read from the
  // process manager's store on first use, or exchanged once per group and
  // shared by every window over that group).
  // `known_by_all`: Window::group_known().
  Status addresses(MPI_Comm comm, bool known_by_all, std::shared_ptr<const Addresses> &out);
  // A peer process as this one reaches it: the endpoint from the issuing
  // worker to its serving worker, and its key table.
  struct Reached {
    ucp_ep_h ep = nullptr;
    ucp_rkey_h key_table = nullptr;
    std::uint64_t key_table_base = 0;
  };
  // The peer at `address` (window rank `peer`, for messages), reached on
  // first use and checked with a flush under the peer deadline: a peer that
  // cannot be reached fails that first use with MPI_ERR_OTHER, and is tried
  // again on the next one. Blocks other first uses meanwhile. With
  // `deadline`, the check shares it (a first use's steps, under one).
  Status reach(const std::string &address, int peer, Reached &out,
               PeerDeadline *deadline = nullptr);
  // Reads slot `slot` of the key table of a peer reached.
  Status read_key_slot(const Reached &peer, int rank, std::size_t slot, KeySlot &out,
                       PeerDeadline *deadline = nullptr);
  // How many endpoints exist; only grows until shutdown.
  std::size_t endpoint_count() const { return endpoints_.count(); }

  // One round of progress on both workers (the serving one unless the
  // progress thread is in it).
  void progress() {
    ucp_worker_progress(worker_);
    serve();
  }
  // For counter polls: the issuing worker only while operations of this
  // process may be unfinished (over tcp each of its calls is a system call,
  // which a rank that only receives should not pay on every poll).
  void poll_counters() {
    if (issued_.load(std::memory_order_relaxed) != flushed_.load(std::memory_order_relaxed))
      ucp_worker_progress(worker_);
    serve();
  }
  // The issuing side says an operation went out, and that every operation
  // counted before `issued` (from issue_count()) completed.
  void note_issued() {
    // One issuing thread at a time below MPI_THREAD_MULTIPLE: a plain
    // store then, without the locked read-modify-write.
    if (issuing_threads_) {
      issued_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    issued_.store(issued_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  std::uint64_t issue_count() const { return issued_.load(std::memory_order_relaxed); }
  void note_flushed(std::uint64_t issued) {
    std::uint64_t known = flushed_.load(std::memory_order_relaxed);
    while (known < issued &&
           !flushed_.compare_exchange_weak(known, issued, std::memory_order_relaxed)) {
    }
  }
  // Progresses until `request` (from an nbx call) completes, then frees it.
  // Fails with MPI_ERR_OTHER once MPINOTIFY_PEER_TIMEOUT passes without
  // completion (a peer or the link to it is gone; `peer` is its window
  // rank, or -1 for "some peer"): the request is then left to UCX, which
  // releases it if it ever completes. So `request` must not write memory
  // that dies with the caller: such operations go through read(). With
  // `deadline`, that one bounds the wait (shared by several).
  Status wait(ucs_status_ptr_t request, const char *what, int peer = -1,
              PeerDeadline *deadline = nullptr);
  // Runs an operation that writes `bytes` of this process's memory (a get,
  // a fetching atomic): `start` posts it into the landing buffer it is
  // given, and its data is copied to `out` once it completed. A landing
  // buffer whose wait failed stays with the context until shutdown, so a
  // late completion writes nothing that was freed.
  template <class Start>
  Status read(void *out, std::size_t bytes, const char *what, int peer, Start &&start,
              PeerDeadline *deadline = nullptr) {
    auto landing = std::make_unique<std::byte[]>(bytes);
    const Status waited = wait(start(static_cast<void *>(landing.get())), what, peer, deadline);
    if (!waited.ok()) {
      park(std::move(landing));
      return waited;
    }
    std::memcpy(out, landing.get(), bytes);
    return {};
  }

 private:
  Context() = default;
  Status start(bool shared_memory);
  void serve() {
    std::unique_lock lock(serving_mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return;
    ucp_worker_progress(serving_);
    serving_by_caller_.store(true, std::memory_order_relaxed);
  }
  void progress_loop();
  void close_endpoint(ucp_ep_h ep);
  void park(std::unique_ptr<std::byte[]> landing) {
    std::lock_guard guard(parked_mutex_);
    parked_.push_back(std::move(landing));
  }

  Status open_key_table();

  ucp_context_h context_ = nullptr;
  std::unique_ptr<CounterPool> counter_pool_;
  std::unique_ptr<LocalMemory> key_table_;  // registered: peers read it
  std::string key_table_rkey_;              // its packed rkey
  std::unique_ptr<KeySlots> key_slots_;
  ucp_worker_h worker_ = nullptr;
  ucp_worker_h serving_ = nullptr;
  std::mutex serving_mutex_;  // one thread in the serving worker at a time
  // Set when a caller progressed the serving worker; the progress thread
  // then stays out of its way (on two cores it would take the CPU the
  // polling rank needs) and looks again a millisecond later.
  std::atomic<bool> serving_by_caller_{false};
  bool issuing_threads_ = false;           // MPI_THREAD_MULTIPLE: many issuers
  std::atomic<std::uint64_t> issued_{0};   // operations issued so far
  std::atomic<std::uint64_t> flushed_{0};  // of those, all before this one done
  int serving_fd_ = -1;
  int stop_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread progress_thread_;

  // Locked apart, so that a connection that waits for its deadline holds
  // up neither window creation nor a failed read.
  GroupAddresses groups_{"ucx"};
  ReachedPeers<Reached> endpoints_;
  std::mutex parked_mutex_;
  // Landing buffers of abandoned reads, freed after the workers are.
  std::vector<std::unique_ptr<std::byte[]>> parked_;
};

// Status for a UCS status code.
inline Status ucs_result(ucs_status_t status, const char *what) {
  if (status == UCS_OK) [[likely]]
    return {};
  return error(Errc::other, std::string(what) + " failed: " + ucs_status_string(status));
}

}  // namespace mpinotify::ucx
