// The tag-based exchange: each message is a record (tag "records" of its op
// id) followed by its payload (tag "payloads"), both with MPI_Isend;
// records come in with MPI_Improbe/MPI_Mrecv from each peer in turn and
// payloads with MPI_Irecv from that peer (never MPI_ANY_SOURCE), matched to
// their records by MPI's order on one (source, tag, communicator). Payloads
// above the chunk size go as several messages, so any size fits MPI's int
// counts. Tags count down from MPI_TAG_UB (records ub - 2 op_id, payloads
// one below), away from the small tags applications tend to use.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

#include "exchange_engine.hpp"

namespace mpinotify::detail {

struct TagOptions {
  // The largest MPI message a payload is cut into (at most INT_MAX).
  std::size_t chunk_bytes = std::size_t{1} << 30;
};

class TagTransport final : public Transport {
 public:
  TagTransport(const ExchangeSetup &setup, TagOptions options);

  std::vector<MemoryType> sendable_memory_types() const override { return {MemoryType::HOST}; }
  std::unique_ptr<Transfer> start_send(const OutgoingRecord &record) override;
  std::unique_ptr<ReceivedRecord> next_record(int peer) override;
  std::unique_ptr<Transfer> start_payload_receive(int peer, const DecodedRecord &record,
                                                  std::span<std::byte> into) override;
  void send_raw_record(int peer, std::span<const std::byte> bytes) override;

 private:
  MPI_Comm comm_;
  int op_id_;
  int record_tag_;
  int payload_tag_;
  std::size_t chunk_bytes_;
};

class TagExchange final : public ExchangeEngine {
 public:
  // Checks its arguments as make_exchange says.
  TagExchange(MPI_Comm comm, int op_id, std::vector<int> peers, AllocateFn allocate_fn,
              std::chrono::nanoseconds allocation_timeout,
              std::shared_ptr<BufferResource> buffer_resource, ExchangeOptions options = {});
  explicit TagExchange(ExchangeSetup setup, TagOptions tag_options = {});
};

}  // namespace mpinotify::detail
