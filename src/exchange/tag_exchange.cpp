#include "tag_exchange.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <utility>

#include "mpi_call.hpp"

namespace mpinotify::detail {
namespace {

// The requests of one send (record and payload chunks) or one payload
// receive (its chunks).
class RequestTransfer final : public Transfer {
 public:
  explicit RequestTransfer(bool is_receive, std::vector<std::byte> record = {})
      : record_(std::move(record)), is_receive_(is_receive) {}

  std::vector<MPI_Request> &requests() noexcept { return requests_; }
  std::span<const std::byte> record() const noexcept { return record_; }

  bool test() override {
    if (requests_.empty()) return true;
    int done = 0;
    check_mpi(MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &done,
                          MPI_STATUSES_IGNORE),
              "MPI_Testall");
    if (done != 0) requests_.clear();
    return done != 0;
  }

  // A receive not yet matched can be cancelled; a send cannot (reliably),
  // so it stays an orphan until the peer takes it.
  bool abandon() noexcept override {
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

 private:
  std::vector<MPI_Request> requests_;
  std::vector<std::byte> record_;  // the bytes a send's record request reads
  bool is_receive_;
};

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
      record_tag_(tag_upper_bound(setup.comm) - 2 * setup.op_id),
      payload_tag_(record_tag_ - 1),
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
  for (std::size_t at = 0; at < record.payload.size(); at += chunk_bytes_) {
    const std::size_t length = std::min(chunk_bytes_, record.payload.size() - at);
    check_mpi(MPI_Isend(record.payload.data() + at, static_cast<int>(length), MPI_BYTE, record.peer,
                        payload_tag_, comm_, &request),
              "MPI_Isend (payload)");
    transfer->requests().push_back(request);
  }
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
  for (std::size_t at = 0; at < into.size(); at += chunk_bytes_) {
    const std::size_t length = std::min(chunk_bytes_, into.size() - at);
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Irecv(into.data() + at, static_cast<int>(length), MPI_BYTE, peer, payload_tag_,
                        comm_, &request),
              "MPI_Irecv (payload)");
    transfer->requests().push_back(request);
  }
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
