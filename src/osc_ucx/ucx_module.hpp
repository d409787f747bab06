// The UCX backend: notified RMA on UCP, one network message deep.
//
// Counters have their own registration (ucp_mem_map with ALLOCATE, so
// shared-memory transports reach them directly), separate from the window
// memory. The window memory is the host's, registered as it is, for every
// flavor but dynamic (docs/performance.md, "What keeping the host's flavor
// costs"); dynamic windows register what is attached and publish it in a
// directory (ucx_dynamic.cpp).
//
// On one node an MPI_Win_allocate window's memory is shared memory the host
// allocated (as under sm), as an MPI_Win_allocate_shared window's is: to a
// peer whose counters UCX reaches by load/store, a put or get is a copy,
// complete before the add is issued.
//
// A notified put is a UCP put, a worker fence and a UCP atomic add: the
// fence orders the add after the put at the target, so nothing waits for a
// round trip. UCX 1.13's fence orders only operations that travel the same
// way: a put emulated with active messages (memory registered as it is,
// over shared memory) and an add done directly on a mapped counter are not
// ordered by it. Where data and counter of a target travel differently
// (ucp_rkey_ptr answers differently for them), the put is flushed before
// the add. A notified get is a UCP get, a flush of that endpoint (the read
// must be over before the count moves) and the add.
//
// A blocking form completes at the next synchronisation call (SEMANTICS
// 3.6), so after the first blocking form since the last synchronisation
// call or counter poll of this process (which adds at once), the adds wait
// for the next one, gathered per counter (osc_base/pending_increments.hpp):
// a burst of puts costs a put each, then one fence (or flush) and one add
// per counter, while a lone put (a ping-pong) still goes out whole.
// Request-based forms add at once: their request means "sent" (3.7).
//
// Window creation learns where the group's addresses are (at most one
// exchange per group, ucx_context.hpp) and connects to no one. Each rank
// publishes its packed keys in its process's key table
// (osc_base/key_slots.hpp) and one allreduce tells whether every rank
// could (a table holds 256 windows); a target's
// endpoint and keys are then made on the first operation to it
// (ucx_peers.cpp), its keys read from its table. Otherwise the keys are
// gathered, as packed bytes, and unpacked on first use the same way.
// Flushes of everything walk the targets used, so a rank's cost grows
// with the peers it talks to, not with the size of the group.
//
// A non-contiguous target type is cut into its contiguous pieces (decoded
// once per type, type_layout.hpp): one UCP put or get per piece, the
// origin's data packed when it is not contiguous either. Types that cannot
// be cut (distributed arrays, too many pieces) and the accumulate family
// move their data through the host MPI (the host's accumulates stay atomic
// with respect to plain MPI_Accumulate on the window), then add. Every window
// synchronisation call completes the backend's operations (a UCP flush)
// before the host's.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "osc_base/counter_capacity.hpp"
#include "osc_base/deferred.hpp"
#include "osc_base/directory_readers.hpp"
#include "osc_base/pending_increments.hpp"
#include "osc_base/published_keys.hpp"
#include "osc_base/shared_memory_window.hpp"
#include "osc_core/host_nudge.hpp"
#include "osc_core/lazy_targets.hpp"
#include "osc_core/module.hpp"
#include "osc_core/owed_targets.hpp"
#include "osc_core/window.hpp"
#include "ucx_context.hpp"
#include "ucx_memory.hpp"

namespace mpinotify::ucx {

// A peer's registered memory as this process reaches it.
struct RemoteMemory {
  std::uint64_t base = 0;
  ucp_rkey_h rkey = nullptr;
  bool mapped = false;  // reachable by load/store here (ucp_rkey_ptr)
};

// What the exchange told this rank of every peer's registrations, when they
// were gathered: their bases and packed rkeys, kept in one buffer (a few
// dozen bytes a peer) and unpacked when a peer is first used.
class PeerKeys {
 public:
  struct Bases {
    std::uint64_t counters = 0;
    std::uint64_t memory = 0;
  };
  // Room for `ranks` ranks' keys of `bytes` in all, so none is kept spare.
  void reserve(std::size_t ranks, std::size_t bytes) {
    entries_.reserve(ranks);
    bytes_.reserve(bytes);
  }
  // Appends the next rank's; `memory_key` empty for memory it did not register.
  void add(Bases bases, std::string_view counters_key, std::string_view memory_key) {
    entries_.push_back({bases, static_cast<std::uint32_t>(bytes_.size()),
                        static_cast<std::uint32_t>(counters_key.size()),
                        static_cast<std::uint32_t>(memory_key.size())});
    bytes_ += counters_key;
    bytes_ += memory_key;
  }
  std::size_t size() const { return entries_.size(); }
  Bases bases(std::size_t rank) const { return entries_[rank].bases; }
  std::string_view counters_key(std::size_t rank) const {
    const Entry &e = entries_[rank];
    return {bytes_.data() + e.at, e.counters_bytes};
  }
  std::string_view memory_key(std::size_t rank) const {
    const Entry &e = entries_[rank];
    return {bytes_.data() + e.at + e.counters_bytes, e.memory_bytes};
  }

