// Contract points 1 (Message), 2 (receive memory from the BufferResource)
// and 4 (send: peers only, whole batches, per-peer order).
#include <algorithm>
#include <map>

#include "exchange_harness.hpp"

namespace exchtest {
namespace {

using mpinotify::AfterSend;
using mpinotify::MemoryType;

class ExchangeMessages : public ExchangeTest {};

// A received message carries its source, metadata and payload, and gives
// them up as Message promises.
TEST_P(ExchangeMessages, MessageCarriesAndReleasesItsParts_1) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  auto exchange = make(1, {.peers = neighbours()});
  auto payloads = roomy_resource();
  exchange->send(std::make_unique<Message>(right(), stamp({1, rank(), 0}, 5),
                                           pattern_buffer(*payloads, rank(), 0, 300)));
  Messages got;
  ASSERT_TRUE(receive_count(*exchange, 1, got, "the left neighbour's message"));
  ASSERT_EQ(1U, got.size());
  Message &message = *got[0];
  EXPECT_EQ(left(), message.peer_rank());
  EXPECT_EQ(stamp({1, left(), 0}, 5), message.metadata());
  ASSERT_NE(nullptr, message.data());
  EXPECT_EQ(pattern(left(), 0, 300), bytes_of(*message.data()));
  EXPECT_FALSE(message.forced());
  EXPECT_EQ(AfterSend::DISCARD, message.after_send());

  EXPECT_EQ(stamp({1, left(), 0}, 5), message.release_metadata());
  EXPECT_TRUE(message.metadata().empty());
  std::unique_ptr<Buffer> payload = message.release_data();
  EXPECT_EQ(nullptr, message.data());
  ASSERT_NE(nullptr, payload);
  message.set_data(std::move(payload));
  EXPECT_NE(nullptr, message.data());
  EXPECT_THROW(message.set_data(pattern_buffer(*payloads, 0, 0, 8)), std::logic_error);

  Drained rest;
  EXPECT_TRUE(finish_and_drain(*exchange, rest, "the ring"));
  EXPECT_TRUE(rest.received.empty());
}

// Receive buffers come from the exchange's resource (default allocator):
// counted in in_use() while held, returned when dropped; sent DISCARD
// payloads go back to theirs once their send completed.
TEST_P(ExchangeMessages, ReceiveMemoryComesFromTheResource_2) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  constexpr std::size_t kPayload = 64 * 1024;
  constexpr int kCount = 4;
  auto receiving = BufferResource::create({.host_limit = 1 << 20});
  auto sending = roomy_resource();
  auto exchange = make(1, {.peers = neighbours(), .resource = receiving});
  for (int i = 0; i < kCount; ++i) {
    exchange->send(std::make_unique<Message>(right(), stamp({1, rank(), i}),
                                             pattern_buffer(*sending, rank(), i, kPayload)));
  }
  EXPECT_EQ(kCount * kPayload, sending->in_use());
  Drained drained;
  ASSERT_TRUE(finish_and_drain(*exchange, drained, "the ring"));
  ASSERT_EQ(std::size_t{kCount}, drained.received.size());
  for (const auto &message : drained.received) {
    ASSERT_NE(nullptr, message->data());
    EXPECT_EQ(MemoryType::HOST, message->data()->mem_type());
    EXPECT_TRUE(message->data()->in_memory());
  }
  EXPECT_EQ(kCount * kPayload, receiving->in_use());
  EXPECT_EQ(0U, sending->in_use()) << "sent payloads outlived their sends";
  drained.received.clear();
  EXPECT_EQ(0U, receiving->in_use());
}

// Only peers may be sent to; a batch with one bad message sends none and
// leaves every message with the caller; the exchange stays usable.
TEST_P(ExchangeMessages, SendRefusesNonPeersAndSendsNothing_4) {
  auto exchange = make(1, {.peers = neighbours()});
  const auto refused = [&](int to) {
    auto message = std::make_unique<Message>(to, stamp({1, rank(), 0}));
    EXPECT_THROW(exchange->send(std::move(message)), std::invalid_argument) << "to rank " << to;
    EXPECT_NE(nullptr, message) << "a refused message left the caller";
  };
  refused(rank());
  refused(size());
  refused(-1);
  if (size() >= 4) refused((rank() + 2) % size());  // not a ring neighbour
  Messages batch;
  if (size() >= 2) batch.push_back(std::make_unique<Message>(right(), stamp({1, rank(), 0})));
  batch.push_back(std::make_unique<Message>(rank(), stamp({1, rank(), 1})));
  EXPECT_THROW(exchange->send(std::move(batch)), std::invalid_argument);
  EXPECT_EQ(size() >= 2 ? 2U : 1U, batch.size());
  EXPECT_TRUE(std::ranges::all_of(batch, [](const auto &m) { return m != nullptr; }));
  Messages with_null;
  with_null.push_back(nullptr);
  EXPECT_THROW(exchange->send(std::move(with_null)), std::invalid_argument);

  Drained drained;
  EXPECT_TRUE(finish_and_drain(*exchange, drained, "an exchange that sent nothing"));
  EXPECT_TRUE(drained.received.empty()) << "a refused batch sent something";
}

