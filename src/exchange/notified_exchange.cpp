#include "notified_exchange.hpp"

#include <cstring>
#include <utility>

#include "mpi_call.hpp"
#include "payload_messages.hpp"

namespace mpinotify::detail {
namespace {

// The largest message a payload sent as messages is cut into (MPI counts
// are ints), as in the tag-based exchange.
constexpr std::size_t kMessagePieceBytes = std::size_t{1} << 30;

// A record (and its streamed payload) until every entry of it was put and
// is locally complete; a pulled payload until the peer read it; a payload
// sent as a message until its requests complete.
class SendTransfer final : public Transfer {
 public:
  SendTransfer(std::shared_ptr<Channels> channels, std::size_t peer, std::shared_ptr<SendJob> job)
      : channels_(std::move(channels)), peer_(peer), job_(std::move(job)) {}
  void set_pulled(std::uint64_t number, std::span<const std::byte> payload) {
    pull_number_ = number;
    pulled_payload_ = payload;
  }
  RequestTransfer &payload_messages() {
    messages_ = std::make_unique<RequestTransfer>(false);
    return *messages_;
  }
  bool test() override {
    // An orphan has no exchange whose progress() drives its queue.
    if (orphaned_ && !job_->issued()) channels_->drive(peer_);
    record_done_ = record_done_ || channels_->sent(peer_, *job_);
    if (!record_done_) return false;
    if (pull_number_ != 0 && !channels_->routes().pulled(peer_, pull_number_, pulled_payload_)) {
      return false;
    }
    pull_number_ = 0;
    return !messages_ || messages_->test();
  }
  // Nothing of it put yet: it never goes (unless its payload is posted
  // as a message already: the record must go for the peer to match it).
  // Otherwise it is seen through (orphans.hpp), its payload still being
  // read from the caller's memory.
  bool abandon() noexcept override {
    try {
      orphaned_ = true;
      if (!messages_ && channels_->withdraw(peer_, *job_)) {
        if (pull_number_ != 0) channels_->routes().unexpose(pulled_payload_);
        return true;
      }
      return test();
    } catch (...) {
      return false;
    }
  }

 private:
  std::shared_ptr<Channels> channels_;
  std::size_t peer_;
  std::shared_ptr<SendJob> job_;
  std::uint64_t pull_number_ = 0;  // 0: not pulled, or pulled already
  std::span<const std::byte> pulled_payload_;
  std::unique_ptr<RequestTransfer> messages_;
  bool record_done_ = false;
  bool orphaned_ = false;
};

// A pulled payload: one get straight into the receive buffer.
class PullTransfer final : public Transfer {
 public:
  PullTransfer(std::shared_ptr<Channels> channels, std::size_t peer,
               std::shared_ptr<PayloadRoutes::Pull> pull)
      : channels_(std::move(channels)), peer_(peer), pull_(std::move(pull)) {}
  bool test() override {
    if (!pull_->done) channels_->routes().advance(peer_);
    return pull_->done;
  }
  // A get not started yet never starts; one in flight writes into the
  // buffer until it completes (orphans.hpp).
  bool abandon() noexcept override {
    try {
      return channels_->routes().withdraw(peer_, *pull_) || test();
    } catch (...) {
      return false;
    }
  }

 private:
  std::shared_ptr<Channels> channels_;
  std::size_t peer_;
  std::shared_ptr<PayloadRoutes::Pull> pull_;
};

// A streamed payload: copied out of the ring as its chunks arrive.
class StreamTransfer final : public Transfer {
 public:
  StreamTransfer(std::shared_ptr<Channels> channels, std::size_t peer, std::span<std::byte> into)
      : channels_(std::move(channels)), peer_(peer), into_(into) {}
  bool test() override {
    if (done_ < into_.size()) done_ = channels_->stream_in(peer_, into_, done_);
    return done_ == into_.size();
  }
  // Nothing of it is in flight here: the rest stays in the ring (the
  // exchange warns that its op id is not to be reused).
  bool abandon() noexcept override { return true; }

