// The notified-RMA exchange: records travel through per-peer rings with
// one MPI_Put_notify each, a small payload inside its record, a larger one
// streamed after it in chunks put straight from the sender's buffer. The
// wire is notified_channels.hpp.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "exchange_engine.hpp"
#include "notified_channels.hpp"

namespace mpinotify::detail {

class NotifiedTransport final : public Transport {
 public:
  // Collective over setup.comm (Channels::obtain).
  NotifiedTransport(const ExchangeSetup &setup, const NotifiedOptions &options);

  std::vector<MemoryType> sendable_memory_types() const override { return {MemoryType::HOST}; }
  void progress() override;
  void sends_posted() override;
  std::unique_ptr<Transfer> start_send(const OutgoingRecord &record) override;
  std::unique_ptr<ReceivedRecord> next_record(int peer) override;
  std::unique_ptr<Transfer> start_payload_receive(int peer, const DecodedRecord &record,
                                                  std::span<std::byte> into) override;
  void send_raw_record(int peer, std::span<const std::byte> bytes) override;
  ExchangeFootprint footprint() const noexcept override { return channels_->footprint(); }

 private:
  std::unique_ptr<Transfer> send_job(int peer, std::shared_ptr<SendJob> job);

  PeerIndex index_;
  int op_id_;
  std::shared_ptr<Channels> channels_;
};

class NotifiedExchange final : public ExchangeEngine {
 public:
  explicit NotifiedExchange(ExchangeSetup setup, NotifiedOptions options = {});
};

}  // namespace mpinotify::detail
