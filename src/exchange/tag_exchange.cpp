#include "tag_exchange.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <utility>

#include "mpi_call.hpp"
#include "payload_messages.hpp"

namespace mpinotify::detail {
namespace {

class VectorRecord final : public ReceivedRecord {
 public:
  explicit VectorRecord(std::size_t size) : bytes_(size) {}
  std::span<const std::byte> bytes() const noexcept override { return bytes_; }
  std::byte *data() noexcept { return bytes_.data(); }

 private:
  std::vector<std::byte> bytes_;
};

int as_count(std::size_t bytes, const char *what) {
  if (bytes > static_cast<std::size_t>(INT_MAX)) {
    throw std::length_error(std::string("mpinotify exchange: ") + what + " above INT_MAX bytes");
  }
  return static_cast<int>(bytes);
}

}  // namespace

TagTransport::TagTransport(const ExchangeSetup &setup, TagOptions options)
    : comm_(setup.comm),
      op_id_(setup.op_id),
      record_tag_(record_tag(setup.comm, setup.op_id)),
      payload_tag_(payload_tag_below(record_tag_)),
      chunk_bytes_(std::min<std::size_t>(options.chunk_bytes, INT_MAX)) {
  if (chunk_bytes_ == 0) throw std::invalid_argument("TagOptions: chunk_bytes 0");
}

std::unique_ptr<Transfer> TagTransport::start_send(const OutgoingRecord &record) {
  auto transfer =
      std::make_unique<RequestTransfer>(false, encode_record(record.header, record.metadata));
  const std::span<const std::byte> bytes = transfer->record();
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Isend(bytes.data(), as_count(bytes.size(), "a record"), MPI_BYTE, record.peer,
                      record_tag_, comm_, &request),
            "MPI_Isend (record)");
  transfer->requests().push_back(request);
  // A zero-byte payload sends nothing: the record says it is there.
  post_payload_sends(comm_, record.peer, payload_tag_, chunk_bytes_, record.payload, *transfer);
  return transfer;
}

std::unique_ptr<ReceivedRecord> TagTransport::next_record(int peer) {
  int found = 0;
  MPI_Message message = MPI_MESSAGE_NULL;
  MPI_Status status;
  check_mpi(MPI_Improbe(peer, record_tag_, comm_, &found, &message, &status), "MPI_Improbe");
  if (found == 0) return nullptr;
  int count = 0;
  check_mpi(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
  if (count == MPI_UNDEFINED) {
    throw ProtocolError(peer, op_id_, "a record above INT_MAX bytes, which no sender makes");
  }
  auto record = std::make_unique<VectorRecord>(static_cast<std::size_t>(count));
  check_mpi(MPI_Mrecv(record->data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE), "MPI_Mrecv");
  return record;
}

std::unique_ptr<Transfer> TagTransport::start_payload_receive(int peer, const DecodedRecord &record,
                                                              std::span<std::byte> into) {
  if (record.header.payload_inline()) {
    throw ProtocolError(peer, op_id_, "an inline payload, which this implementation never sends");
  }
  auto transfer = std::make_unique<RequestTransfer>(true);
  post_payload_receives(comm_, peer, payload_tag_, chunk_bytes_, into, *transfer);
  return transfer;
}

void TagTransport::send_raw_record(int peer, std::span<const std::byte> bytes) {
  check_mpi(MPI_Send(bytes.data(), as_count(bytes.size(), "a raw record"), MPI_BYTE, peer,
                     record_tag_, comm_),
            "MPI_Send (raw record)");
}

TagExchange::TagExchange(MPI_Comm comm, int op_id, std::vector<int> peers, AllocateFn allocate_fn,
                         std::chrono::nanoseconds allocation_timeout,
                         std::shared_ptr<BufferResource> buffer_resource, ExchangeOptions options)
    : TagExchange(check_setup(comm, op_id, std::move(peers), std::move(allocate_fn),
                              allocation_timeout, std::move(buffer_resource), options)) {}

TagExchange::TagExchange(ExchangeSetup setup, TagOptions tag_options)
    : ExchangeEngine(std::move(setup), [tag_options](const ExchangeSetup &checked) {
        return std::make_unique<TagTransport>(checked, tag_options);
      }) {}

}  // namespace mpinotify::detail