 private:
  struct Entry {
    Bases bases;
    std::uint32_t at;  // of its keys in bytes_
    std::uint32_t counters_bytes;
    std::uint32_t memory_bytes;
  };
  std::vector<Entry> entries_;  // by window rank
  std::string bytes_;           // each rank's counters key, then its memory key
};

// A peer as this module reaches it, made on its first use and unchanged
// until growth or freeing (no operation can be in flight then).
struct Peer {
  ucp_ep_h ep = nullptr;  // the process pair's, owned by the Context
  RemoteMemory counters;
  RemoteMemory memory;        // a dynamic window's: its directory
  bool fence_orders = false;  // a fence orders a put there before an add
  // Its window memory is mapped here and UCX reaches its counters by
  // load/store: puts and gets are copies, complete before their add.
  bool by_load_store = false;
};

// Whether this process reaches the remote memory at `address` by
// load/store (ucp_rkey_ptr), as shared-memory transports allow.
bool mapped_here(ucp_rkey_h rkey, std::uint64_t address);

class UcxModule final : public Module {
 public:
  UcxModule(Window &window, Context &context);
  ~UcxModule() override;

  Status notify(const NotifyOp &op, MPI_Request *request) override;
  // The hot path's put, as notify() with the operation record built here.
  bool put_contiguous(int target, MPI_Aint disp, const void *origin, std::size_t bytes, int idx,
                      Status &status) override;
  Status read_counter(int idx, MPI_Count *value) override;
  Status reset_counter(int idx, MPI_Count *previous) override;
  Status check_peers() override;

  Status quiesce() override { return flush_all(); }
  Status reserve(int capacity, bool &grows) override;
  void release_reservation() override {
    capacity_.release();
    release(reserved_.counters);
    release(reserved_.memory);
    reserved_ = {};
  }
  Status commit(const RankCounts &new_counts, bool any_growth) override;

  Status before_sync(const SyncCall &call) override;
  Status after_sync(const SyncCall &call) override;
  Status destroy() override;

  std::uint64_t region_stamp(int target) override { return detaches_seen(target); }
  Status fetch_regions(int target, RegionTable &copy) override;
  void attached(void *base, MPI_Aint size) override;
  void detaching(const void *base) override;

 private:
  // Where an operation's target bytes are, and how to reach them.
  struct TargetBytes {
    std::uint64_t address = 0;  // the target buffer's start (before true_lb)
    ucp_rkey_h rkey = nullptr;
    bool fence_orders = false;  // a fence orders a put there before an add
  };
  // Memory this rank attached to a dynamic window, registered with UCX.
  struct AttachedRegion {
    std::uint64_t base = 0;
    std::uint64_t size = 0;
    ucp_mem_h handle = nullptr;
    std::string key;  // packed rkey
  };
  // A peer's attached region as its directory told this rank.
  struct PeerRegion {
    std::uint64_t base = 0;
    std::uint64_t size = 0;
    ucp_rkey_h rkey = nullptr;
    bool mapped = false;
  };
  struct PeerDirectory {
    bool fetched = false;
    std::uint64_t detaches = 0;  // the target's detach word when read
    std::vector<PeerRegion> regions;
  };

  // The record of `target`, made on first use (ucx_peers.cpp): an
  // unreachable peer fails the operation that first needs it.
  Status peer(int target, const Peer *&out) {
    if (const Peer *known = peers_.find(target)) [[likely]] {
      out = known;
      return {};
    }
    return make_peer(target, out);
  }
  Status make_peer(int target, const Peer *&out);
  Status endpoint(int target, ucp_ep_h &ep) {
    const Peer *record = nullptr;
    MPINOTIFY_TRY(peer(target, record));
    ep = record->ep;
    return {};
  }
  // Destroys every unpacked key and forgets every peer record.
  void forget_peers();

