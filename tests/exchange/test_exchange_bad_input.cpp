// Contract point 10: a malformed, truncated or out-of-order record, put on
// the real receive path with the test hook, is a ProtocolError naming the
// peer and what was wrong; the exchange is unusable afterwards, and nothing
// crashes (the sanitizer builds run this too). Rank 0 injects into rank 1.
#include <cstring>

#include "exchange/record_codec.hpp"
#include "exchange_harness.hpp"

namespace exchtest {
namespace {

using mpinotify::ProtocolError;
namespace detail = mpinotify::detail;

struct BadRecord {
  const char *name;
  // The records rank 0 injects, given the op id.
  std::function<std::vector<std::vector<std::byte>>(int op_id)> records;
  const char *expected;  // in the error's text
};

std::vector<std::byte> message_record(int op_id, std::uint64_t number,
                                      std::vector<std::uint8_t> metadata = {1, 2, 3}) {
  detail::RecordHeader header;
  header.op_id = op_id;
  header.number = number;
  header.metadata_length = metadata.size();
  return detail::encode_record(header, metadata);
}

std::vector<std::byte> end_record(int op_id, std::uint64_t count) {
  detail::RecordHeader header;
  header.kind = detail::RecordKind::END;
  header.op_id = op_id;
  header.number = count;
  return detail::encode_record(header, {});
}

// A valid first message with one byte at `offset` set to `value`.
std::vector<std::byte> patched(int op_id, std::size_t offset, std::uint8_t value) {
  std::vector<std::byte> record = message_record(op_id, 0);
  record[offset] = std::byte{value};
  return record;
}

std::vector<std::byte> with_header(int op_id,
                                   const std::function<void(detail::RecordHeader &)> &edit,
                                   std::size_t body_bytes = 3) {
  detail::RecordHeader header;
  header.op_id = op_id;
  header.metadata_length = 3;
  edit(header);
  std::vector<std::byte> record(detail::kRecordHeaderSize + body_bytes);
  const detail::RecordHeaderBytes head = detail::encode_header(header);
  std::memcpy(record.data(), head.data(), head.size());
  return record;
}

using Records = std::vector<std::vector<std::byte>>;

const std::vector<BadRecord> &bad_records() {
  static const std::vector<BadRecord> cases = {
      {"empty", [](int) { return Records{{}}; }, "truncated record: 0 bytes"},
      {"short header",
       [](int op) {
         std::vector<std::byte> record = message_record(op, 0);
         record.resize(10);
         return Records{record};
       },
       "truncated record: 10 bytes"},
      {"magic", [](int op) { return Records{patched(op, 0, 0x00)}; }, "bad magic"},
      {"version", [](int op) { return Records{patched(op, 4, 9)}; }, "record version 9"},
      {"kind", [](int op) { return Records{patched(op, 6, 7)}; }, "unknown record kind 7"},
      {"flags", [](int op) { return Records{patched(op, 7, 0x80)}; }, "unknown flags 128"},
      {"reserved", [](int op) { return Records{patched(op, 13, 1)}; }, "reserved header bytes"},
      {"op id", [](int op) { return Records{message_record(op + 1, 0)}; }, "record of op id"},
      {"metadata length",
       [](int op) { return Records{with_header(op, [](auto &h) { h.metadata_length = 100; })}; },
       "metadata length 100 past the end"},
      {"payload length",
       [](int op) {
         return Records{with_header(op, [](auto &h) {
           h.flags = detail::record_flags::kHasPayload;
           h.payload_length = std::uint64_t{1} << 62;
         })};
       },
       "payload length 4611686018427387904 above"},
      {"payload without flag",
       [](int op) { return Records{with_header(op, [](auto &h) { h.payload_length = 5; })}; },
       "without the payload flag"},
      {"trailing bytes",
       [](int op) {
         return Records{with_header(
             op, [](auto &) {}, 5)};
       },
       "2 trailing bytes"},
      {"sequence", [](int op) { return Records{message_record(op, 5)}; },
       "sequence number 5, expected 0"},
      {"repeated message",
       [](int op) {
         return Records{message_record(op, 0), message_record(op, 0)};
       },
       "sequence number 0, expected 1"},
      {"end count below",
       [](int op) {
         return Records{message_record(op, 0), end_record(op, 0)};
       },
       "end marker count 0 below the 1 messages"},
      {"end with metadata",
       [](int op) {
         return Records{with_header(op, [](auto &h) { h.kind = detail::RecordKind::END; })};
       },
       "an end marker with metadata"},
  };
  return cases;
}

class ExchangeBadInput : public ExchangeTest {};

TEST_P(ExchangeBadInput, MalformedRecordsGiveClearErrors_10) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  const std::vector<int> peers = rank() == 0   ? std::vector<int>{1}
                                 : rank() == 1 ? std::vector<int>{0}
                                               : std::vector<int>{};
  int op_id = 100;
  for (const BadRecord &bad : bad_records()) {
    SCOPED_TRACE(bad.name);
    ++op_id;  // a fresh op id per case: nothing of the last one is read
    auto exchange = make(op_id, {.peers = peers});
    if (rank() == 0) {
      for (const auto &record : bad.records(op_id)) {
        mpinotify::testing::inject_raw_record(*exchange, 1, record);
      }
    }
    if (rank() == 1) {
      const auto error = progress_until_thrown<ProtocolError>(
          *exchange, std::string("the error about: ") + bad.name);
      if (error) {
        const std::string what = error->what();
        EXPECT_EQ(0, error->peer());
        EXPECT_EQ(op_id, error->op_id());
        EXPECT_NE(std::string::npos, what.find("rank 0")) << what;
        EXPECT_NE(std::string::npos, what.find(bad.expected)) << what;
        EXPECT_THROW(exchange->progress(), std::logic_error) << "usable after a bad record";
      }
    }
    testing::internal::CaptureStderr();
    if (rank() >= 2) exchange->finish();
    exchange.reset();  // ranks 0 and 1 warn: never finished, or unusable
    testing::internal::GetCapturedStderr();
    MPI_Barrier(comm());
  }
}

// The hook refuses what it cannot do.
TEST_P(ExchangeBadInput, InjectionGoesToPeersOnly_10) {
  auto exchange = make(1, {.peers = neighbours()});
  const std::vector<std::byte> record = message_record(1, 0);
  EXPECT_THROW(mpinotify::testing::inject_raw_record(*exchange, rank(), record),
               std::invalid_argument);
  Drained drained;
  EXPECT_TRUE(finish_and_drain(*exchange, drained, "an exchange that sent nothing"));
}

INSTANTIATE_TEST_SUITE_P(Kinds, ExchangeBadInput, testing::ValuesIn(kKinds), kind_name);

}  // namespace
}  // namespace exchtest
