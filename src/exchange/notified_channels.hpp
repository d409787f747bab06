// The wire of the notified exchange: per pair of peers, a receive ring in
// one window; everything goes in with MPI_Put_notify. Kept per
// (communicator, op id), so that an op id used again reuses its window.
//
// The ring of a sender at a receiver is `slots` slots of `slot_bytes`.
// An entry starts at a slot, covers whole slots and never wraps. Each
// entry is one notified put whose counter is its first slot's: the
// receiver, reading entries in order, waits until the counter of the slot
// where the next one starts says one more entry started there. That holds
// whatever order the puts complete in (notifications are not ordered
// across operations).
//
// Two kinds of entries:
// - framed: a 16-byte prefix (length, data bytes, kind), then data: a
//   record (header, metadata, and a payload up to the inline size), or a
//   fragment of a record larger than a quarter of the ring, or a batch of
//   whole records (each an 8-byte length, then its bytes up to a multiple
//   of 8) that were queued together, or a skip that fills the end of the
//   ring where the next framed entry does not fit;
// - payload chunks: a payload above the inline size follows its record as
//   raw bytes put straight from the sender's buffer (no copy there), in
//   chunks whose sizes both sides derive from the payload length and the
//   ring position (a chunk ends at the ring's end where it would cross
//   it). The receiver reads no further record until the payload was
//   received, copying each chunk into the receive buffer as it arrives.
//
// Credit: the receiver frees entries when the exchange is done with them
// and, for every `batch` slots freed in order, adds one to the sender's
// credit counter with a zero-byte notified put: a count, so nothing can be
// torn or reordered. A sender writes only into slots credited back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "exchange_setup.hpp"
#include "notified_routes.hpp"
#include "transport.hpp"

namespace mpinotify::detail {

// Whether records queued together go out as one batch entry (one put and
// one notification for all of them). On every backend by default: over a
// network a put costs a round trip, and on sm each notification moves a
// cache line from the receiver's core and back, which a batch pays once.
enum class Batching : std::uint8_t { ALWAYS, NEVER };

struct NotifiedOptions {
  std::size_t ring_bytes = std::size_t{256} << 10;  // per peer, a multiple of slot_bytes
  // The rings of a rank together (0: no bound): with more peers than fit
  // at ring_bytes, every ring of the exchange is the budget over the
  // largest peer count of any rank, down to min_ring_bytes.
  std::size_t ring_budget_bytes = std::size_t{16} << 20;
  std::size_t min_ring_bytes = std::size_t{16} << 10;
  std::size_t slot_bytes = 256;  // a multiple of 8, at least 64
  std::size_t inline_payload_bytes = std::size_t{8} << 10;
  Batching batching = Batching::ALWAYS;
  RouteOptions routes;  // large payloads (notified_routes.hpp)
};

// How many channel sets (windows) the pool of `comm` holds.
std::size_t pooled_channel_sets(MPI_Comm comm);

// MPINOTIFY_EXCHANGE_RING_BUDGET (bytes), else the default.
std::size_t ring_budget_from_environment();
// The ring size every rank of an exchange uses, given the largest peer
// count of any rank.
std::size_t ring_bytes_for(const NotifiedOptions &options, std::size_t most_peers);

// The prefix of a framed entry.
inline constexpr std::size_t kEntryPrefixBytes = 16;

// A record to put, and the payload that follows it (empty: none, or one
// inline in the record). Owned by its Transfer and, until all of it was
// put, by the peer's queue.
struct SendJob {
  // Room for an entry's prefix, then the record (header, metadata, an
  // inline payload): a record that fits one entry goes from here.
  std::vector<std::byte> frame;
  std::span<const std::byte> payload;  // streamed after the record, from the caller's memory
  std::size_t record_put = 0;          // bytes of the record put so far
  bool framed_any = false;             // (an empty record is one entry too)
  std::size_t payload_put = 0;
  std::uint64_t last_entry = 0;                 // entry count after its last put
  std::vector<std::vector<std::byte>> staging;  // fragments until locally complete
  std::size_t record_size() const noexcept { return frame.size() - kEntryPrefixBytes; }
  const std::byte *record() const noexcept { return frame.data() + kEntryPrefixBytes; }
  bool record_done() const noexcept { return framed_any && record_put == record_size(); }
  bool issued() const noexcept { return record_done() && payload_put == payload.size(); }
};

class Channels : public std::enable_shared_from_this<Channels> {
 public:
  // Collective over setup.comm: the channels of (comm, op id) for these
  // peers, made when first needed (window and counters) or reused.
  // std::invalid_argument on every rank if the peer relation is not
  // symmetric.
  static std::shared_ptr<Channels> obtain(const ExchangeSetup &setup,
                                          const NotifiedOptions &options);
  Channels(const Channels &) = delete;
  Channels &operator=(const Channels &) = delete;
  ~Channels();

  const NotifiedOptions &options() const noexcept { return options_; }

