// The ofi backend: notified RMA on libfabric, one fabric message per
// notified put.
//
// Notification path (providers with 8 bytes of remote CQ data, as shm and
// tcp;ofi_rxm have): a notified put is one fi_writedata whose data names
// the target's window, counter and amount. The provider delivers that
// entry to the target's completion queue only after the written data is in
// its memory, so the count never runs ahead of the data, whatever the
// endpoint orders; the target applies it to its counter when it reads the
// queue (a counter poll, any wait of the backend, the progress thread).
// Everything else notifies with a separate fi_writedata of one word into
// the target's sink, sent once the data is complete at the target:
// - a get is an fi_read, and the notification follows its completion;
// - a put or get whose target type is not contiguous moves piece by piece
//   (fi_write/fi_read per piece, a bounce buffer where the origin side is
//   not contiguous either), the pieces complete, then the notification;
// - the accumulate family and types that cannot be cut move their data
//   through the host MPI (osc_base/host_rma), so they stay atomic with
//   respect to plain MPI_Accumulate on the window, then notify; so does
//   memory of a dynamic window that its directory does not list
//   (ofi_dynamic.cpp).
//
// Counters are this process's own memory: notifications reach them through
// the queue, never by a peer's write, so growing them needs no exchange.
//
// Atomic path (MPINOTIFY_OFI_NOTIFY=atomic, or a provider without 8 bytes
// of remote CQ data): counters are registered and peers add to them with
// fi_atomic, issued once the data is delivered (the providers here order
// no write before an atomic, and FI_FENCE is offered by neither), so a
// notified put costs a round trip before its add; growing them exchanges
// the new registrations.
// Every operation completes with FI_DELIVERY_COMPLETE: a flush waits for
// the completions of what came before it (Context::complete_all).
//
// Window creation learns where the group's addresses are (at most one
// exchange per group, ofi_context.hpp), publishes this rank's keys in its
// process's key table (osc_base/key_slots.hpp) and reaches no one: a
// target's name goes into the address vector, and is checked with one
// read, on the first operation to it, which then reads the target's keys
// from its table (ofi_peers.cpp), so a rank's connections and keys grow
// with the peers it talks to, not with the size of the group. Where some rank cannot publish
// (more live windows than its table holds), the window gathers every
// rank's keys instead.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ofi_context.hpp"
#include "osc_base/counter_capacity.hpp"
#include "osc_base/deferred.hpp"
#include "osc_base/directory_readers.hpp"
#include "osc_base/published_keys.hpp"
#include "osc_core/host_nudge.hpp"
#include "osc_core/lazy_targets.hpp"
#include "osc_core/module.hpp"
#include "osc_core/owed_targets.hpp"
#include "osc_core/window.hpp"

namespace mpinotify::ofi {

// Counters in memory of their own (mmap): freed, they leave the process at
// once, where the heap would keep pages of large arrays.
class CounterMemory {
 public:
  CounterMemory() = default;
  // Zeroed room for `count` counters; empty() if that failed.
  explicit CounterMemory(std::int64_t count);
  CounterMemory(CounterMemory &&other) noexcept { swap(other); }
  CounterMemory &operator=(CounterMemory &&other) noexcept {
    CounterMemory gone(std::move(*this));
    swap(other);
    return *this;
  }
  CounterMemory(const CounterMemory &) = delete;
  CounterMemory &operator=(const CounterMemory &) = delete;
  ~CounterMemory();
  bool empty() const { return words_ == nullptr; }
  std::int64_t *get() const { return words_; }
  std::int64_t &operator[](std::size_t i) const { return words_[i]; }

 private:
  void swap(CounterMemory &other) noexcept {
    std::swap(words_, other.words_);
    std::swap(bytes_, other.bytes_);
  }
  std::int64_t *words_ = nullptr;
  std::size_t bytes_ = 0;
};

class OfiModule final : public Module {
 public:
  OfiModule(Window &window, Context &context);
  ~OfiModule() override;

  Status notify(const NotifyOp &op, MPI_Request *request) override;
  Status read_counter(int idx, MPI_Count *value) override;
  Status reset_counter(int idx, MPI_Count *previous) override;
  Status check_peers() override;

  Status quiesce() override { return complete_all(); }
  Status reserve(int capacity, bool &grows) override;
  void release_reservation() override { capacity_.release(); }
  Status commit(const RankCounts &new_counts, bool any_growth) override;

  Status before_sync(const SyncCall &call) override;
  Status after_sync(const SyncCall &call) override;
  Status destroy() override;

  std::uint64_t region_stamp(int target) override;
  Status fetch_regions(int target, RegionTable &copy) override;
  void attached(void *base, MPI_Aint size) override;
  void detaching(const void *base) override;

 private:
  // What a rank tells peers of this window, in its key table (with the
  // bases of its counters and memory) or gathered.
  struct KeyRecord {
    std::uint32_t window_key = 0;  // names this window in its notifications
    std::uint32_t has_memory = 0;  // window memory (or a dynamic window's directory) registered
    std::uint64_t memory_key = 0;
    std::uint64_t counter_key = 0;  // atomic path
  };
  struct GatheredRecord {
    std::array<std::uint64_t, 2> bases;  // counters, memory
    KeyRecord keys;
  };
  // What this rank knows of a target, from its first use (ofi_peers.cpp).
  struct Peer {
    fi_addr_t addr = FI_ADDR_NOTAVAIL;
    SinkAddress sink;
    std::uint32_t window_key = 0;
    bool has_memory = false;
    std::uint64_t memory_address = 0;
    std::uint64_t memory_key = 0;
    // Atomic path: the peer's counters, registered.
    std::uint64_t counter_address = 0;
    std::uint64_t counter_key = 0;
  };

