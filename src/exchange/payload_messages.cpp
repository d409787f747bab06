#include "payload_messages.hpp"

#include <algorithm>

#include "exchange_setup.hpp"
#include "mpi_call.hpp"

namespace mpinotify::detail {

bool RequestTransfer::test() {
  if (requests_.empty()) return true;
  int done = 0;
  check_mpi(
      MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE),
      "MPI_Testall");
  if (done != 0) requests_.clear();
  return done != 0;
}

bool RequestTransfer::abandon() noexcept {
  try {
    if (is_receive_) {
      for (MPI_Request &request : requests_) {
        if (request != MPI_REQUEST_NULL) MPI_Cancel(&request);
      }
    }
    return test();
  } catch (...) {
    return false;
  }
}

int record_tag(MPI_Comm comm, int op_id) { return tag_upper_bound(comm) - 2 * op_id; }

void post_payload_sends(MPI_Comm comm, int peer, int tag, std::size_t piece_bytes,
                        std::span<const std::byte> payload, RequestTransfer &transfer) {
  for (std::size_t at = 0; at < payload.size(); at += piece_bytes) {
    const std::size_t length = std::min(piece_bytes, payload.size() - at);
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Isend(payload.data() + at, static_cast<int>(length), MPI_BYTE, peer, tag, comm,
                        &request),
              "MPI_Isend (payload)");
    transfer.requests().push_back(request);
  }
}

void post_payload_receives(MPI_Comm comm, int peer, int tag, std::size_t piece_bytes,
                           std::span<std::byte> into, RequestTransfer &transfer) {
  for (std::size_t at = 0; at < into.size(); at += piece_bytes) {
    const std::size_t length = std::min(piece_bytes, into.size() - at);
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(
        MPI_Irecv(into.data() + at, static_cast<int>(length), MPI_BYTE, peer, tag, comm, &request),
        "MPI_Irecv (payload)");
    transfer.requests().push_back(request);
  }
}

}  // namespace mpinotify::detail