  // Sending (peer: index in the peer list). A job enqueued waits for the
  // next drive.
  void enqueue(std::size_t peer, std::shared_ptr<SendJob> job);
  // Puts what credit allows.
  void drive(std::size_t peer);
  void drive_all();
  // Drives the peers whose jobs were enqueued and not driven yet.
  void drive_enqueued();
  // All of the job was put and is locally complete.
  bool sent(std::size_t peer, SendJob &job);
  // Takes the job out of its queue if nothing of it was put.
  bool withdraw(std::size_t peer, const SendJob &job);

  // Receiving: the next record from `peer`, or nullptr (none yet, or a
  // streamed payload is still to be received).
  std::unique_ptr<ReceivedRecord> next_record(std::size_t peer);
  // Copies what arrived of the streamed payload the last record announced
  // into `into`, from byte `done` on; returns the bytes now done.
  std::size_t stream_in(std::size_t peer, std::span<std::byte> into, std::size_t done);
  // The exchange is done with the entry starting at `start`.
  void release(std::size_t peer, std::uint64_t start);
  // MPI may no longer be used on the window (freed, or MPI finalized).
  bool closed() const noexcept { return closed_; }
  PayloadRoutes &routes() noexcept { return routes_; }
  // The rings' window and counters, and the payload routes' (none once closed).
  ExchangeFootprint footprint() const noexcept;

 private:
  struct Outbound {
    std::uint64_t written = 0;  // global slot of the next entry
    std::uint64_t entries = 0;  // entries put
    std::uint64_t flushed = 0;  // entries known locally complete
    std::uint64_t credit = 0;   // slots credited back, as last read
    std::deque<std::shared_ptr<SendJob>> queue;
  };
  struct Held {
    std::uint64_t start = 0;
    std::uint64_t slots = 0;
    bool freed = false;
    std::size_t records = 1;  // of a batch: those the exchange still holds
  };
  struct Inbound {
    std::uint64_t read = 0;             // global slot of the next entry
    std::vector<std::uint64_t> starts;  // per slot: entries that started there, read
    std::deque<Held> held;              // read, in order, until freed
    std::uint64_t freed = 0;            // global slot up to which all is freed
    std::uint64_t returned = 0;         // slots credited back
    std::vector<std::byte> assembly;    // a fragmented record so far
    bool assembling = false;
    std::uint64_t streaming = 0;                     // bytes of a streamed payload still to come
    std::deque<std::span<const std::byte>> batched;  // records of a batch, not yet taken
    std::uint64_t batch_start = 0;
  };

  Channels(const ExchangeSetup &setup, const NotifiedOptions &requested, std::size_t ring_bytes);
  friend class ChannelPool;
  void open(const std::vector<int> &index_at_peer);
  void close() noexcept;

  // Puts one entry of the job if credit allows.
  bool issue_framed(std::size_t peer, SendJob &job);
  // The queued jobs, from the front, that go out together as one batch
  // entry (fewer than 2: none).
  std::size_t batch_size(const Outbound &out) const;
  // Puts them as one entry if credit allows.
  bool issue_batch(std::size_t peer, std::size_t count);
  // Room for a skip entry, if needed, and an entry of `slots` behind it;
  // puts the skip (kept in `staging`).
  bool make_room(std::size_t peer, std::uint64_t slots,
                 std::vector<std::vector<std::byte>> &staging);
  bool issue_chunk(std::size_t peer, SendJob &job);
  // Slots for an entry of `slots` at `written` (false: no credit yet).
  bool room(std::size_t peer, std::uint64_t slots);
  void put(std::size_t peer, std::uint64_t at, const std::byte *bytes, std::size_t size);
  // The slots of the next payload chunk of `left` bytes at ring slot `at`.
  std::uint64_t chunk_slots(std::uint64_t at, std::uint64_t left) const;
  // Whether the entry starting at ring slot `at` of `peer` has arrived.
  bool arrived(std::size_t peer, std::uint64_t at) const;
  std::uint64_t credited(std::size_t peer) const;
  bool batching() const noexcept { return options_.batching == Batching::ALWAYS; }
  MPI_Count counter(std::uint64_t index) const;
  std::uint64_t ring_counter(std::uint64_t peer_index, std::uint64_t slot) const;
  void hold(std::size_t peer, std::uint64_t start, std::uint64_t slots, bool freed,
            std::size_t records = 1);
  // Advances over the entries freed in order and credits whole batches.
  void return_credit(std::size_t peer);

  NotifiedOptions requested_;  // as asked for (reuse compares these)
  NotifiedOptions options_;    // as made: ring_bytes fitted to the budget
  MPI_Comm comm_;
  int op_id_;
  std::vector<int> peers_;
  std::vector<int> index_at_peer_;  // this rank's index in each peer's list
  std::uint64_t slots_;             // per ring
  std::uint64_t batch_;             // slots per credit
  std::uint64_t max_entry_slots_;
  MPI_Win ring_win_ = MPI_WIN_NULL;
  std::byte *ring_base_ = nullptr;
  std::vector<Outbound> out_;
  std::vector<Inbound> in_;
  std::vector<std::size_t> undriven_;  // peers with jobs enqueued since their last drive
  std::vector<bool> is_undriven_;
  PayloadRoutes routes_;
  bool closed_ = false;
};

}  // namespace mpinotify::detail