  bool atomic_path() const { return context_.facts().notify == NotifyPath::atomic; }

  // What this rank knows of `target`, made on first use: its entry in the
  // address vector (an unreachable peer fails the operation that first
  // needs it) and its keys for this window.
  Status target_peer(int target, const Peer *&out) {
    if (const Peer *known = peers_.find(target)) [[likely]] {
      out = known;
      return {};
    }
    return make_peer(target, out);
  }
  Status make_peer(int target, const Peer *&out);
  // Collective: tells peers this rank's keys (its counters registered as
  // `counters` on the atomic path), in the key table or gathered into
  // gathered_; forgets what was made of the old ones.
  Status exchange_keys(const Registration &counters);

  // Sends `*amount` notifications of counter idx to target (not waited
  // for; *amount stays valid until the next completion wait returns).
  Status notify_target(int target, int idx, const std::int64_t *amount);
  // Moves op's data over the fabric when it can; `done` false leaves it to
  // the host. `notified` says the notification went with the data.
  Status move_data(const NotifyOp &op, bool &done, bool &notified);
  // Completes every operation of this process; frees the bounce buffers.
  Status complete_all();
  // Collective, at the first commit: addresses, registrations, exchange;
  // then `counters` (of `capacity` counters) is the window's storage.
  Status connect(CounterMemory counters, std::int64_t capacity, Status local);
  // Atomic path: registers `counters` for peers' atomics.
  Status register_counters(const CounterMemory &counters, std::int64_t capacity, Registration &out);
  // Makes `fresh` (registered as `registration` on the atomic path) the
  // counters, once every notification that arrived was applied to the old
  // ones.
  void install(CounterMemory fresh, std::int64_t capacity, Registration registration);
  void release_all();

  // Dynamic windows (ofi_dynamic.cpp): each rank registers what it
  // attaches and lists it (address, size, key) in its directory, a
  // registered block that origins read with fi_read when they first need
  // it. A memory attached here, as a peer's directory listed it.
  struct AttachedRegion {
    std::uint64_t base = 0;
    std::uint64_t size = 0;
    Registration registration;
  };
  struct PeerRegion {
    std::uint64_t base = 0;
    std::uint64_t size = 0;
    std::uint64_t key = 0;
  };
  struct PeerDirectory {
    bool fetched = false;
    std::uint64_t detaches = 0;  // the target's detach word when read
    std::vector<PeerRegion> regions;
  };
  // Allocates and registers this rank's directory (as memory_).
  Status make_directory();
  // Gives the directory's RegionTable to the core's range check.
  void place_directory();
  void publish_directory();
  Status fetch_directory(int target, PeerDirectory &out);
  // Before this rank first reads target's directory: its mark there.
  Status mark_as_reader(int target, const Peer &peer);
  // Reads `bytes` at `offset` of target's directory into `out`, this
  // rank's mark there first (the one way a directory is read).
  Status read_directory(int target, std::size_t offset, void *out, std::size_t bytes);
  // The region of `target` that holds [address, address+bytes), reading
  // its directory again where the copy is stale; nullptr: none listed
  // (the host moves the data). dynamic_mutex_ held.
  const PeerRegion *dynamic_region(int target, std::uint64_t address, std::uint64_t bytes);
  void release_dynamic();

  Window &window_;
  Context &context_;
  // By window rank: the group's addresses (shared with the Context), the
  // peers' keys when they were gathered (else they are in the peers' key
  // tables), and what was made of them on first use.
  std::shared_ptr<const Context::Addresses> names_;
  std::vector<GatheredRecord> gathered_;
  LazyTargets<Peer> peers_;
  PublishedKeys published_;
  OwedTargets owed_;
  DeferredNotifications deferred_;

  CounterSink sink_;
  std::uint32_t window_key_ = 0;
  bool sink_added_ = false;
  CounterMemory counters_;
  Registration counter_registration_;  // atomic path
  CounterCapacity capacity_;
  Registration memory_;  // the window memory, or a dynamic window's directory

  // Dynamic windows: this rank's directory (ofi_dynamic.cpp), registered.
  std::unique_ptr<std::uint64_t[]> directory_;
  std::uint64_t detaches_ = 0;  // announced by this rank
  std::mutex dynamic_mutex_;    // the lists below; held while a peer's key is used
  std::vector<AttachedRegion> attached_;
  std::vector<Registration> unannounced_;     // detached, but a peer may not know
  std::map<int, PeerDirectory> directories_;  // of the targets read so far
  DirectoryReaders readers_;                  // targets whose block holds this rank's mark

  std::mutex bounce_mutex_;  // packed origin data, kept until completion
  std::vector<std::vector<char>> bounce_;
  HostNudge<256> polls_;  // read_counter calls, from any thread
};

}  // namespace mpinotify::ofi
