// The ring and payload mechanics of the notified exchange's channels
// (notified_channels.hpp); making and pooling them is notified_pool.cpp.
#include <mpi_notify.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "mpi_call.hpp"
#include "notified_channels.hpp"

namespace mpinotify::detail {
namespace {

// An entry's prefix: its length in slots, how many bytes of data follow
// the prefix, and its kind.
constexpr std::size_t kPrefixBytes = kEntryPrefixBytes;
enum class EntryKind : std::uint8_t {
  FULL = 1,
  FIRST = 2,
  MIDDLE = 3,
  LAST = 4,
  SKIP = 5,
  BATCH = 6
};

// A record in a batch entry: its length in 8 bytes, then its bytes up to
// a multiple of 8.
constexpr std::size_t kBatchItemBytes = 8;
std::size_t batch_item_bytes(std::size_t record) { return kBatchItemBytes + (record + 7) / 8 * 8; }

struct Prefix {
  std::uint32_t slots;
  std::uint32_t data_bytes;
  EntryKind kind;
};

void write_prefix(std::byte *at, const Prefix &prefix) {
  std::memset(at, 0, kPrefixBytes);
  std::memcpy(at, &prefix.slots, 4);
  std::memcpy(at + 4, &prefix.data_bytes, 4);
  at[8] = static_cast<std::byte>(prefix.kind);
}

Prefix read_prefix(const std::byte *at) {
  Prefix prefix{};
  std::memcpy(&prefix.slots, at, 4);
  std::memcpy(&prefix.data_bytes, at + 4, 4);
  prefix.kind = static_cast<EntryKind>(at[8]);
  return prefix;
}

// A record read in place: its bytes stay in the ring until it goes.
class RingRecord final : public ReceivedRecord {
 public:
  RingRecord(std::shared_ptr<Channels> channels, std::size_t peer, std::uint64_t start,
             std::span<const std::byte> bytes)
      : channels_(std::move(channels)), peer_(peer), start_(start), bytes_(bytes) {}
  RingRecord(const RingRecord &) = delete;
  RingRecord &operator=(const RingRecord &) = delete;
  ~RingRecord() override {
    try {
      channels_->release(peer_, start_);
    } catch (...) {
      // The credit is lost with a failing MPI; the exchange reports its error.
    }
  }
  std::span<const std::byte> bytes() const noexcept override { return bytes_; }