 private:
  std::shared_ptr<Channels> channels_;
  std::size_t peer_;
  std::span<std::byte> into_;
  std::size_t done_ = 0;
};

// An inline payload, copied at once.
class DoneTransfer final : public Transfer {
 public:
  bool test() override { return true; }
  bool abandon() noexcept override { return true; }
};

}  // namespace

NotifiedTransport::NotifiedTransport(const ExchangeSetup &setup, const NotifiedOptions &options)
    : index_(setup.peers), op_id_(setup.op_id), channels_(Channels::obtain(setup, options)) {}

void NotifiedTransport::progress() { channels_->drive_all(); }

void NotifiedTransport::sends_posted() { channels_->drive_enqueued(); }

std::unique_ptr<Transfer> NotifiedTransport::start_send(const OutgoingRecord &record) {
  auto job = std::make_shared<SendJob>();
  RecordHeader header = record.header;
  const std::size_t index = *index_.find(record.peer);
  PayloadRoutes &routes = channels_->routes();
  std::span<const std::byte> inline_payload;
  PayloadRoute route = PayloadRoute::RING;
  PayloadRoutes::Exposed exposed;
  if (record.payload.size() <= channels_->options().inline_payload_bytes) {
    if (!record.payload.empty()) header.flags |= record_flags::kPayloadInline;
    inline_payload = record.payload;
  } else if (route = routes.route(index, record.payload.size()); route == PayloadRoute::PULL) {
    exposed = routes.expose(index, record.payload);
    header.flags |= record_flags::kPayloadPulled;
    header.payload_location = exposed.location;
  } else if (route == PayloadRoute::MESSAGE) {
    header.flags |= record_flags::kPayloadMessage;
  } else {
    job->payload = record.payload;  // streamed after the record
  }
  // Encoded behind room for the entry's prefix.
  const RecordHeaderBytes encoded = encode_header(header);
  job->frame.resize(kEntryPrefixBytes + encoded.size() + record.metadata.size() +
                    inline_payload.size());
  std::byte *at = job->frame.data() + kEntryPrefixBytes;
  std::memcpy(at, encoded.data(), encoded.size());
  at += encoded.size();
  if (!record.metadata.empty()) std::memcpy(at, record.metadata.data(), record.metadata.size());
  at += record.metadata.size();
  if (!inline_payload.empty()) std::memcpy(at, inline_payload.data(), inline_payload.size());
  auto transfer = std::make_unique<SendTransfer>(channels_, index, job);
  if (route == PayloadRoute::PULL) transfer->set_pulled(exposed.number, record.payload);
  if (route == PayloadRoute::MESSAGE) {
    post_payload_sends(routes.comm(), record.peer, routes.payload_tag(), kMessagePieceBytes,
                       record.payload, transfer->payload_messages());
  }
  channels_->enqueue(index, std::move(job));
  return transfer;
}

std::unique_ptr<Transfer> NotifiedTransport::send_job(int peer, std::shared_ptr<SendJob> job) {
  const std::size_t index = *index_.find(peer);
  channels_->enqueue(index, job);
  return std::make_unique<SendTransfer>(channels_, index, std::move(job));
}

std::unique_ptr<ReceivedRecord> NotifiedTransport::next_record(int peer) {
  return channels_->next_record(*index_.find(peer));
}

std::unique_ptr<Transfer> NotifiedTransport::start_payload_receive(int peer,
                                                                   const DecodedRecord &record,
                                                                   std::span<std::byte> into) {
  if (record.header.payload_inline()) {
    if (record.inline_payload.size() != into.size())
      throw ProtocolError(peer, op_id_, "an inline payload of another length than announced");
    std::memcpy(into.data(), record.inline_payload.data(), into.size());
    return std::make_unique<DoneTransfer>();
  }
  const std::size_t index = *index_.find(peer);
  if (record.header.payload_pulled()) {
    return std::make_unique<PullTransfer>(
        channels_, index, channels_->routes().pull(index, record.header.payload_location, into));
  }
  if (record.header.payload_message()) {
    auto transfer = std::make_unique<RequestTransfer>(true);
    post_payload_receives(channels_->routes().comm(), peer, channels_->routes().payload_tag(),
                          kMessagePieceBytes, into, *transfer);
    return transfer;
  }
  if (record.header.payload_length <= channels_->options().inline_payload_bytes)
    throw ProtocolError(peer, op_id_, "a payload neither inline nor streamed");
  return std::make_unique<StreamTransfer>(channels_, index, into);
}

void NotifiedTransport::send_raw_record(int peer, std::span<const std::byte> bytes) {
  auto job = std::make_shared<SendJob>();
  job->frame.resize(kEntryPrefixBytes + bytes.size());
  if (!bytes.empty())
    std::memcpy(job->frame.data() + kEntryPrefixBytes, bytes.data(), bytes.size());
  // Blocking, as the hook is: its bytes live here.
  const std::unique_ptr<Transfer> transfer = send_job(peer, std::move(job));
  while (!transfer->test()) channels_->drive(*index_.find(peer));
}

NotifiedExchange::NotifiedExchange(ExchangeSetup setup, NotifiedOptions options)
    : ExchangeEngine(std::move(setup), [options](const ExchangeSetup &checked) {
        return std::make_unique<NotifiedTransport>(checked, options);
      }) {}

}  // namespace mpinotify::detail
