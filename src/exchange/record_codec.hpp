// The record every implementation sends ahead of a message's payload (and
// as the end marker of finish()): a fixed 48-byte little-endian header,
// then the metadata, then (only where the transport carries it inline) the
// payload. The receiver checks every field, so a corrupt or truncated
// record is a ProtocolError naming the peer and the field, never a crash.
//
//   offset  size  field
//        0     4  magic "MNXR"
//        4     2  version (1)
//        6     1  kind: 1 message, 2 end marker
//        7     1  flags: bit 0 has payload, then at most one of: bit 1
//                 payload inline, bit 2 payload pulled by the receiver,
//                 bit 3 payload sent as a message of its own
//        8     4  op id (signed)
//       12     4  reserved, 0
//       16     8  message: its number from this sender (0, 1, ...);
//                 end marker: how many messages the sender sent
//       24     8  metadata length
//       32     8  payload length
//       40     8  payload location: where a pulled payload lies at the
//                 sender (the notified exchange); 0 otherwise
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace mpinotify::detail {

inline constexpr std::size_t kRecordHeaderSize = 48;
inline constexpr std::uint16_t kRecordVersion = 1;
// A payload length no host can hold: larger ones are corrupt.
inline constexpr std::uint64_t kMaxPayloadLength = std::uint64_t{1} << 48;

enum class RecordKind : std::uint8_t { MESSAGE = 1, END = 2 };

namespace record_flags {
inline constexpr std::uint8_t kHasPayload = 1;
inline constexpr std::uint8_t kPayloadInline = 2;
inline constexpr std::uint8_t kPayloadPulled = 4;
inline constexpr std::uint8_t kPayloadMessage = 8;
inline constexpr std::uint8_t kPlacement = kPayloadInline | kPayloadPulled | kPayloadMessage;
inline constexpr std::uint8_t kAll = kHasPayload | kPlacement;
}  // namespace record_flags

struct RecordHeader {
  RecordKind kind = RecordKind::MESSAGE;
  std::uint8_t flags = 0;
  std::int32_t op_id = 0;
  std::uint64_t number = 0;  // sequence number, or the count of an end marker
  std::uint64_t metadata_length = 0;
  std::uint64_t payload_length = 0;
  std::uint64_t payload_location = 0;

  bool has_payload() const noexcept { return (flags & record_flags::kHasPayload) != 0; }
  bool payload_inline() const noexcept { return (flags & record_flags::kPayloadInline) != 0; }
  bool payload_pulled() const noexcept { return (flags & record_flags::kPayloadPulled) != 0; }
  bool payload_message() const noexcept { return (flags & record_flags::kPayloadMessage) != 0; }
};

using RecordHeaderBytes = std::array<std::byte, kRecordHeaderSize>;

RecordHeaderBytes encode_header(const RecordHeader &header) noexcept;
// Header, metadata and, for an inline payload, the payload.
std::vector<std::byte> encode_record(const RecordHeader &header,
                                     std::span<const std::uint8_t> metadata,
                                     std::span<const std::byte> inline_payload = {});

struct DecodedRecord {
  RecordHeader header;
  std::span<const std::byte> metadata;
  std::span<const std::byte> inline_payload;  // empty unless payload_inline()
};

// Parses and checks one record that came from `peer` to the exchange of
// `op_id` (fields, lengths, op id; not the order: PeerRecordOrder).
// Throws ProtocolError. The spans point into `bytes`.
DecodedRecord decode_record(std::span<const std::byte> bytes, int peer, int op_id);

// The order of one peer's records: messages numbered 0, 1, ... and at most
// one end marker announcing how many there are.
class PeerRecordOrder {
 public:
  // Checks `header` (decoded from `peer`) against the records before it
  // and counts it; throws ProtocolError.
  void accept(const RecordHeader &header, int peer, int op_id);
  std::uint64_t received() const noexcept { return received_; }
  const std::optional<std::uint64_t> &announced() const noexcept { return announced_; }
  // The end marker came and every message it announced.
  bool complete() const noexcept { return announced_ && received_ == *announced_; }

 private:
  std::uint64_t received_ = 0;
  std::optional<std::uint64_t> announced_;
};

}  // namespace mpinotify::detail
