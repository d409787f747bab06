#include "notified_exchange.hpp"

#include <cstring>
#include <utility>

#include "mpi_call.hpp"

namespace mpinotify::detail {
namespace {

// A record (and its streamed payload) until every entry of it was put and
// is locally complete.
class SendTransfer final : public Transfer {
 public:
  SendTransfer(std::shared_ptr<Channels> channels, std::size_t peer, std::shared_ptr<SendJob> job)
      : channels_(std::move(channels)), peer_(peer), job_(std::move(job)) {}
  bool test() override {
    // An orphan has no exchange whose progress() drives its queue.
    if (orphaned_ && !job_->issued()) channels_->drive(peer_);
    done_ = done_ || channels_->sent(peer_, *job_);
    return done_;
  }
  // Nothing of it put yet: it never goes. Otherwise it is seen through
  // (orphans.hpp), its payload still being read from the caller's memory.
  bool abandon() noexcept override {
    try {
      orphaned_ = true;
      return channels_->withdraw(peer_, *job_) || test();
    } catch (...) {
      return false;
    }
  }

 private:
  std::shared_ptr<Channels> channels_;
  std::size_t peer_;
  std::shared_ptr<SendJob> job_;
  bool done_ = false;
  bool orphaned_ = false;
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
  std::span<const std::byte> inline_payload;
  if (record.payload.size() <= channels_->options().inline_payload_bytes) {
    if (!record.payload.empty()) header.flags |= record_flags::kPayloadInline;
    inline_payload = record.payload;
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
  return send_job(record.peer, std::move(job));
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
  if (record.header.payload_length <= channels_->options().inline_payload_bytes)
    throw ProtocolError(peer, op_id_, "a payload neither inline nor streamed");
  return std::make_unique<StreamTransfer>(channels_, *index_.find(peer), into);
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
