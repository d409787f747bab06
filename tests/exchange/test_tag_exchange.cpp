// What only the tag-based implementation has: payloads cut into chunks
// (made small here, so that the path that keeps every size within MPI's int
// counts runs without gigabytes), its own constructor, no inline payloads.
#include "exchange/tag_exchange.hpp"
#include "exchange_harness.hpp"

namespace exchtest {
namespace {

namespace detail = mpinotify::detail;

class TagExchange : public ExchangeTest {
 protected:
  std::unique_ptr<MetadataPayloadExchange> make_chunked(int op_id, std::size_t chunk_bytes) const {
    return std::make_unique<detail::TagExchange>(
        detail::check_setup(comm(), op_id, neighbours(), mpinotify::default_allocate_fn(),
                            kNoForcing, roomy_resource(), {}),
        detail::TagOptions{.chunk_bytes = chunk_bytes});
  }
};

TEST_P(TagExchange, PayloadsAboveTheChunkSizeArriveWhole_4) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  const std::vector<std::size_t> sizes = {10007, 1000, 999, 0, 3000, 1};
  auto exchange = make_chunked(1, 1000);
  auto payloads = roomy_resource();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    exchange->send(std::make_unique<Message>(right(), stamp({1, rank(), int(i)}),
                                             pattern_buffer(*payloads, rank(), int(i), sizes[i])));
  }
  Drained drained;
  ASSERT_TRUE(finish_and_drain(*exchange, drained, "the ring"));
  ASSERT_EQ(sizes.size(), drained.received.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const Message &got = *drained.received[i];
    EXPECT_EQ(Stamp({1, left(), int(i)}), read_stamp(got.metadata()));
    ASSERT_NE(nullptr, got.data());
    EXPECT_EQ(pattern(left(), int(i), sizes[i]), bytes_of(*got.data())) << "message " << i;
  }
}

TEST_P(TagExchange, ConstructorChecksItsArguments_3) {
  const auto construct = [&](std::vector<int> peers) {
    detail::TagExchange exchange(comm(), 1, std::move(peers), mpinotify::default_allocate_fn(),
                                 kNoForcing, roomy_resource());
  };
  EXPECT_THROW(construct({rank()}), std::invalid_argument);
  EXPECT_THROW(construct({size()}), std::out_of_range);
}

// The tag implementation never carries a payload in the record; a record
// that says so is refused when its payload would be received.
TEST_P(TagExchange, InlinePayloadIsRefused_10) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  auto exchange = make(1, {.peers = neighbours()});
  detail::RecordHeader header;
  header.op_id = 1;
  header.flags = detail::record_flags::kHasPayload | detail::record_flags::kPayloadInline;
  header.payload_length = 4;
  const std::byte inline_payload[4] = {};
  mpinotify::testing::inject_raw_record(*exchange, right(),
                                        detail::encode_record(header, {}, inline_payload));
  const auto error = progress_until_thrown<mpinotify::ProtocolError>(*exchange, "the error");
  ASSERT_TRUE(error);
  EXPECT_NE(std::string::npos, std::string(error->what()).find("inline payload")) << error->what();
  testing::internal::CaptureStderr();
  exchange.reset();
  testing::internal::GetCapturedStderr();
}

INSTANTIATE_TEST_SUITE_P(Tag, TagExchange, testing::Values(ExchangeKind::TAG), kind_name);

}  // namespace
}  // namespace exchtest