// A payload in a memory type the destination cannot receive is refused.
TEST_P(ExchangeMessages, UnsendableMemoryTypeIsRefused_4) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  ScratchDir dir;
  auto resource = BufferResource::create({.host_limit = 1 << 20, .spill_directory = dir.path()});
  auto exchange = make(1, {.peers = neighbours()});
  const std::vector<MemoryType> sendable = exchange->sendable_memory_types();
  EXPECT_NE(sendable.end(), std::ranges::find(sendable, MemoryType::HOST));
  if (std::ranges::find(sendable, MemoryType::DISK) == sendable.end()) {
    auto on_disk = resource->spill(pattern_buffer(*resource, rank(), 0, 100));
    ASSERT_EQ(MemoryType::DISK, on_disk->mem_type());
    EXPECT_THROW(exchange->send(
                     std::make_unique<Message>(right(), stamp({1, rank(), 0}), std::move(on_disk))),
                 std::invalid_argument);
  }
  Drained drained;
  EXPECT_TRUE(finish_and_drain(*exchange, drained, "an exchange that sent nothing"));
  EXPECT_TRUE(drained.received.empty());
}

TEST_P(ExchangeMessages, SendAfterFinishIsRefused_4) {
  auto exchange = make(1, {.peers = neighbours()});
  exchange->finish();
  EXPECT_THROW(exchange->send(std::make_unique<Message>(right(), stamp({1, rank(), 0}))),
               std::logic_error);
  Messages batch;
  batch.push_back(std::make_unique<Message>(right(), stamp({1, rank(), 1})));
  EXPECT_THROW(exchange->send(std::move(batch)), std::logic_error);
  Drained drained;
  EXPECT_TRUE(finish_and_drain(*exchange, drained, "a finished exchange"));
  EXPECT_TRUE(drained.received.empty());
}

// Around the ring: metadata only, empty metadata, the single-message
// overload, a batch, then alternating shapes; each arrives as sent, in
// order.
TEST_P(ExchangeMessages, RingCarriesEveryShapeInOrder_4) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  auto exchange = make(1, {.peers = neighbours()});
  auto payloads = roomy_resource();
  // Index -> payload size, or -1 for none; index 1 has empty metadata.
  const std::vector<int> shape = {-1, -1, 512, 1024, 1024, -1, 200, -1, 400, -1, 600};
  const auto message = [&](int i) {
    std::vector<std::uint8_t> metadata =
        i == 1 ? std::vector<std::uint8_t>{} : stamp({1, rank(), i});
    std::unique_ptr<Buffer> payload;
    if (shape[i] >= 0) payload = pattern_buffer(*payloads, rank(), i, std::size_t(shape[i]));
    return std::make_unique<Message>(right(), std::move(metadata), std::move(payload));
  };
  exchange->send(message(0));
  exchange->send(message(1));
  exchange->send(message(2));
  Messages batch;
  batch.push_back(message(3));
  batch.push_back(message(4));
  exchange->send(std::move(batch));
  for (int i = 5; i < int(shape.size()); ++i) exchange->send(message(i));

  Drained drained;
  ASSERT_TRUE(finish_and_drain(*exchange, drained, "the ring"));
  ASSERT_EQ(shape.size(), drained.received.size());
  for (int i = 0; i < int(shape.size()); ++i) {
    const Message &got = *drained.received[std::size_t(i)];
    EXPECT_EQ(left(), got.peer_rank());
    if (i == 1) {
      EXPECT_TRUE(got.metadata().empty());
    } else {
      EXPECT_EQ(stamp({1, left(), i}), got.metadata()) << "message " << i << " out of order";
    }
    if (shape[std::size_t(i)] < 0) {
      EXPECT_EQ(nullptr, got.data()) << "message " << i;
    } else {
      ASSERT_NE(nullptr, got.data()) << "message " << i;
      EXPECT_EQ(pattern(left(), i, std::size_t(shape[std::size_t(i)])), bytes_of(*got.data()));
    }
  }
}

