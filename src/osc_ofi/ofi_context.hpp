// The process's libfabric objects: one fabric, domain, RDM endpoint,
// address vector and completion queue, made on first use and released at
// MPI_Finalize, and the thread that keeps the endpoint progressing.
//
// Providers progress data only when the endpoint's queue is read
// (FI_PROGRESS_MANUAL, as shm and tcp;ofi_rxm are): a peer's write into this
// process would stall while the program sits in some host MPI call. So a
// progress thread reads the queue whenever no caller did for a millisecond.
// That thread is why the domain is always FI_THREAD_SAFE, whatever the MPI
// thread level.
//
// The one queue carries two kinds of entries:
// - completions of this process's operations (every one is issued with
//   FI_DELIVERY_COMPLETE, so a completion means the data is in the
//   target's memory); their context is the generation they were issued in,
//   which lets a flush wait for exactly what came before it;
// - remote CQ data: a peer's notification. Its 64 bits name the window
//   (the key this process gave it), the counter and the amount; the entry
//   is applied to that window's counters by whichever thread reads it.
//
// A process's address (its endpoint name, with where its sink and its key
// table are) is read from the process manager's store on first use where
// the MPI runs on PMIx, else exchanged once per group of processes; a
// peer's name goes into the address vector on the first operation to it,
// once per process, kept by the address's bytes
// (osc_base/peer_addresses.hpp). The key table
// (osc_base/key_slots.hpp) holds this process's windows' registrations,
// which peers read on their first operation to each window here.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "osc_base/key_slots.hpp"
#include "osc_base/peer_addresses.hpp"
#include "osc_base/peer_deadline.hpp"
#include "osc_core/mpi_host.hpp"
#include "osc_core/status.hpp"

namespace mpinotify::ofi {

// Status for a negative libfabric return code.
Status fabric_result(ssize_t code, const std::string &what);

// A notification as remote CQ data: the target's window key (20 bits), the
// amount (12 bits, 1..kMaxAmount) and the counter index (32 bits).
inline constexpr std::int64_t kMaxAmount = (1 << 12) - 1;
inline constexpr std::uint32_t kMaxWindowKeys = 1U << 20;
inline std::uint64_t encode_notification(std::uint32_t key, std::int64_t amount, int idx) {
  return static_cast<std::uint64_t>(key) << 44 | static_cast<std::uint64_t>(amount) << 32 |
         static_cast<std::uint32_t>(idx);
}

// A window's counters as the queue reader applies notifications to them.
struct CounterSink {
  std::int64_t *counters = nullptr;
  std::int64_t capacity = 0;
  std::uint64_t stray = 0;  // entries naming no counter of the window (dropped)
};

// A registration of this process's memory.
struct Registration {
  fid_mr *mr = nullptr;
  std::uint64_t key = 0;
  std::uint64_t address = 0;  // what peers name its first byte with
};

// What peers need to send this process notifications: a registered word
// that notification-only writes land in (libfabric 1.17's shm provider
// never completes a zero-length write).
struct SinkAddress {
  std::uint64_t address = 0;
  std::uint64_t key = 0;
};

// How notifications travel (MPINOTIFY_OFI_NOTIFY).
enum class NotifyPath {
  data,    // in a write's remote CQ data; the target's queue reader applies it
  atomic,  // an fi_atomic add on the target's registered counter, after the data
};

// The provider the backend would use, as fi_getinfo describes it.
struct ProviderFacts {
  std::string name;    // e.g. "shm", "tcp;ofi_rxm"
  std::string domain;  // e.g. "eth0"
  bool rma = false;
  bool atomics = false;
  bool rma_event = false;
  std::size_t cq_data_size = 0;
  bool write_after_write = false;  // FI_ORDER_RMA_WAW on both sides
  bool virtual_addresses = false;  // FI_MR_VIRT_ADDR
  bool provider_keys = false;      // FI_MR_PROV_KEY
  bool endpoint_keys = false;      // FI_MR_ENDPOINT
  bool local_only = false;         // reaches processes of this node only (shm)
  std::size_t max_message = 0;
  // The notification path the backend takes on it (`path` says which, or
  // why none).
  NotifyPath notify = NotifyPath::data;
  std::string path;
  bool usable = false;
  // Atomic path: a reset swaps the counter through the provider (a fetching
  // atomic write to this process), not with a CPU exchange. Known once the
  // endpoint is open.
  bool fetch_write = false;
};

// Every provider fi_getinfo offers for RDM endpoints with RMA, first the
// one it prefers; MPINOTIFY_OFI_PROVIDER narrows the list to one name.
std::vector<ProviderFacts> providers_seen();

class Context {
 public:
  static Context *instance(Status &status);
  // At MPI_Finalize: stops the progress thread and releases everything.
  static void shutdown();
  // Whether the context exists and knows how to find the peers of
  // `comm`'s group (GroupAddresses::known); starts nothing.
  static bool knows_group(MPI_Comm comm);
  // Whether a usable provider exists (checked once, without opening it).
  static std::optional<std::string> unavailable_reason();
  // The provider a context uses (made or to be made).
  static const ProviderFacts *chosen();

  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context();

