#include "exchange_engine.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "orphans.hpp"

namespace mpinotify {
namespace detail {

// The one writer of Message::forced_.
struct MessageAccess {
  static void set_forced(Message &message) noexcept { message.forced_ = true; }
};

namespace {

std::string prefix(int op_id) {
  return "mpinotify exchange (op id " + std::to_string(op_id) + "): ";
}

}  // namespace

ExchangeEngine::ExchangeEngine(ExchangeSetup setup, const TransportFactory &make_transport)
    : setup_(std::move(setup)),
      transport_(make_transport(setup_)),
      sendable_(transport_->sendable_memory_types()),
      index_(setup_.peers),
      peers_(setup_.peers.size()),
      forcing_clock_(setup_.allocation_timeout) {
  for (std::size_t i = 0; i < peers_.size(); ++i) peers_[i].rank = setup_.peers[i];
}

ExchangeEngine::~ExchangeEngine() {
  try {
    if (failure_ || !finished_ || !drained()) {
      std::fprintf(stderr,
                   "mpinotify: warning: exchange of op id %d destroyed before it was finished "
                   "and idle (%s); the op id must not be reused on its communicator\n",
                   setup_.op_id, unfinished_business().c_str());
    }
  } catch (...) {
    // A destructor never throws; the warning is lost.
  }
  abandon_transfers();
}

void ExchangeEngine::send(std::unique_ptr<Message> &&message) { send_batch({&message, 1}); }

void ExchangeEngine::send(std::vector<std::unique_ptr<Message>> &&messages) {
  send_batch(messages);
  messages.clear();
}

void ExchangeEngine::send_batch(std::span<std::unique_ptr<Message>> batch) {
  ensure_usable();
  if (finished_) throw std::logic_error(prefix(setup_.op_id) + "send() after finish()");
  check_batch(batch);
  guarded([&] {
    for (std::unique_ptr<Message> &message : batch) post(std::move(message));
    transport_->sends_posted();
  });
}

void ExchangeEngine::check_batch(std::span<const std::unique_ptr<Message>> batch) const {
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto refuse = [&](const std::string &why) {
      throw std::invalid_argument(prefix(setup_.op_id) + "message " + std::to_string(i) +
                                  " of the batch: " + why + "; nothing was sent");
    };
    const Message *message = batch[i].get();
    if (message == nullptr) refuse("null");
    if (!index_.find(message->peer_rank())) {
      refuse("rank " + std::to_string(message->peer_rank()) + " is not a peer");
    }
    if (message->after_send() != AfterSend::DISCARD && message->after_send() != AfterSend::RETAIN) {
      refuse("unknown AfterSend value");
    }
    if (message->metadata().size() > kMaxMetadataSize) {
      refuse(std::to_string(message->metadata().size()) + " bytes of metadata, above " +
             std::to_string(kMaxMetadataSize));
    }
    const Buffer *payload = message->data();
    if (payload != nullptr &&
        std::find(sendable_.begin(), sendable_.end(), payload->mem_type()) == sendable_.end()) {
      refuse(payload->in_memory() ? "payload memory type not sendable"
                                  : "payload on disk, which this implementation cannot send");
    }
  }
}

void ExchangeEngine::post(std::unique_ptr<Message> message) {
  Peer &peer = peers_[*index_.find(message->peer_rank())];
  OutgoingRecord record;
  record.peer = peer.rank;
  record.header.kind = RecordKind::MESSAGE;
  record.header.op_id = setup_.op_id;
  record.header.number = peer.sent;
  record.header.metadata_length = message->metadata().size();
  record.metadata = message->metadata();
  if (const Buffer *payload = message->data(); payload != nullptr) {
    record.header.flags = record_flags::kHasPayload;
    record.header.payload_length = payload->size();
    record.payload = payload->data();
  }
  // The message (its metadata and payload) lives in `outgoing` until the
  // send completes; moving the pointer leaves the spans valid.
  Outgoing out{std::move(message), transport_->start_send(record)};
  ++peer.sent;
  peer.outgoing.push_back(std::move(out));
}

void ExchangeEngine::finish() {
  ensure_usable();
  if (finished_) return;
  finished_ = true;
  guarded([&] {
    for (Peer &peer : peers_) {
      OutgoingRecord end;
      end.peer = peer.rank;
      end.header.kind = RecordKind::END;
      end.header.op_id = setup_.op_id;
      end.header.number = peer.sent;
      peer.end_marker = transport_->start_send(end);
    }
    transport_->sends_posted();
  });
}

void ExchangeEngine::progress() {
  ensure_usable();
  guarded([&] {
    sweep_orphans();
    transport_->progress();
    receive_records();
    allocate_payloads();
    complete_transfers();
  });
}

std::vector<std::unique_ptr<Message>> ExchangeEngine::recv() {
  ensure_usable();
  for (const std::unique_ptr<Message> &message : delivered_) {
    if (message->forced() && message->data() != nullptr && message->data()->in_memory())
      --forced_held_;
  }
  return std::exchange(delivered_, {});
}

std::vector<std::unique_ptr<Message>> ExchangeEngine::release_sent() {
  ensure_usable();
  return std::exchange(released_, {});
}

bool ExchangeEngine::is_idle() const {
  ensure_usable();
  return drained();
}

void ExchangeEngine::receive_records() {
  for (Peer &peer : peers_) {
    // A peer whose end and every announced message came is not asked
    // again, so a later exchange reusing the op id gets all of its records.
    while (!peer.order.complete()) {
      std::unique_ptr<ReceivedRecord> raw = transport_->next_record(peer.rank);
      if (!raw) break;
      const DecodedRecord record = decode_record(raw->bytes(), peer.rank, setup_.op_id);
      peer.order.accept(record.header, peer.rank, setup_.op_id);
      if (record.header.kind == RecordKind::END) continue;
      std::vector<std::uint8_t> metadata(record.metadata.size());
      if (!metadata.empty()) std::memcpy(metadata.data(), record.metadata.data(), metadata.size());
      Incoming in;
      in.message = std::make_unique<Message>(peer.rank, std::move(metadata));
      in.arrival = next_arrival_++;
      in.complete = true;
      if (record.header.has_payload() && record.header.payload_length == 0) {
        // A zero-byte payload stays a payload, without an allocation.
        MemoryReservation none;
        in.message->set_data(setup_.resource->make_buffer(none, 0));
      } else if (record.header.has_payload()) {
        in.complete = false;
        in.awaiting_buffer = true;
        in.decoded = record;
        in.record = std::move(raw);
      }
      peer.incoming.push_back(std::move(in));
    }
  }
}

ExchangeEngine::Incoming *ExchangeEngine::head_awaiting_buffer(Peer &peer) noexcept {
  while (peer.allocated < peer.incoming.size() && !peer.incoming[peer.allocated].awaiting_buffer) {
    ++peer.allocated;
  }
  return peer.allocated < peer.incoming.size() ? &peer.incoming[peer.allocated] : nullptr;
}

void ExchangeEngine::allocate_payloads() {
  // Head-of-line per peer: only a peer's oldest message without its buffer
  // is offered to the allocator, MAY_FAIL first.
  bool any_succeeded = false;
  Peer *oldest_peer = nullptr;
  Incoming *oldest = nullptr;
  for (Peer &peer : peers_) {
    while (Incoming *head = head_awaiting_buffer(peer)) {
      std::unique_ptr<Buffer> buffer =
          allocate(head->decoded.header.payload_length, AllocationMode::MAY_FAIL);
      if (!buffer) {
        if (oldest == nullptr || head->arrival < oldest->arrival) {
          oldest_peer = &peer;
          oldest = head;
        }
        break;
      }
      any_succeeded = true;
      start_payload(peer, *head, std::move(buffer), false);
    }
  }
  const bool must_force =
      forcing_clock_.after_round(any_succeeded, oldest != nullptr, ForcingClock::Clock::now());
  // One forced payload at a time, until it was spilled or recv() handed
  // it out: the memory beyond the limit stays within one forced payload
  // (a second forced while the first, complete, still waits for recv()
  // held two: 72 MiB under a 64 MiB limit with 4 MiB payloads).
  if (!must_force || forced_held_ > 0) return;
  // Exactly one, the head whose record came first.
  start_payload(*oldest_peer, *oldest,
                allocate(oldest->decoded.header.payload_length, AllocationMode::MUST_SUCCEED),
                true);
  bool any_waiting = false;
  for (Peer &peer : peers_) any_waiting = any_waiting || head_awaiting_buffer(peer) != nullptr;
  forcing_clock_.after_forced(any_waiting, ForcingClock::Clock::now());
}

std::unique_ptr<Buffer> ExchangeEngine::allocate(std::size_t size, AllocationMode mode) {
  std::unique_ptr<Buffer> buffer = setup_.allocate(*setup_.resource, size, mode);
  const std::string from = prefix(setup_.op_id) + "allocate_fn ";
  if (!buffer) {
    if (mode == AllocationMode::MUST_SUCCEED) {
      throw std::logic_error(from + "returned no buffer under MUST_SUCCEED");
    }
    return nullptr;
  }
  if (!buffer->in_memory()) throw std::logic_error(from + "returned a buffer on disk");
  if (buffer->size() != size) {
    throw std::logic_error(from + "returned " + std::to_string(buffer->size()) + " bytes for a " +
                           std::to_string(size) + "-byte payload");
  }
  return buffer;
}

void ExchangeEngine::start_payload(Peer &peer, Incoming &in, std::unique_ptr<Buffer> buffer,
                                   bool forced) {
  in.transfer = transport_->start_payload_receive(peer.rank, in.decoded, buffer->data());
  in.message->set_data(std::move(buffer));
  in.awaiting_buffer = false;
  if (forced) {
    MessageAccess::set_forced(*in.message);
    ++forced_held_;
  }
}

void ExchangeEngine::finish_payload(Incoming &in) {
  in.transfer.reset();
  in.record.reset();
  in.decoded = {};
  in.complete = true;
  if (!in.message->forced()) return;
  if (setup_.options.forced_receive == ForcedReceive::MOVE_TO_DISK && setup_.resource->has_disk()) {
    std::unique_ptr<Buffer> spilled = setup_.resource->spill(in.message->release_data());
    in.message->set_data(std::move(spilled));
    --forced_held_;  // its memory went back with the spill
  }
}

void ExchangeEngine::complete_transfers() {
  for (Peer &peer : peers_) {
    for (Incoming &in : peer.incoming) {
      if (in.transfer && in.transfer->test()) finish_payload(in);
    }
    while (!peer.incoming.empty() && peer.incoming.front().complete) {
      delivered_.push_back(std::move(peer.incoming.front().message));
      peer.incoming.pop_front();
      if (peer.allocated > 0) --peer.allocated;
    }
    // Sends leave in order, so only those up to the first unfinished one
    // are tested: a round costs what is moving, not all that is queued.
    for (Outgoing &out : peer.outgoing) {
      if (!out.transfer) continue;
      if (!out.transfer->test()) break;
      out.transfer.reset();
    }
    while (!peer.outgoing.empty() && !peer.outgoing.front().transfer) {
      std::unique_ptr<Message> &sent = peer.outgoing.front().message;
      if (sent->after_send() == AfterSend::RETAIN) released_.push_back(std::move(sent));
      peer.outgoing.pop_front();
    }
    if (peer.end_marker && peer.end_marker->test()) peer.end_marker.reset();
  }
}

void ExchangeEngine::inject_raw_record(int peer, std::span<const std::byte> bytes) {
  ensure_usable();
  if (!index_.find(peer)) {
    throw std::invalid_argument(prefix(setup_.op_id) + "inject_raw_record: rank " +
                                std::to_string(peer) + " is not a peer");
  }
  guarded([&] { transport_->send_raw_record(peer, bytes); });
}

void ExchangeEngine::guarded(const std::function<void()> &step) {
  try {
    step();
  } catch (const std::exception &error) {
    failure_ = error.what();
    throw;
  } catch (...) {
    failure_ = "an exception not derived from std::exception";
    throw;
  }
}

void ExchangeEngine::ensure_usable() const {
  if (failure_) {
    throw std::logic_error(prefix(setup_.op_id) + "unusable after an earlier error: " + *failure_);
  }
}

bool ExchangeEngine::drained() const noexcept {
  if (!delivered_.empty() || !released_.empty()) return false;
  for (const Peer &peer : peers_) {
    if (!peer.incoming.empty() || !peer.outgoing.empty() || peer.end_marker) return false;
    if (finished_ && !peer.order.complete()) return false;
  }
  return true;
}

std::string ExchangeEngine::unfinished_business() const {
  if (failure_) return "unusable after an error: " + *failure_;
  std::size_t sending = 0;
  std::size_t receiving = 0;
  std::size_t ends_missing = 0;
  for (const Peer &peer : peers_) {
    sending += peer.outgoing.size() + (peer.end_marker ? 1 : 0);
    receiving += peer.incoming.size();
    ends_missing += peer.order.complete() ? 0 : 1;
  }
  std::string what = finished_ ? "" : "finish() not called; ";
  what += std::to_string(sending) + " sends in flight, " + std::to_string(receiving) +
          " messages being received, " + std::to_string(delivered_.size()) +
          " not taken by recv(), " + std::to_string(released_.size()) +
          " not taken by release_sent(), " + std::to_string(ends_missing) + " peers not yet ended";
  return what;
}

void ExchangeEngine::abandon_transfers() noexcept {
  // After MPI_Finalize nothing touches the memory any more: it just goes.
  if (!mpi_running()) return;
  const auto let_go = [](std::unique_ptr<Transfer> &transfer, std::unique_ptr<Message> memory) {
    if (transfer && !transfer->abandon()) adopt_orphan(std::move(transfer), std::move(memory));
    transfer.reset();
  };
  for (Peer &peer : peers_) {
    for (Incoming &in : peer.incoming) let_go(in.transfer, std::move(in.message));
    for (Outgoing &out : peer.outgoing) let_go(out.transfer, std::move(out.message));
    let_go(peer.end_marker, nullptr);
  }
}

}  // namespace detail

}  // namespace mpinotify