// Every rank to every other: sizes from none to 200 KiB, singles and
// batches interleaved across destinations; each source's messages arrive
// complete and in order (nothing is assumed across sources).
TEST_P(ExchangeMessages, AllToAllKeepsPerPeerOrder_4) {
  constexpr int kPerPeer = 24;
  const auto size_of = [](int from, int to, int i) -> long {
    const long sizes[] = {-1, 0, 17, 1024, 2048, 65536, 200 * 1024, -1};
    return sizes[(from * 5 + to * 3 + i) % 8];
  };
  auto exchange = make(1, {.peers = all_others()});
  auto payloads = roomy_resource();
  for (int i = 0; i < kPerPeer; ++i) {
    Messages batch;
    for (const int to : all_others()) {
      const long bytes = size_of(rank(), to, i);
      auto message = std::make_unique<Message>(
          to, stamp({1, rank(), i}),
          bytes < 0 ? nullptr : pattern_buffer(*payloads, rank(), i, std::size_t(bytes)));
      if (i % 3 == 0) {
        exchange->send(std::move(message));
      } else {
        batch.push_back(std::move(message));
      }
    }
    exchange->send(std::move(batch));
  }
  Drained drained;
  ASSERT_TRUE(finish_and_drain(*exchange, drained, "the all-to-all"));
  std::map<int, int> next;  // source -> next expected index
  for (const auto &message : drained.received) {
    const int from = message->peer_rank();
    const int i = next[from]++;
    ASSERT_EQ(Stamp({1, from, i}), read_stamp(message->metadata())) << "from rank " << from;
    const long bytes = size_of(from, rank(), i);
    if (bytes < 0) {
      EXPECT_EQ(nullptr, message->data());
    } else {
      ASSERT_NE(nullptr, message->data());
      EXPECT_EQ(pattern(from, i, std::size_t(bytes)), bytes_of(*message->data()));
    }
  }
  for (const int from : all_others()) EXPECT_EQ(kPerPeer, next[from]) << "from rank " << from;
}

// Rank 0 sends one message to every other rank in one batch: busy right
// after, nothing comes back to it, each receiver gets exactly one.
TEST_P(ExchangeMessages, BroadcastReachesEveryPeerOnce_4) {
  const std::vector<int> peers = rank() == 0 ? all_others() : std::vector<int>{0};
  auto exchange = make(1, {.peers = peers});
  auto payloads = roomy_resource();
  if (rank() == 0) {
    EXPECT_TRUE(exchange->is_idle());
    Messages batch;
    for (const int to : peers) {
      batch.push_back(
          std::make_unique<Message>(to, stamp({1, 0, 0}), pattern_buffer(*payloads, 0, 0, 2048)));
    }
    exchange->send(std::move(batch));
    if (size() > 1) {
      EXPECT_FALSE(exchange->is_idle());
    }
    for (int round = 0; round < 5; ++round) {
      exchange->progress();
      EXPECT_TRUE(exchange->recv().empty());
    }
  }
  Drained drained;
  ASSERT_TRUE(finish_and_drain(*exchange, drained, "the broadcast"));
  if (rank() == 0) {
    EXPECT_TRUE(drained.received.empty());
    return;
  }
  ASSERT_EQ(1U, drained.received.size());
  EXPECT_EQ(0, drained.received[0]->peer_rank());
  EXPECT_EQ(stamp({1, 0, 0}), drained.received[0]->metadata());
  ASSERT_NE(nullptr, drained.received[0]->data());
  EXPECT_EQ(pattern(0, 0, 2048), bytes_of(*drained.received[0]->data()));
}

// A zero-byte payload is still a payload: it arrives as an empty buffer,
// without asking the allocator.
TEST_P(ExchangeMessages, ZeroBytePayloadArrivesAsEmptyBuffer_4) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  auto calls = std::make_shared<int>(0);
  auto allocate = [calls](BufferResource &resource, std::size_t bytes,
                          mpinotify::AllocationMode mode) {
    ++*calls;
    return mpinotify::default_allocate_fn()(resource, bytes, mode);
  };
  auto exchange = make(1, {.peers = neighbours(), .allocate = allocate});
  auto payloads = roomy_resource();
  exchange->send(
      std::make_unique<Message>(right(), stamp({1, rank(), 0}), payloads->make_host_buffer({})));
  Drained drained;
  ASSERT_TRUE(finish_and_drain(*exchange, drained, "the ring"));
  ASSERT_EQ(1U, drained.received.size());
  ASSERT_NE(nullptr, drained.received[0]->data()) << "the empty payload was lost";
  EXPECT_EQ(0U, drained.received[0]->data()->size());
  EXPECT_TRUE(drained.received[0]->data()->in_memory());
  EXPECT_EQ(0, *calls);
}

INSTANTIATE_TEST_SUITE_P(Kinds, ExchangeMessages, testing::ValuesIn(kKinds), kind_name);

}  // namespace
}  // namespace exchtest