  const ProviderFacts &facts() const { return facts_; }
  fid_ep *endpoint() const { return ep_; }

  // Endpoint names of a group's ranks, by rank.
  using Addresses = PeerAddresses;
  // Collective over `comm`: the name of every rank of it (read from the
  // process manager's store on first use, or exchanged once per group and
  // shared by every window over that group).
  // `known_by_all`: Window::group_known().
  Status addresses(MPI_Comm comm, bool known_by_all, std::shared_ptr<const Addresses> &out);
  // A peer process as this one reached it: its address-vector entry, its
  // sink and its key table.
  struct Reached {
    fi_addr_t addr = FI_ADDR_NOTAVAIL;
    SinkAddress sink;
    std::uint64_t key_table_address = 0;  // its table's first slot, as the provider names it
    std::uint64_t key_table_key = 0;
  };
  // The peer whose address (from addresses()) is `address` (window rank
  // `peer`, for messages): its name goes into the address vector on first
  // use and is checked with an fi_read of the peer's sink under the peer
  // deadline: a peer that cannot be reached fails that first use with
  // MPI_ERR_OTHER, and is tried again on the next one. Blocks other first
  // uses meanwhile. With `deadline`, the check shares it (a first use's
  // steps, under one).
  Status reach(const std::string &address, int peer, Reached &out,
               PeerDeadline *deadline = nullptr);
  // This process's table of its windows' keys, which peers read.
  KeySlots &key_slots() { return *key_slots_; }
  // Whether `peer` (at `addr`) still answers: a read of one word of its
  // sink, waited for alone under the peer deadline.
  Status still_answers(fi_addr_t addr, const SinkAddress &sink, int peer) {
    std::uint64_t word = 0;
    return read_alone(addr, sink.address, sink.key, &word, sizeof word,
                      "fi_read (does the peer answer?)", peer);
  }
  // Reads slot `slot` of a reached peer's key table.
  Status read_key_slot(const Reached &peer, int rank, std::size_t slot, KeySlot &out,
                       PeerDeadline *deadline = nullptr);
  // Registers [base, base+bytes) for peers' reads and writes (`access`:
  // FI_REMOTE_READ alone for memory peers only read).
  Status register_memory(void *base, std::size_t bytes, Registration &out,
                         std::uint64_t access = FI_REMOTE_READ | FI_REMOTE_WRITE);
  static void release(Registration &registration);
  // The word notification-only writes carry (its value lands in a sink).
  const std::uint64_t *sink_source() const { return &sink_source_; }

  // A window's counters: a key for peers to name it by.
  Status add_sink(CounterSink *sink, std::uint32_t &key);
  void remove_sink(std::uint32_t key);
  // Runs `change` on sinks while no notification is being applied, after
  // applying every notification that arrived.
  template <class Change>
  void with_sinks_quiet(Change &&change) {
    std::lock_guard guard(queue_mutex_);
    drain_all_locked();
    change();
  }

  // Posts an operation: `post(context)` is the fi_* call with the given
  // operation context. Retried, with progress, while the provider says
  // FI_EAGAIN, until the peer deadline; after a while with the CPU given
  // up between tries, since the peer that has to make room may be waiting
  // for it (more ranks than cores: a try per scheduler slice otherwise).
  template <class Post>
  Status issue(const char *what, int peer, Post &&post) {
    return issue_into(enter(), what, peer, post);
  }

  // What was issued so far, to wait for: see done().
  std::uint64_t seal();
  // Whether every operation issued before seal() returned `ticket`
  // completed (or was given up on); then `failure` holds the error of one
  // of them, if one failed.
  bool done(std::uint64_t ticket, Status &failure);
  // A wait for `ticket` gave up (the peer deadline): its operations no
  // longer hold back later waits.
  void abandon(std::uint64_t ticket);
  // Nothing issued is unfinished.
  bool idle();
  // Progresses until done(seal()); MPI_ERR_OTHER after the peer deadline.
  Status complete_all(const char *what, int peer = -1);
  // Runs reads into this process's memory (fi_read): `post(landing)`
  // issues them into a landing buffer of `bytes`, whose contents are copied
  // to `out` once they completed. A landing buffer whose wait failed stays
  // with the context until shutdown, so a late completion writes nothing
  // that was freed.
  template <class Post>
  Status read(void *out, std::size_t bytes, const char *what, int peer, Post &&post) {
    auto landing = std::make_unique<std::byte[]>(bytes);
    Status st = post(landing.get());
    if (st.ok()) st = complete_all(what, peer);
    if (!st.ok()) {
      park(std::move(landing));
      return st;
    }
    std::memcpy(out, landing.get(), bytes);
    return {};
  }

