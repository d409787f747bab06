#include "record_codec.hpp"

#include <cstring>
#include <string>

#include "mpinotify/exchange.hpp"

namespace mpinotify {

ProtocolError::ProtocolError(int peer, int op_id, const std::string &problem)
    : std::runtime_error("mpinotify exchange (op id " + std::to_string(op_id) +
                         "): bad record from rank " + std::to_string(peer) + ": " + problem),
      peer_(peer),
      op_id_(op_id) {}

namespace detail {
namespace {

constexpr std::uint32_t kMagic = 0x52584E4D;  // "MNXR" in little-endian bytes

// Little-endian, whatever the host's order.
template <class T>
void put(std::byte *at, T value) noexcept {
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    at[i] = static_cast<std::byte>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xFFU);
  }
}

template <class T>
T get(const std::byte *at) noexcept {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    value |= static_cast<std::uint64_t>(std::to_integer<std::uint8_t>(at[i])) << (8 * i);
  }
  return static_cast<T>(value);
}

std::string kind_name(RecordKind kind) {
  return kind == RecordKind::END ? "end marker" : "message";
}

}  // namespace

RecordHeaderBytes encode_header(const RecordHeader &header) noexcept {
  RecordHeaderBytes bytes{};
  put<std::uint32_t>(&bytes[0], kMagic);
  put<std::uint16_t>(&bytes[4], kRecordVersion);
  put<std::uint8_t>(&bytes[6], static_cast<std::uint8_t>(header.kind));
  put<std::uint8_t>(&bytes[7], header.flags);
  put<std::uint32_t>(&bytes[8], static_cast<std::uint32_t>(header.op_id));
  put<std::uint32_t>(&bytes[12], 0);
  put<std::uint64_t>(&bytes[16], header.number);
  put<std::uint64_t>(&bytes[24], header.metadata_length);
  put<std::uint64_t>(&bytes[32], header.payload_length);
  put<std::uint64_t>(&bytes[40], header.payload_location);
  return bytes;
}

std::vector<std::byte> encode_record(const RecordHeader &header,
                                     std::span<const std::uint8_t> metadata,
                                     std::span<const std::byte> inline_payload) {
  std::vector<std::byte> record(kRecordHeaderSize + metadata.size() + inline_payload.size());
  const RecordHeaderBytes head = encode_header(header);
  std::memcpy(record.data(), head.data(), head.size());
  if (!metadata.empty()) {
    std::memcpy(record.data() + kRecordHeaderSize, metadata.data(), metadata.size());
  }
  if (!inline_payload.empty()) {
    std::memcpy(record.data() + kRecordHeaderSize + metadata.size(), inline_payload.data(),
                inline_payload.size());
  }
  return record;
}

DecodedRecord decode_record(std::span<const std::byte> bytes, int peer, int op_id) {
  const auto fail = [&](const std::string &problem) { throw ProtocolError(peer, op_id, problem); };
  if (bytes.size() < kRecordHeaderSize) {
    fail("truncated record: " + std::to_string(bytes.size()) + " bytes, the header alone needs " +
         std::to_string(kRecordHeaderSize));
  }
  const std::byte *at = bytes.data();
  if (get<std::uint32_t>(at) != kMagic) fail("bad magic (not an exchange record)");
  const auto version = get<std::uint16_t>(at + 4);
  if (version != kRecordVersion) {
    fail("record version " + std::to_string(version) + ", this library speaks " +
         std::to_string(kRecordVersion));
  }
  DecodedRecord record;
  RecordHeader &h = record.header;
  const auto kind = get<std::uint8_t>(at + 6);
  if (kind != static_cast<std::uint8_t>(RecordKind::MESSAGE) &&
      kind != static_cast<std::uint8_t>(RecordKind::END)) {
    fail("unknown record kind " + std::to_string(kind));
  }
  h.kind = static_cast<RecordKind>(kind);
  h.flags = get<std::uint8_t>(at + 7);
  h.op_id = static_cast<std::int32_t>(get<std::uint32_t>(at + 8));
  h.number = get<std::uint64_t>(at + 16);
  h.metadata_length = get<std::uint64_t>(at + 24);
  h.payload_length = get<std::uint64_t>(at + 32);
  h.payload_location = get<std::uint64_t>(at + 40);
  if (h.op_id != op_id) fail("record of op id " + std::to_string(h.op_id));
  if (get<std::uint32_t>(at + 12) != 0) fail("reserved header bytes are not zero");
  if ((h.flags & ~record_flags::kAll) != 0) fail("unknown flags " + std::to_string(h.flags));
  if (h.kind == RecordKind::END &&
      (h.flags != 0 || h.metadata_length != 0 || h.payload_location != 0)) {
    fail("an end marker with metadata, payload or flags");
  }
  const std::uint8_t placement = h.flags & record_flags::kPlacement;
  if (placement != 0 && !h.has_payload()) fail("flags: a payload placement without a payload");
  if ((placement & (placement - 1)) != 0) fail("flags: a payload placed two ways");
  if (h.payload_location != 0 && !h.payload_pulled()) {
    fail("payload location " + std::to_string(h.payload_location) + " of a payload not pulled");
  }
  if (h.payload_pulled() && h.payload_location == 0) fail("a pulled payload without a location");
  if (h.payload_length > 0 && !h.has_payload()) {
    fail("payload length " + std::to_string(h.payload_length) + " without the payload flag");
  }
  if (h.payload_length > kMaxPayloadLength) {
    fail("payload length " + std::to_string(h.payload_length) + " above the most a host holds (" +
         std::to_string(kMaxPayloadLength) + ")");
  }
  const std::size_t body = bytes.size() - kRecordHeaderSize;
  if (h.metadata_length > body) {
    fail("metadata length " + std::to_string(h.metadata_length) + " past the end of a " +
         std::to_string(bytes.size()) + "-byte record");
  }
  const std::size_t metadata_length = static_cast<std::size_t>(h.metadata_length);
  const std::size_t inline_length =
      h.payload_inline() ? static_cast<std::size_t>(h.payload_length) : 0;
  if (inline_length > body - metadata_length) {
    fail("inline payload length " + std::to_string(inline_length) + " past the end of a " +
         std::to_string(bytes.size()) + "-byte record");
  }
  if (body != metadata_length + inline_length) {
    fail(std::to_string(body - metadata_length - inline_length) + " trailing bytes after the " +
         kind_name(h.kind));
  }
  record.metadata = bytes.subspan(kRecordHeaderSize, metadata_length);
  record.inline_payload = bytes.subspan(kRecordHeaderSize + metadata_length, inline_length);
  return record;
}

void PeerRecordOrder::accept(const RecordHeader &header, int peer, int op_id) {
  const auto fail = [&](const std::string &problem) { throw ProtocolError(peer, op_id, problem); };
  if (header.kind == RecordKind::END) {
    if (announced_) fail("a second end marker");
    if (header.number < received_) {
      fail("end marker count " + std::to_string(header.number) + " below the " +
           std::to_string(received_) + " messages already received");
    }
    announced_ = header.number;
    return;
  }
  if (announced_ && received_ >= *announced_) {
    fail("a message after the end marker, which announced " + std::to_string(*announced_));
  }
  if (header.number != received_) {
    fail("sequence number " + std::to_string(header.number) + ", expected " +
         std::to_string(received_));
  }
  ++received_;
}

}  // namespace detail
}  // namespace mpinotify