  // Dynamic windows (ucx_dynamic.cpp). Each rank publishes its attached
  // regions (base, size, packed rkey) in a registered directory; an origin
  // reads a target's directory with UCP gets when it first needs it and
  // again when an address is not in its copy or the target announced a
  // detach since.
  // dynamic_region: dynamic_mutex_ must be held.
  const PeerRegion *dynamic_region(int target, std::uint64_t address, std::uint64_t bytes);
  // Where op's target buffer starts, given the bytes [span.lo, span.hi)
  // from that start that it touches; false leaves op to the host. For a
  // dynamic window dynamic_mutex_ must be held while `out` is used.
  bool locate(const NotifyOp &op, const Peer &peer, ByteSpan span, TargetBytes &out);
  Status fetch_directory(int target, PeerDirectory &out);
  void forget_directories();
  // Unregisters every attached region and forgets every peer key.
  void release_dynamic();
  void publish_directory();
  std::size_t directory_bytes() const;
  // Where the RegionTable (osc_core/attached_regions.hpp) sits in a
  // directory block: after the entries and the detach words.
  std::size_t region_table_offset() const;
  // Where the readers' marks sit: after the RegionTable.
  std::size_t marks_offset() const;
  // Before this rank first reads target's block: its mark there.
  Status mark_as_reader(int target, const Peer &at);
  // How many detaches `target` announced to this rank.
  std::uint64_t detaches_seen(int target) const;
  // Tells every rank that read this directory of a detach; complete when it
  // returns.
  Status announce_detach();
  // What must come between a put and its add so the add lands second.
  enum class Ordering { none, fence, flush };
  // Issues the add of `amount` to counter idx at target (not waited for);
  // *amount must stay put until the next worker flush.
  Status add(int target, int idx, const std::int64_t *amount);
  // A UCP atomic add of *amount to the 8 bytes at `address` of `target`.
  Status post_add(int target, ucp_ep_h ep, std::uint64_t address, ucp_rkey_h rkey,
                  const std::int64_t *amount);
  // Moves op's data with UCP when it can; `done` false leaves it to the
  // host. `order` says what the add still needs.
  Status move_data(const NotifyOp &op, bool &done, Ordering &order);
  Status order_now(int target, Ordering order);
  // Where a fence does not order a put before its add (see above).
  bool needs_flush(int target) const {
    if (window_.flavor() == Flavor::dynamic) return false;
    const Peer *known = peers_.find(target);
    return known == nullptr || !(known->fence_orders || known->by_load_store);
  }
  // Issues every gathered add, after one fence or flush for all their data.
  Status publish();
  Status publish_locked();  // publish_mutex_ held
  // Publishes, then completes every operation of this process to the
  // targets this module used (whichever window issued it).
  Status flush_all();
  Status complete_all();  // publish_mutex_ held
  // Completes this process's operations to `target` (none if this module
  // never used it: no endpoint is made just to flush).
  Status flush_target(int target);
  // Collective: registers `capacity` counters (and, the first time, the
  // window memory), learns the group's addresses, publishes or gathers
  // the keys, agrees, switches.
  // For reserve: registers new counter storage (and, the first time, the
  // window memory) in reserved_, with their packed keys.
  Status register_storage(std::int64_t capacity);
  // For a commit that grows: every rank's keys, this rank's new ones from
  // reserved_ or, if it did not grow, its current ones, published in the
  // key table or gathered into keys_.
  Status exchange_keys();
  Status gather_keys(const WindowKeys &mine, PeerKeys &out);
  void release(LocalMemory &local);

  Window &window_;
  Context &context_;
  OwedTargets owed_;  // targets this module's operations went to
  DeferredNotifications deferred_;

  // By window rank: the group's addresses (shared with the Context), the
  // keys when they were gathered, and what was made of them on first use.
  std::shared_ptr<const Context::Addresses> addresses_;
  PeerKeys keys_;
  LazyTargets<Peer> peers_;
  // This rank's packed keys (counters, window memory), in the key table
  // unless they were gathered.
  PublishedKeys published_;

  LocalMemory counters_;
  CounterCapacity capacity_;
  // Storage registered by reserve, until commit or release_reservation.
  struct Registration {
    LocalMemory counters;
    LocalMemory memory;
    std::string counters_key;
    std::string memory_key;
    bool first = false;  // the window's first storage
  } reserved_;
  LocalMemory memory_;  // the window's own memory, when registered
  // Every rank's window memory, when the host placed it in shared memory
  // (MPI_Win_allocate_shared windows, and MPI_Win_allocate windows on one
  // node, ucx_backend.cpp).
  SharedMemoryWindow shared_;

  // Dynamic windows: memory_ is the directory, Peer::memory the peers'.
  std::mutex dynamic_mutex_;
  std::vector<AttachedRegion> attached_;
  std::map<int, PeerDirectory> directories_;  // of the targets read so far
  DirectoryReaders readers_;                  // targets whose block holds this rank's mark
  std::vector<ucp_mem_h> unannounced_;        // detached, but peers were not told

  PendingIncrements pending_;  // adds of blocking forms, until published
  // A blocking form added at once since the last publish: later ones gather.
  // (Relaxed: a race only picks the other of two correct ways.)
  std::atomic<bool> burst_{false};
  std::mutex publish_mutex_;
  // Amounts of published adds, until a worker flush completes them.
  std::array<std::int64_t, 1024> amounts_{};
  std::size_t amounts_used_ = 0;

  std::mutex bounce_mutex_;  // packed origin data, kept until completion
  std::vector<std::vector<char>> bounce_;
  HostNudge<256> polls_;  // read_counter calls, from any thread
  // The value a poll last returned, per counter (slot idx % 16, one each
  // for the default reservation of MPINOTIFY_NUM_COUNTERS): a poll that
  // finds a new one skips progress (read_counter), unless the poll before
  // it skipped.
  std::array<std::atomic<std::int64_t>, 16> seen_{};
  std::atomic<bool> skipped_progress_{false};
};

}  // namespace mpinotify::ucx