  // Reads the queue (unless another thread is reading it): completions and
  // notifications.
  void progress() {
    std::unique_lock lock(queue_mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return;
    drain_locked();
    read_by_caller_.store(true, std::memory_order_relaxed);
  }
  // For counter reads: waits for a reader in progress, whose entries may
  // not be applied yet, then reads the queue.
  void progress_for_counters() {
    std::lock_guard guard(queue_mutex_);
    drain_locked();
    read_by_caller_.store(true, std::memory_order_relaxed);
  }
  // Keeps a buffer operations may still read until shutdown (their wait
  // failed).
  void park(std::vector<char> buffer) {
    std::lock_guard guard(parked_mutex_);
    parked_buffers_.push_back(std::move(buffer));
  }

 private:
  // Operations issued between two seals; their completions count down.
  struct Generation {
    std::uint64_t ticket = 0;
    std::int64_t outstanding = 0;  // generations_mutex_
    bool abandoned = false;        // a wait for it gave up
    Status failure;                // the first of its operations that failed
  };

  Context() = default;
  std::unique_ptr<Generation> make_generation() {
    auto made = std::make_unique<Generation>();
    made->ticket = next_ticket_++;
    return made;
  }
  Status start(const ProviderFacts &facts);
  // issue() into `generation`, which counts the operation already.
  template <class Post>
  Status issue_into(Generation *generation, const char *what, int peer, Post &&post) {
    PeerDeadline deadline;
    ssize_t posted = 0;
    const bool finished = progress_until(
        deadline, [&] { return (posted = post(static_cast<void *>(generation))) != -FI_EAGAIN; },
        [this] { progress(); });
    if (posted == 0) [[likely]]
      return {};
    leave(generation);
    if (finished) return fabric_result(posted, what);
    return error(Errc::other, timed_out_message(what, peer, deadline.seconds()));
  }
  // Reads `bytes` at `address` (registered as `key`) of the endpoint
  // `addr` into `out`: one fi_read, waited for alone (not for what other
  // threads issued, nor handed their failures) under the peer deadline,
  // or `deadline` where given.
  Status read_alone(fi_addr_t addr, std::uint64_t address, std::uint64_t key, void *out,
                    std::size_t bytes, const char *what, int peer,
                    PeerDeadline *deadline = nullptr);
  Generation *enter();
  void leave(Generation *generation);
  // Reads a bounded number of entries; true if more may be waiting.
  bool drain_locked();
  // Reads until the queue is empty.
  void drain_all_locked() {
    while (drain_locked()) {
    }
  }
  void complete(void *context, const Status &failure);
  void apply(std::uint64_t data);
  void progress_loop();
  void park(std::unique_ptr<std::byte[]> landing) {
    std::lock_guard guard(parked_mutex_);
    parked_.push_back(std::move(landing));
  }

  ProviderFacts facts_;
  fi_info *info_ = nullptr;
  fid_fabric *fabric_ = nullptr;
  fid_domain *domain_ = nullptr;
  fid_av *av_ = nullptr;
  fid_cq *cq_ = nullptr;
  fid_ep *ep_ = nullptr;
  std::uint64_t next_key_ = 1;  // requested keys, where the provider takes ours
  Registration sink_;
  // The key table (osc_base/key_slots.hpp), registered for peers' reads.
  std::unique_ptr<KeySlot[]> key_table_;
  Registration key_table_registration_;
  std::unique_ptr<KeySlots> key_slots_;
  std::uint64_t sink_word_ = 0;    // written by peers' notification-only writes
  std::uint64_t sink_source_ = 0;  // what those writes carry

  std::mutex queue_mutex_;            // reading the queue; the sinks
  std::vector<CounterSink *> sinks_;  // by key; nullptr: free
  std::atomic<bool> read_by_caller_{false};

  std::mutex generations_mutex_;
  std::deque<std::unique_ptr<Generation>> generations_;  // oldest first; back is open
  std::uint64_t next_ticket_ = 1;
  // Failures of generations that ended, not yet reported: (ticket, error).
  std::vector<std::pair<std::uint64_t, Status>> failures_;

  int stop_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread progress_thread_;

  std::mutex keys_mutex_;  // next_key_
  GroupAddresses groups_{"ofi"};
  ReachedPeers<Reached> reached_;
  std::mutex parked_mutex_;
  std::vector<std::unique_ptr<std::byte[]>> parked_;
  std::vector<std::vector<char>> parked_buffers_;
  std::vector<std::unique_ptr<Generation>> parked_generations_;  // of abandoned read_alone()s
};

}  // namespace mpinotify::ofi
