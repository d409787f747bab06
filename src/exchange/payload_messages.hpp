// Payloads as point-to-point messages of their own, on the payload tag of
// an op id: how the tag-based exchange sends every payload, and how the
// notified one sends large payloads to peers on other nodes, where the
// host's messages move them straight into the receive buffer. Sends and
// receives are posted in message order per peer, so MPI's order on one
// (source, tag, communicator) pairs each payload with its record.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <span>
#include <vector>

#include "transport.hpp"

namespace mpinotify::detail {

// The requests of one send (record and payload pieces) or one payload
// receive (its pieces).
class RequestTransfer final : public Transfer {
 public:
  explicit RequestTransfer(bool is_receive, std::vector<std::byte> record = {})
      : record_(std::move(record)), is_receive_(is_receive) {}

  std::vector<MPI_Request> &requests() noexcept { return requests_; }
  std::span<const std::byte> record() const noexcept { return record_; }

  bool test() override;
  // A receive not yet matched can be cancelled; a send cannot (reliably),
  // so it stays an orphan until the peer takes it.
  bool abandon() noexcept override;

 private:
  std::vector<MPI_Request> requests_;
  std::vector<std::byte> record_;  // the bytes a send's record request reads
  bool is_receive_;
};

// The tags of an op id: records ub - 2 op_id, payloads one below.
int record_tag(MPI_Comm comm, int op_id);
inline int payload_tag_below(int record_tag) { return record_tag - 1; }

// Posts `payload` to `peer` as messages of at most `piece_bytes` (at most
// INT_MAX) each, adding their requests to `transfer`. Nothing for an
// empty payload.
void post_payload_sends(MPI_Comm comm, int peer, int tag, std::size_t piece_bytes,
                        std::span<const std::byte> payload, RequestTransfer &transfer);
// Posts the matching receives into `into`.
void post_payload_receives(MPI_Comm comm, int peer, int tag, std::size_t piece_bytes,
                           std::span<std::byte> into, RequestTransfer &transfer);

}  // namespace mpinotify::detail
