// What an implementation of the exchange provides: the wire. The engine
// (exchange_engine.hpp) keeps the contract's bookkeeping (argument checks,
// sequence numbers, per-peer order, the allocation and forcing policy,
// forced receives, RETAIN, termination, errors) and calls a Transport to
// move records and payloads. A new implementation is a Transport, an
// ExchangeKind and a line in make_exchange.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "mpinotify/exchange.hpp"
#include "record_codec.hpp"

namespace mpinotify::detail {

// A send (record and payload) or a payload receive in flight.
class Transfer {
 public:
  virtual ~Transfer() = default;  // runs after MPI_Finalize for orphans: no MPI here
  // Drives it on; true once complete (its memory may then go). Throws on
  // failure.
  virtual bool test() = 0;
  // Its exchange goes away: cancel what can be cancelled. True when its
  // memory may go now; otherwise the transfer and that memory are kept
  // until test() says so (orphans.hpp).
  virtual bool abandon() noexcept = 0;
};

// One record as the transport received it. bytes() stays valid and
// unchanged while the object lives; the engine keeps it until the
// message's payload is in (a transport may tie resources to it, such as
// the sender's credit for a slot).
class ReceivedRecord {
 public:
  virtual ~ReceivedRecord() = default;
  virtual std::span<const std::byte> bytes() const noexcept = 0;
};

struct OutgoingRecord {
  int peer = 0;
  // kind, op id, number, lengths and the payload flag are set; the
  // transport may add the inline flag and the payload location.
  RecordHeader header;
  // Valid until the send's Transfer completes.
  std::span<const std::uint8_t> metadata;
  std::span<const std::byte> payload;  // a HOST payload; empty for none or zero bytes
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Constant for the transport's life (read from any thread).
  virtual std::vector<MemoryType> sendable_memory_types() const = 0;
  // Called first in every progress() (e.g. to push what waits for credit).
  virtual void progress() {}
  // Sends a record (and its payload); never blocks.
  virtual std::unique_ptr<Transfer> start_send(const OutgoingRecord &record) = 0;
  // Called after the start_send calls of one send() or finish(): a
  // transport that queues them may now put them out together.
  virtual void sends_posted() {}
  // The next record from `peer` in the order sent, or nullptr if none has
  // arrived.
  virtual std::unique_ptr<ReceivedRecord> next_record(int peer) = 0;
  // Receives the payload of `record` (from `peer`, decoded from a record
  // next_record returned and the engine keeps) into `into`, whose size is
  // the payload length. Called in message order per peer.
  virtual std::unique_ptr<Transfer> start_payload_receive(int peer, const DecodedRecord &record,
                                                          std::span<std::byte> into) = 0;
  // The test hook: `bytes` reach `peer`'s next_record as one record.
  virtual void send_raw_record(int peer, std::span<const std::byte> bytes) = 0;
  // Windows and counters it holds (none by default).
  virtual ExchangeFootprint footprint() const noexcept { return {}; }
};

}  // namespace mpinotify::detail
