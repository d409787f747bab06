// The metadata + payload exchange: every rank sends messages (a metadata
// blob and an optional payload buffer) to a set of peers and receives
// theirs, in order per peer, into receive memory that may be short.
// Link mpinotify::exchange (libmpinotify_exchange). C++20.
//
// SPDX-License-Identifier: BSD-3-Clause
#pragma once

// The deprecated MPI C++ bindings are never needed here.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mpinotify/buffer.hpp"
#include "mpinotify/message.hpp"

namespace mpinotify {

// What happens to a payload whose receive buffer was forced (allocated
// with MUST_SUCCEED) once it has arrived.
enum class ForcedReceive {
  MOVE_TO_DISK,    // spilled to the resource's spill directory (kept in memory without one)
  KEEP_IN_MEMORY,  // delivered in the forced buffer
};

struct ExchangeOptions {
  ForcedReceive forced_receive = ForcedReceive::MOVE_TO_DISK;
};

// The most metadata one message may carry (send() refuses more).
inline constexpr std::size_t kMaxMetadataSize = std::size_t{1} << 30;

// A malformed, truncated or out-of-order record came from a peer.
class ProtocolError : public std::runtime_error {
 public:
  ProtocolError(int peer, int op_id, const std::string &problem);
  int peer() const noexcept { return peer_; }
  int op_id() const noexcept { return op_id_; }

 private:
  int peer_;
  int op_id_;
};

// What an exchange holds for itself on this rank, beyond the payload
// buffers (those come from its BufferResource): the memory of its RMA
// windows and its notification counters (the counters' own storage is
// the backend's: 8 bytes each, or a cache line on sm by default). The
// tag-based exchange holds neither.
struct ExchangeFootprint {
  std::size_t window_bytes = 0;
  std::size_t counters = 0;
};

// The contract every implementation keeps. Single-threaded: call every
// member from one thread at a time, except sendable_memory_types().
//
// Construction (make_exchange) is collective over the communicator: every
// rank of it makes the exchange with the same op id, listing the ranks it
// exchanges with; the peer relation must be symmetric. Exchanges with
// different op ids never see each other's messages.
class MetadataPayloadExchange {
 public:
  // Warns on stderr (never throws) when destroyed before it was finished
  // and idle; its op id must then not be reused on the communicator.
  virtual ~MetadataPayloadExchange() = default;
  MetadataPayloadExchange(const MetadataPayloadExchange &) = delete;
  MetadataPayloadExchange &operator=(const MetadataPayloadExchange &) = delete;

  // Sends to peers only. The whole batch is checked first: a message to a
  // rank that is not a peer, with a payload whose memory type is not
  // sendable, or with metadata above kMaxMetadataSize: std::invalid_argument;
  // after finish(): std::logic_error. On a throw every message stays with
  // the caller; otherwise all are taken. Messages to one peer arrive in the
  // order sent; there is no order across peers.
  virtual void send(std::unique_ptr<Message> &&message) = 0;
  virtual void send(std::vector<std::unique_ptr<Message>> &&messages) = 0;

  // Moves data: receives records, allocates receive buffers (see
  // AllocateFn: MAY_FAIL first, in message order per peer; once no
  // allocation has succeeded for the allocation timeout, exactly one
  // waiting message, the one whose record came first, is forced with
  // MUST_SUCCEED, and no other while it is held: arriving, or kept in
  // memory until recv() hands it out),
  // completes transfers. A zero-byte payload arrives as an empty buffer
  // without a call of allocate_fn.
  // After it throws, the exchange is unusable: every later call but the
  // destructor, is_finished() and sendable_memory_types() throws
  // std::logic_error naming the first error.
  virtual void progress() = 0;
  // The messages progress() completed since the last call, in order per
  // source peer.
  virtual std::vector<std::unique_ptr<Message>> recv() = 0;
  // The RETAIN messages whose send has completed, unchanged, in send order
  // per destination.
  virtual std::vector<std::unique_ptr<Message>> release_sent() = 0;

  // Tells every peer how many messages it was sent; idempotent.
  virtual void finish() = 0;
  virtual bool is_finished() const noexcept = 0;
  // Nothing in flight and nothing waiting in recv() or release_sent(); after
  // finish(), also every peer's end received and every message it announced
  // delivered: the op id may then be reused on the communicator.
  virtual bool is_idle() const = 0;

  // The memory types a payload may be in; may be called from any thread.
  virtual std::vector<MemoryType> sendable_memory_types() const = 0;
  virtual int op_id() const noexcept = 0;
  virtual std::span<const int> peers() const noexcept = 0;
  virtual ExchangeFootprint footprint() const noexcept = 0;

 protected:
  MetadataPayloadExchange() = default;
};

enum class ExchangeKind {
  TAG,       // tagged MPI_Isend/MPI_Irecv, any MPI
  NOTIFIED,  // notified RMA: records and payloads put into per-peer receive rings
};
std::string_view to_string(ExchangeKind kind) noexcept;

// The largest op id an exchange on `comm` accepts (from MPI_TAG_UB).
int max_exchange_op_id(MPI_Comm comm);

// Makes an exchange of the given kind; collective over `comm`. TAG takes
// two point-to-point tags of `comm` per op id, counted down from
// MPI_TAG_UB (op id 0: the top two); other messages on `comm` must keep
// off those.
// peers: other ranks of comm, each once (self or a duplicate:
// std::invalid_argument; outside comm: std::out_of_range).
// op_id: 0 to max_exchange_op_id(comm), else std::out_of_range.
// allocate_fn: called from progress() for each payload, with
// buffer_resource (empty function or null resource: std::invalid_argument).
// allocation_timeout: how long no allocation may succeed before one
// waiting message is forced (negative: std::invalid_argument).
std::unique_ptr<MetadataPayloadExchange> make_exchange(
    ExchangeKind kind, MPI_Comm comm, int op_id, std::vector<int> peers, AllocateFn allocate_fn,
    std::chrono::nanoseconds allocation_timeout, std::shared_ptr<BufferResource> buffer_resource,
    ExchangeOptions options = {});

namespace testing {
// The test hook (no use outside tests): sends `bytes` from this rank to
// `peer` as one raw record of `exchange`'s op id, over the
// implementation's real path but past its record encoder, so that the
// peer's parser meets them as it would meet a corrupt record. `exchange`
// must come from make_exchange and `peer` be one of its peers
// (std::invalid_argument otherwise).
void inject_raw_record(MetadataPayloadExchange &exchange, int peer,
                       std::span<const std::byte> bytes);
}  // namespace testing

}  // namespace mpinotify
