// The part of the exchange every implementation shares: the contract's
// bookkeeping over a Transport (transport.hpp). An implementation derives
// from ExchangeEngine only to hand it its transport (tag_exchange.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "exchange_setup.hpp"
#include "forcing_clock.hpp"
#include "mpinotify/exchange.hpp"
#include "record_codec.hpp"
#include "transport.hpp"

namespace mpinotify::detail {

class ExchangeEngine : public MetadataPayloadExchange {
 public:
  using TransportFactory = std::function<std::unique_ptr<Transport>(const ExchangeSetup &)>;

  // `setup` comes checked from check_setup; the transport is made from it.
  ExchangeEngine(ExchangeSetup setup, const TransportFactory &make_transport);
  ~ExchangeEngine() override;

  void send(std::unique_ptr<Message> &&message) final;
  void send(std::vector<std::unique_ptr<Message>> &&messages) final;
  void progress() final;
  std::vector<std::unique_ptr<Message>> recv() final;
  std::vector<std::unique_ptr<Message>> release_sent() final;
  void finish() final;
  bool is_finished() const noexcept final { return finished_; }
  bool is_idle() const final;
  std::vector<MemoryType> sendable_memory_types() const final { return sendable_; }
  ExchangeFootprint footprint() const noexcept final { return transport_->footprint(); }
  int op_id() const noexcept final { return setup_.op_id; }
  std::span<const int> peers() const noexcept final { return setup_.peers; }

  // testing::inject_raw_record.
  void inject_raw_record(int peer, std::span<const std::byte> bytes);

 private:
  // A message from a peer, from its record's arrival until recv().
  struct Incoming {
    std::unique_ptr<Message> message;        // metadata from arrival, payload once allocated
    std::unique_ptr<ReceivedRecord> record;  // kept until the payload is in
    DecodedRecord decoded;                   // points into record
    std::uint64_t arrival = 0;               // across peers: forcing takes the oldest
    bool awaiting_buffer = false;
    std::unique_ptr<Transfer> transfer;  // the payload receive
    bool complete = false;
  };
  // A message to a peer until its send completes.
  struct Outgoing {
    std::unique_ptr<Message> message;
    std::unique_ptr<Transfer> transfer;
  };
  struct Peer {
    int rank = 0;
    std::uint64_t sent = 0;  // messages sent to it, the next one's number
    PeerRecordOrder order;
    std::deque<Incoming> incoming;  // in its send order
    std::size_t allocated = 0;      // leading entries of incoming that await no buffer
    std::deque<Outgoing> outgoing;  // in send order
    std::unique_ptr<Transfer> end_marker;
  };

  void send_batch(std::span<std::unique_ptr<Message>> batch);
  void check_batch(std::span<const std::unique_ptr<Message>> batch) const;
  void post(std::unique_ptr<Message> message);
  void receive_records();
  void allocate_payloads();
  void complete_transfers();
  Incoming *head_awaiting_buffer(Peer &peer) noexcept;
  std::unique_ptr<Buffer> allocate(std::size_t size, AllocationMode mode);
  void start_payload(Peer &peer, Incoming &in, std::unique_ptr<Buffer> buffer, bool forced);
  void finish_payload(Incoming &in);

  // Runs `step`; an exception leaves the exchange unusable on its way out.
  void guarded(const std::function<void()> &step);
  void ensure_usable() const;
  bool drained() const noexcept;
  std::string unfinished_business() const;
  void abandon_transfers() noexcept;

  ExchangeSetup setup_;
  std::unique_ptr<Transport> transport_;
  const std::vector<MemoryType> sendable_;
  PeerIndex index_;
  std::vector<Peer> peers_;  // in the order of setup_.peers
  ForcingClock forcing_clock_;
  std::uint64_t next_arrival_ = 0;
  // Forced payloads in memory that recv() has not handed out yet.
  std::size_t forced_held_ = 0;
  std::vector<std::unique_ptr<Message>> delivered_;  // for recv()
  std::vector<std::unique_ptr<Message>> released_;   // for release_sent()
  bool finished_ = false;
  std::optional<std::string> failure_;  // the first error, once unusable
};

}  // namespace mpinotify::detail