 private:
  std::shared_ptr<Channels> channels_;
  std::size_t peer_;
  std::uint64_t start_;
  std::span<const std::byte> bytes_;
};

// A record copied out of the ring (fragments assembled, or one whose
// payload streams after it).
class CopiedRecord final : public ReceivedRecord {
 public:
  explicit CopiedRecord(std::vector<std::byte> bytes) : bytes_(std::move(bytes)) {}
  std::span<const std::byte> bytes() const noexcept override { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

// The bytes of payload that stream after this record (0: none, or
// inline). A record the codec refuses streams nothing: the exchange
// reports it when it decodes it.
std::uint64_t streamed_bytes(std::span<const std::byte> record, int peer, int op_id,
                             std::size_t inline_bytes) {
  try {
    const RecordHeader header = decode_record(record, peer, op_id).header;
    if (!header.has_payload() || (header.flags & record_flags::kPlacement) != 0) return 0;
    return header.payload_length > inline_bytes ? header.payload_length : 0;
  } catch (const ProtocolError &) {
    return 0;
  }
}

}  // namespace

MPI_Count Channels::counter(std::uint64_t index) const {
  MPI_Count value = 0;
  check_mpi(MPI_Win_get_notify_value(ring_win_, static_cast<int>(index), &value),
            "MPI_Win_get_notify_value");
  return value;
}

std::uint64_t Channels::ring_counter(std::uint64_t peer_index, std::uint64_t slot) const {
  return peer_index * (slots_ + 1) + slot;
}

std::uint64_t Channels::credited(std::size_t peer) const {
  return static_cast<std::uint64_t>(counter(ring_counter(peer, slots_))) * batch_;
}

bool Channels::arrived(std::size_t peer, std::uint64_t at) const {
  return static_cast<std::uint64_t>(counter(ring_counter(peer, at))) > in_[peer].starts[at];
}

std::uint64_t Channels::chunk_slots(std::uint64_t at, std::uint64_t left) const {
  const std::uint64_t needed = (left + options_.slot_bytes - 1) / options_.slot_bytes;
  return std::min({max_entry_slots_, slots_ - at, needed});
}

bool Channels::room(std::size_t peer, std::uint64_t slots) {
  Outbound &out = out_[peer];
  // The credit counter is read only when what was read is not enough.
  if (out.written + slots - out.credit <= slots_) return true;
  out.credit = credited(peer);
  return out.written + slots - out.credit <= slots_;
}

void Channels::enqueue(std::size_t peer, std::shared_ptr<SendJob> job) {
  // Batching, jobs gather until a send() has posted all of its own
  // (sends_posted) or enough wait to fill a batch; otherwise each goes at
  // once.
  constexpr std::size_t kGather = 64;
  out_[peer].queue.push_back(std::move(job));
  if (!batching() || out_[peer].queue.size() >= kGather) {
    drive(peer);
  } else if (!is_undriven_[peer]) {
    is_undriven_[peer] = true;
    undriven_.push_back(peer);
  }
}

void Channels::drive_all() {
  for (std::size_t peer = 0; peer < out_.size(); ++peer) drive(peer);
}

void Channels::drive_enqueued() {
  for (const std::size_t peer : undriven_) {
    is_undriven_[peer] = false;
    drive(peer);
  }
  undriven_.clear();
}

void Channels::drive(std::size_t peer) {
  if (closed_) return;
  Outbound &out = out_[peer];
  while (!out.queue.empty()) {
    // Records queued together go out together: one put (over a network,
    // one round trip) for many small messages.
    if (const std::size_t count = batch_size(out); count >= 2) {
      if (!issue_batch(peer, count)) return;
      continue;
    }
    SendJob &job = *out.queue.front();
    while (!job.record_done()) {
      if (!issue_framed(peer, job)) return;  // no credit yet
    }
    while (job.payload_put < job.payload.size()) {
      if (!issue_chunk(peer, job)) return;
    }
    job.last_entry = out.entries;
    out.queue.pop_front();
  }
}

bool Channels::issue_framed(std::size_t peer, SendJob &job) {
  Outbound &out = out_[peer];
  const std::size_t slot_bytes = options_.slot_bytes;
  const std::size_t left = job.record_size() - job.record_put;
  const std::size_t data = std::min(left, max_entry_slots_ * slot_bytes - kPrefixBytes);
  EntryKind kind = EntryKind::FULL;
  if (data < job.record_size()) {
    kind = job.record_put == 0 ? EntryKind::FIRST
           : data == left      ? EntryKind::LAST
                               : EntryKind::MIDDLE;
  }
  const std::uint64_t slots = (kPrefixBytes + data + slot_bytes - 1) / slot_bytes;
  if (!make_room(peer, slots, job.staging)) return false;
  const Prefix prefix{static_cast<std::uint32_t>(slots), static_cast<std::uint32_t>(data), kind};
  if (kind == EntryKind::FULL) {
    // The whole record, from its frame.
    write_prefix(job.frame.data(), prefix);
    put(peer, out.written % slots_, job.frame.data(), job.frame.size());
  } else {
    std::vector<std::byte> &entry = job.staging.emplace_back(kPrefixBytes + data);
    write_prefix(entry.data(), prefix);
    std::memcpy(entry.data() + kPrefixBytes, job.record() + job.record_put, data);
    put(peer, out.written % slots_, entry.data(), entry.size());
  }
  out.written += slots;
  job.record_put += data;
  job.framed_any = true;
  return true;
}

bool Channels::make_room(std::size_t peer, std::uint64_t slots,
                         std::vector<std::vector<std::byte>> &staging) {
  Outbound &out = out_[peer];
  const std::uint64_t at = out.written % slots_;
  const std::uint64_t skip = at + slots > slots_ ? slots_ - at : 0;
  if (!room(peer, skip + slots)) return false;
  if (skip > 0) {
    std::vector<std::byte> &entry = staging.emplace_back(kPrefixBytes);
    write_prefix(entry.data(), {static_cast<std::uint32_t>(skip), 0, EntryKind::SKIP});
    put(peer, at, entry.data(), entry.size());
    out.written += skip;
  }
  return true;
}

std::size_t Channels::batch_size(const Outbound &out) const {
  if (!batching()) return 0;
  const std::size_t capacity = max_entry_slots_ * options_.slot_bytes - kPrefixBytes;
  std::size_t count = 0;
  std::size_t bytes = 0;
  for (const std::shared_ptr<SendJob> &job : out.queue) {
    // Whole records with nothing streamed after them.
    if (job->framed_any || !job->payload.empty()) break;
    bytes += batch_item_bytes(job->record_size());
    if (bytes > capacity) break;
    ++count;
  }
  return count;
}

bool Channels::issue_batch(std::size_t peer, std::size_t count) {
  Outbound &out = out_[peer];
  std::size_t data = 0;
  for (std::size_t i = 0; i < count; ++i) data += batch_item_bytes(out.queue[i]->record_size());
  const std::uint64_t slots = (kPrefixBytes + data + options_.slot_bytes - 1) / options_.slot_bytes;
  // The entry's bytes stay with the batch's last job until it is locally
  // complete (its sent() flushes what came before it too).
  SendJob &last = *out.queue[count - 1];
  if (!make_room(peer, slots, last.staging)) return false;
  std::vector<std::byte> &entry = last.staging.emplace_back(kPrefixBytes + data);
  write_prefix(entry.data(), {static_cast<std::uint32_t>(slots), static_cast<std::uint32_t>(data),
                              EntryKind::BATCH});
  std::byte *at = entry.data() + kPrefixBytes;
  for (std::size_t i = 0; i < count; ++i) {
    const SendJob &job = *out.queue[i];
    const std::uint64_t length = job.record_size();
    std::memcpy(at, &length, sizeof length);
    std::memcpy(at + kBatchItemBytes, job.record(), length);
    at += batch_item_bytes(length);
  }
  put(peer, out.written % slots_, entry.data(), entry.size());
  out.written += slots;
  for (std::size_t i = 0; i < count; ++i) {
    SendJob &job = *out.queue.front();
    job.record_put = job.record_size();
    job.framed_any = true;
    job.last_entry = out.entries;
    out.queue.pop_front();
  }
  return true;
}

bool Channels::issue_chunk(std::size_t peer, SendJob &job) {
  Outbound &out = out_[peer];
  const std::uint64_t at = out.written % slots_;
  const std::size_t left = job.payload.size() - job.payload_put;
  const std::uint64_t slots = chunk_slots(at, left);
  if (!room(peer, slots)) return false;
  const std::size_t bytes = std::min<std::size_t>(left, slots * options_.slot_bytes);
  put(peer, at, job.payload.data() + job.payload_put, bytes);
  out.written += slots;
  job.payload_put += bytes;
  return true;
}

void Channels::put(std::size_t peer, std::uint64_t at, const std::byte *bytes, std::size_t size) {
  const auto mine = static_cast<std::uint64_t>(index_at_peer_[peer]);
  const auto disp = static_cast<MPI_Aint>(mine * options_.ring_bytes + at * options_.slot_bytes);
  check_mpi(MPI_Put_notify(bytes, static_cast<int>(size), MPI_BYTE, peers_[peer], disp,
                           static_cast<int>(size), MPI_BYTE,
                           static_cast<int>(ring_counter(mine, at)), ring_win_),
            "MPI_Put_notify (exchange ring)");
  ++out_[peer].entries;
}

bool Channels::sent(std::size_t peer, SendJob &job) {
  if (closed_) return true;
  // (The transport's progress() drives the queues; a job all put has
  // left its queue.)
  if (!job.issued()) return false;
  Outbound &out = out_[peer];
  if (out.flushed < job.last_entry) {
    check_mpi(MPI_Win_flush_local(peers_[peer], ring_win_), "MPI_Win_flush_local");
    out.flushed = out.entries;
  }
  job.staging.clear();
  return true;
}

bool Channels::withdraw(std::size_t peer, const SendJob &job) {
  auto &queue = out_[peer].queue;
  const auto it = std::find_if(queue.begin(), queue.end(),
                               [&](const auto &queued) { return queued.get() == &job; });
  if (it == queue.end() || (*it)->framed_any) return false;
  queue.erase(it);
  return true;
}

std::unique_ptr<ReceivedRecord> Channels::next_record(std::size_t peer) {
  Inbound &in = in_[peer];
  if (closed_ || in.streaming > 0) return nullptr;
  const std::byte *ring = ring_base_ + peer * options_.ring_bytes;
  const auto corrupt = [&](const std::string &what) {
    return ProtocolError(peers_[peer], op_id_,
                         "ring entry at slot " + std::to_string(in.read % slots_) + ": " + what);
  };
  // A record whose payload streams after it is copied out, so that its
  // slots are credited back while the payload comes.
  const auto copied = [&](std::vector<std::byte> bytes) -> std::unique_ptr<ReceivedRecord> {
    in.streaming = streamed_bytes(bytes, peers_[peer], op_id_, options_.inline_payload_bytes);
    return std::make_unique<CopiedRecord>(std::move(bytes));
  };
  if (!in.batched.empty()) {
    const std::span<const std::byte> record = in.batched.front();
    in.batched.pop_front();
    return std::make_unique<RingRecord>(shared_from_this(), peer, in.batch_start, record);
  }
  for (;;) {
    const std::uint64_t at = in.read % slots_;
    if (!arrived(peer, at)) return nullptr;
    const std::byte *entry = ring + at * options_.slot_bytes;
    const Prefix prefix = read_prefix(entry);
    if (prefix.slots == 0 || at + prefix.slots > slots_) throw corrupt("length outside the ring");
    if (kPrefixBytes + prefix.data_bytes > prefix.slots * options_.slot_bytes)
      throw corrupt("more data than its slots hold");
    ++in.starts[at];
    const std::uint64_t start = in.read;
    in.read += prefix.slots;
    const std::span<const std::byte> data(entry + kPrefixBytes, prefix.data_bytes);
    switch (prefix.kind) {
      case EntryKind::SKIP: hold(peer, start, prefix.slots, true); continue;
      case EntryKind::FULL:
        if (in.assembling) throw corrupt("a whole record inside a fragmented one");
        if (streamed_bytes(data, peers_[peer], op_id_, options_.inline_payload_bytes) > 0) {
          std::vector<std::byte> bytes(data.begin(), data.end());
          hold(peer, start, prefix.slots, true);
          return copied(std::move(bytes));
        }
        hold(peer, start, prefix.slots, false);
        return std::make_unique<RingRecord>(shared_from_this(), peer, start, data);
      case EntryKind::BATCH: {
        if (in.assembling) throw corrupt("a batch inside a fragmented record");
        std::deque<std::span<const std::byte>> records;
        for (std::size_t offset = 0; offset < data.size();) {
          std::uint64_t length = 0;
          if (data.size() - offset < kBatchItemBytes) throw corrupt("a batch cut short");
          std::memcpy(&length, data.data() + offset, sizeof length);
          if (length > data.size() - offset - kBatchItemBytes)
            throw corrupt("a batched record longer than its batch");
          const std::span<const std::byte> record = data.subspan(offset + kBatchItemBytes, length);
          if (streamed_bytes(record, peers_[peer], op_id_, options_.inline_payload_bytes) > 0)
            throw corrupt("a batched record with a streamed payload");
          records.push_back(record);
          offset += std::min(batch_item_bytes(length), data.size() - offset);
        }
        if (records.empty()) throw corrupt("an empty batch");
        // Its slots are freed once the exchange let go of every record.
        hold(peer, start, prefix.slots, false, records.size());
        in.batched = std::move(records);
        in.batch_start = start;
        const std::span<const std::byte> first = in.batched.front();
        in.batched.pop_front();
        return std::make_unique<RingRecord>(shared_from_this(), peer, start, first);
      }
      case EntryKind::FIRST:
        if (in.assembling) throw corrupt("a first fragment inside a fragmented record");
        in.assembling = true;
        in.assembly.assign(data.begin(), data.end());
        hold(peer, start, prefix.slots, true);
        continue;
      case EntryKind::MIDDLE:
      case EntryKind::LAST:
        if (!in.assembling) throw corrupt("a fragment without its first");
        in.assembly.insert(in.assembly.end(), data.begin(), data.end());
        hold(peer, start, prefix.slots, true);
        if (prefix.kind == EntryKind::MIDDLE) continue;
        in.assembling = false;
        return copied(std::exchange(in.assembly, {}));
    }
    throw corrupt("unknown kind");
  }
}

std::size_t Channels::stream_in(std::size_t peer, std::span<std::byte> into, std::size_t done) {
  Inbound &in = in_[peer];
  if (closed_) return into.size();
  if (into.size() - done != in.streaming)
    throw ProtocolError(peers_[peer], op_id_, "a payload received out of its record's order");
  const std::byte *ring = ring_base_ + peer * options_.ring_bytes;
  while (in.streaming > 0) {
    const std::uint64_t at = in.read % slots_;
    if (!arrived(peer, at)) break;
    const std::uint64_t slots = chunk_slots(at, in.streaming);
    const std::size_t bytes = std::min<std::size_t>(in.streaming, slots * options_.slot_bytes);
    std::memcpy(into.data() + done, ring + at * options_.slot_bytes, bytes);
    done += bytes;
    in.streaming -= bytes;
    ++in.starts[at];
    const std::uint64_t start = in.read;
    in.read += slots;
    hold(peer, start, slots, true);
  }
  return done;
}

void Channels::hold(std::size_t peer, std::uint64_t start, std::uint64_t slots, bool freed,
                    std::size_t records) {
  in_[peer].held.push_back({start, slots, freed, records});
  if (freed) return_credit(peer);
}

void Channels::release(std::size_t peer, std::uint64_t start) {
  if (closed_) return;
  for (Held &held : in_[peer].held) {
    if (held.start == start) {
      held.freed = --held.records == 0;
      break;
    }
  }
  return_credit(peer);
}

void Channels::return_credit(std::size_t peer) {
  Inbound &in = in_[peer];
  while (!in.held.empty() && in.held.front().freed) {
    in.freed = in.held.front().start + in.held.front().slots;
    in.held.pop_front();
  }
  // Credit in whole batches: a zero-byte notified put per batch.
  const auto mine = static_cast<std::uint64_t>(index_at_peer_[peer]);
  while (in.freed - in.returned >= batch_) {
    check_mpi(MPI_Put_notify(nullptr, 0, MPI_BYTE, peers_[peer], 0, 0, MPI_BYTE,
                             static_cast<int>(ring_counter(mine, slots_)), ring_win_),
              "MPI_Put_notify (credit)");
    in.returned += batch_;
  }
}

}  // namespace mpinotify::detail
