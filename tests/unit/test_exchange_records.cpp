// The exchange's record codec and its checks (contract point 10), the order
// of one peer's records (points 4 and 8) and the forcing clock (point 6),
// without MPI.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "exchange/forcing_clock.hpp"
#include "exchange/record_codec.hpp"
#include "mpinotify/exchange.hpp"

namespace {

using mpinotify::ProtocolError;
using mpinotify::detail::decode_record;
using mpinotify::detail::DecodedRecord;
using mpinotify::detail::encode_record;
using mpinotify::detail::ForcingClock;
using mpinotify::detail::kRecordHeaderSize;
using mpinotify::detail::PeerRecordOrder;
using mpinotify::detail::RecordHeader;
using mpinotify::detail::RecordKind;
namespace record_flags = mpinotify::detail::record_flags;

constexpr int kPeer = 4;
constexpr int kOpId = 9;

RecordHeader message_header(std::uint64_t number, std::uint64_t metadata_length) {
  RecordHeader header;
  header.op_id = kOpId;
  header.number = number;
  header.metadata_length = metadata_length;
  return header;
}

// The text of the ProtocolError decoding `bytes` throws ("" if none).
std::string decode_error(const std::vector<std::byte> &bytes) {
  try {
    decode_record(bytes, kPeer, kOpId);
  } catch (const ProtocolError &error) {
    EXPECT_EQ(kPeer, error.peer());
    EXPECT_EQ(kOpId, error.op_id());
    return error.what();
  }
  return "";
}

TEST(RecordCodec, MessageRoundTrips_10) {
  RecordHeader header = message_header(7, 3);
  header.flags = record_flags::kHasPayload | record_flags::kPayloadPulled;
  header.payload_length = std::uint64_t{1} << 40;
  header.payload_location = 0x1122334455667788U;
  const std::vector<std::uint8_t> metadata = {10, 20, 30};
  const std::vector<std::byte> record = encode_record(header, metadata);
  ASSERT_EQ(kRecordHeaderSize + 3, record.size());
  EXPECT_EQ(std::byte{'M'}, record[0]) << "little-endian magic";
  const DecodedRecord decoded = decode_record(record, kPeer, kOpId);
  EXPECT_EQ(RecordKind::MESSAGE, decoded.header.kind);
  EXPECT_EQ(7U, decoded.header.number);
  EXPECT_TRUE(decoded.header.has_payload());
  EXPECT_FALSE(decoded.header.payload_inline());
  EXPECT_TRUE(decoded.header.payload_pulled());
  EXPECT_FALSE(decoded.header.payload_message());
  EXPECT_EQ(header.payload_length, decoded.header.payload_length);
  EXPECT_EQ(header.payload_location, decoded.header.payload_location);
  ASSERT_EQ(3U, decoded.metadata.size());
  EXPECT_EQ(0, std::memcmp(metadata.data(), decoded.metadata.data(), 3));
  EXPECT_TRUE(decoded.inline_payload.empty());

  header.flags = record_flags::kHasPayload | record_flags::kPayloadMessage;
  header.payload_location = 0;
  const DecodedRecord sent_apart = decode_record(encode_record(header, metadata), kPeer, kOpId);
  EXPECT_TRUE(sent_apart.header.payload_message());
  EXPECT_FALSE(sent_apart.header.payload_pulled());
}

TEST(RecordCodec, InlinePayloadAndEndMarkerRoundTrip_10) {
  RecordHeader header = message_header(0, 0);
  header.flags = record_flags::kHasPayload | record_flags::kPayloadInline;
  header.payload_length = 2;
  const std::byte payload[2] = {std::byte{5}, std::byte{6}};
  const std::vector<std::byte> with_payload = encode_record(header, {}, payload);
  const DecodedRecord decoded = decode_record(with_payload, kPeer, kOpId);  // points into it
  ASSERT_EQ(2U, decoded.inline_payload.size());
  EXPECT_EQ(std::byte{6}, decoded.inline_payload[1]);

  RecordHeader end;
  end.kind = RecordKind::END;
  end.op_id = kOpId;
  end.number = 12;
  const std::vector<std::byte> record = encode_record(end, {});
  EXPECT_EQ(kRecordHeaderSize, record.size());
  EXPECT_EQ(RecordKind::END, decode_record(record, kPeer, kOpId).header.kind);
  EXPECT_EQ(12U, decode_record(record, kPeer, kOpId).header.number);
}

TEST(RecordCodec, EveryFieldIsChecked_10) {
  const std::vector<std::byte> good =
      encode_record(message_header(0, 2), std::vector<std::uint8_t>{1, 2});
  EXPECT_EQ("", decode_error(good));
  const auto with_byte = [&](std::size_t at, std::uint8_t value) {
    std::vector<std::byte> bad = good;
    bad[at] = std::byte{value};
    return decode_error(bad);
  };
  const auto with_header = [](RecordHeader header, std::size_t body) {
    std::vector<std::byte> bad = encode_record(header, {});
    bad.resize(kRecordHeaderSize + body);
    return decode_error(bad);
  };
  const auto payload_header = [](std::uint8_t flags, std::uint64_t length) {
    RecordHeader header = message_header(0, 0);
    header.flags = flags;
    header.payload_length = length;
    return header;
  };
  const auto pulled_at = [&](std::uint8_t flags, std::uint64_t location) {
    RecordHeader header = payload_header(flags, 8);
    header.payload_location = location;
    return header;
  };
  RecordHeader end_with_location = message_header(0, 0);
  end_with_location.kind = RecordKind::END;
  end_with_location.payload_location = 1;
  const struct {
    std::string error;
    const char *expected;
  } cases[] = {
      {decode_error({}), "truncated record: 0 bytes"},
      {decode_error(std::vector<std::byte>(good.begin(), good.begin() + 47)),
       "truncated record: 47"},
      {with_byte(1, 0), "bad magic"},
      {with_byte(5, 1), "record version 257"},
      {with_byte(6, 0), "unknown record kind 0"},
      {with_byte(7, 16), "unknown flags 16"},
      {with_byte(7, record_flags::kPayloadInline), "a payload placement without a payload"},
      {with_byte(7, record_flags::kPayloadMessage), "a payload placement without a payload"},
      {with_header(payload_header(record_flags::kHasPayload | record_flags::kPayloadInline |
                                      record_flags::kPayloadMessage,
                                  0),
                   0),
       "a payload placed two ways"},
      {with_header(pulled_at(record_flags::kHasPayload, 64), 0),
       "payload location 64 of a payload not pulled"},
      {with_header(pulled_at(record_flags::kHasPayload | record_flags::kPayloadPulled, 0), 0),
       "a pulled payload without a location"},
      {with_byte(8, kOpId + 1), "record of op id 10"},
      {with_byte(15, 1), "reserved header bytes"},
      {with_header(message_header(0, 5), 2), "metadata length 5 past the end of a 50-byte record"},
      {with_header(message_header(0, 1), 2), "1 trailing bytes after the message"},
      {with_header(payload_header(0, 3), 0), "payload length 3 without the payload flag"},
      {with_header(payload_header(record_flags::kHasPayload, (std::uint64_t{1} << 48) + 1), 0),
       "above the most a host holds"},
      {with_header(payload_header(record_flags::kHasPayload | record_flags::kPayloadInline, 4), 3),
       "inline payload length 4 past the end"},
      {with_header(end_with_location, 0), "an end marker with metadata, payload or flags"},
  };
  for (const auto &c : cases) {
    EXPECT_NE(std::string::npos, c.error.find(c.expected))
        << "expected \"" << c.expected << "\" in \"" << c.error << "\"";
    EXPECT_NE(std::string::npos, c.error.find("rank 4")) << c.error;
    EXPECT_NE(std::string::npos, c.error.find("op id 9")) << c.error;
  }
}

std::string order_error(PeerRecordOrder &order, const RecordHeader &header) {
  try {
    order.accept(header, kPeer, kOpId);
  } catch (const ProtocolError &error) {
    return error.what();
  }
  return "";
}

RecordHeader end_header(std::uint64_t count) {
  RecordHeader header;
  header.kind = RecordKind::END;
  header.op_id = kOpId;
  header.number = count;
  return header;
}

TEST(PeerRecordOrder, MessagesInSequenceThenTheEnd_8) {
  PeerRecordOrder order;
  EXPECT_FALSE(order.complete());
  EXPECT_EQ("", order_error(order, message_header(0, 0)));
  EXPECT_NE(std::string::npos,
            order_error(order, message_header(2, 0)).find("sequence number 2, expected 1"));
  EXPECT_EQ("", order_error(order, message_header(1, 0)));
  EXPECT_EQ("", order_error(order, end_header(3)));
  EXPECT_FALSE(order.complete()) << "one announced message is still to come";
  EXPECT_EQ("", order_error(order, message_header(2, 0)));
  EXPECT_TRUE(order.complete());
  EXPECT_EQ(3U, order.received());
  EXPECT_NE(std::string::npos,
            order_error(order, message_header(3, 0)).find("after the end marker"));
  EXPECT_NE(std::string::npos, order_error(order, end_header(3)).find("a second end marker"));
}

TEST(PeerRecordOrder, EndBelowWhatArrivedIsRefused_8) {
  PeerRecordOrder order;
  EXPECT_EQ("", order_error(order, message_header(0, 0)));
  EXPECT_NE(std::string::npos,
            order_error(order, end_header(0)).find("end marker count 0 below the 1 messages"));
  PeerRecordOrder silent;
  EXPECT_EQ("", order_error(silent, end_header(0)));
  EXPECT_TRUE(silent.complete()) << "a peer that sent nothing is done at its end";
}

TEST(ForcingClock, ForcesOnceNoAllocationSucceededForTheTimeout_6) {
  using std::chrono::milliseconds;
  const ForcingClock::Clock::time_point t0{};
  ForcingClock clock(milliseconds(50));
  EXPECT_FALSE(clock.after_round(false, false, t0)) << "nothing waits";
  EXPECT_FALSE(clock.after_round(false, true, t0 + milliseconds(10))) << "the count starts";
  EXPECT_FALSE(clock.after_round(false, true, t0 + milliseconds(59)));
  EXPECT_TRUE(clock.after_round(false, true, t0 + milliseconds(60)));
  clock.after_forced(true, t0 + milliseconds(61));
  EXPECT_FALSE(clock.after_round(false, true, t0 + milliseconds(110))) << "restarted by forcing";
  EXPECT_FALSE(clock.after_round(true, true, t0 + milliseconds(112))) << "restarted by a success";
  EXPECT_FALSE(clock.after_round(false, true, t0 + milliseconds(161)));
  EXPECT_TRUE(clock.after_round(false, true, t0 + milliseconds(162)));
  EXPECT_FALSE(clock.after_round(false, false, t0 + milliseconds(500))) << "nothing waits";
  EXPECT_FALSE(clock.after_round(false, true, t0 + milliseconds(501))) << "a new wait, a new count";
}

TEST(ForcingClock, ZeroTimeoutForcesAtOnce_6) {
  ForcingClock clock(std::chrono::nanoseconds(0));
  const ForcingClock::Clock::time_point t0{};
  EXPECT_TRUE(clock.after_round(false, true, t0));
  EXPECT_TRUE(clock.after_round(true, true, t0));
  EXPECT_FALSE(clock.after_round(true, false, t0));
}

}  // namespace
