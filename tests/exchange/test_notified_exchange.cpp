// What only the notified implementation has: its rings, made tiny here so
// that a few hundred messages wrap them many times, records larger than a
// quarter of the ring go as fragments, small records queued together go as
// batches and payloads above the inline size stream through the ring in
// chunks, some larger than the ring; the peer lists must be symmetric.
#include <map>
#include <random>

#include "exchange/notified_exchange.hpp"
#include "exchange_harness.hpp"

namespace exchtest {
namespace {

namespace detail = mpinotify::detail;

class NotifiedExchange : public ExchangeTest {
 protected:
  std::unique_ptr<MetadataPayloadExchange> make_small(
      int op_id, std::vector<int> peers, detail::Batching batching = detail::Batching::ALWAYS,
      detail::RouteOptions routes = {}) const {
    return std::make_unique<detail::NotifiedExchange>(
        detail::check_setup(comm(), op_id, std::move(peers), mpinotify::default_allocate_fn(),
                            kNoForcing, roomy_resource(), {}),
        detail::NotifiedOptions{.ring_bytes = 4096,
                                .slot_bytes = 64,
                                .inline_payload_bytes = 256,
                                .batching = batching,
                                .routes = routes});
  }
};

// Sizes the sender and the receiver of one message agree on.
std::size_t metadata_size(int sender, int index) {
  std::mt19937 random(static_cast<unsigned>(sender * 7919 + index));
  return std::uniform_int_distribution<std::size_t>(0, 3000)(random);
}
std::size_t payload_size(int sender, int index) {
  std::mt19937 random(static_cast<unsigned>(sender * 104729 + index + 1));
  const std::size_t size = std::uniform_int_distribution<std::size_t>(0, 2000)(random);
  return size % 5 == 0 ? 0 : size;  // some without payload
}

// Every message the shuffle below sent: whole and in order from each peer.
void expect_all_in_order(const Drained &drained, const std::vector<int> &peers, int op_id,
                         int messages) {
  std::map<int, int> next;  // per sender: the index expected next
  for (const auto &got : drained.received) {
    const auto seen = read_stamp(got->metadata());
    ASSERT_TRUE(seen) << "metadata without its stamp";
    const int i = next[got->peer_rank()]++;
    ASSERT_EQ(Stamp({op_id, got->peer_rank(), i}), *seen)
        << "out of order from " << got->peer_rank();
    EXPECT_EQ(stamp({op_id, got->peer_rank(), i}, metadata_size(got->peer_rank(), i)),
              got->metadata());
    const std::size_t bytes = payload_size(got->peer_rank(), i);
    if (bytes == 0 && i % 2 == 0) {
      EXPECT_EQ(nullptr, got->data()) << "message " << i << " from " << got->peer_rank();
    } else {
      ASSERT_NE(nullptr, got->data()) << "message " << i << " from " << got->peer_rank();
      EXPECT_EQ(pattern(got->peer_rank(), i, bytes), bytes_of(*got->data()))
          << "message " << i << " from " << got->peer_rank();
    }
  }
  for (const int peer : peers) EXPECT_EQ(messages, next[peer]) << "from " << peer;
}

std::unique_ptr<Message> shuffled_message(
    int op_id, int from, int to, int index, BufferResource &payloads,
    mpinotify::AfterSend after_send = mpinotify::AfterSend::DISCARD) {
  const std::size_t bytes = payload_size(from, index);
  return std::make_unique<Message>(
      to, stamp({op_id, from, index}, metadata_size(from, index)),
      bytes == 0 && index % 2 == 0 ? nullptr : pattern_buffer(payloads, from, index, bytes),
      after_send);
}

// Sends `messages` shuffled messages to every peer, one send() each with
// progress between (sends wait for credit: progress frees it), then
// finishes, drains and checks that all arrived whole and in order.
void shuffle_one_at_a_time(MetadataPayloadExchange &exchange, int op_id, int me,
                           const std::vector<int> &peers, int messages, const char *what) {
  auto payloads = roomy_resource();
  for (int i = 0; i < messages; ++i) {
    for (const int peer : peers) exchange.send(shuffled_message(op_id, me, peer, i, *payloads));
    exchange.progress();
  }
  Drained drained;
  ASSERT_TRUE(finish_and_drain(exchange, drained, what));
  expect_all_in_order(drained, peers, op_id, messages);
}

// Every message of every peer arrives whole and in order through rings
// far smaller than what crosses them, one send() at a time, with and
// without batches (sends queue while credit is short).
TEST_P(NotifiedExchange, TinyRingsWrapFragmentAndReuseSlots_4) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  constexpr int kMessages = 300;
  const std::vector<int> peers = all_others();
  int op_id = 3;
  for (const auto batching : {detail::Batching::NEVER, detail::Batching::ALWAYS}) {
    auto exchange = make_small(op_id, peers, batching);
    shuffle_one_at_a_time(*exchange, op_id, rank(), peers, kMessages, "the tiny rings");
    ++op_id;
  }
}

// A budget for the rings of a rank: with more peers than fit at the ring
// size asked for, every ring of the exchange shrinks to the budget over
// the largest peer count of any rank (here one rank lists a single peer,
// the others list everyone, and the rings are fitted to the others),
// down to the floor; what crosses them still arrives whole and in order.
// The footprint reports the rings' window and their counters.
TEST_P(NotifiedExchange, RingsFitTheBudgetOfTheRankWithMostPeers_4) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  constexpr int kMessages = 200;
  constexpr int kOpId = 9;
  // Rank 0 exchanges with everyone, the others with rank 0 only.
  const std::vector<int> peers = rank() == 0 ? all_others() : std::vector<int>{0};
  const std::size_t most_peers = static_cast<std::size_t>(size() - 1);
  constexpr std::size_t kBudget = 24 << 10;
  constexpr std::size_t kFloor = 4 << 10;
  const detail::NotifiedOptions asked{.ring_bytes = 16 << 10,
                                      .ring_budget_bytes = kBudget,
                                      .min_ring_bytes = kFloor,
                                      .slot_bytes = 64,
                                      .inline_payload_bytes = 256,
                                      .routes = {}};
  const std::size_t ring =
      std::clamp<std::size_t>(kBudget / most_peers / 64 * 64, kFloor, 16 << 10);
  EXPECT_EQ(ring, detail::ring_bytes_for(asked, most_peers));
  auto exchange = std::make_unique<detail::NotifiedExchange>(
      detail::check_setup(comm(), kOpId, peers, mpinotify::default_allocate_fn(), kNoForcing,
                          roomy_resource(), {}),
      asked);
  const mpinotify::ExchangeFootprint held = exchange->footprint();
  if (size() > 1) {
    EXPECT_EQ(peers.size() * ring, held.window_bytes);
    EXPECT_LE(peers.size() * (ring / 64 + 1), held.counters);
  }
  shuffle_one_at_a_time(*exchange, kOpId, rank(), peers, kMessages, "the fitted rings");
}

// An op id made again with other channels (here other ring sizes) frees
// the window of its last ones once no exchange of any rank holds them; a
// live exchange keeps them.
TEST_P(NotifiedExchange, AnOpIdMadeAgainFreesItsUnusedWindow_4) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  constexpr int kOpId = 13;
  const std::vector<int> peers = all_others();
  auto make_ring = [&](std::size_t ring_bytes) {
    return std::make_unique<detail::NotifiedExchange>(
        detail::check_setup(comm(), kOpId, peers, mpinotify::default_allocate_fn(), kNoForcing,
                            roomy_resource(), {}),
        detail::NotifiedOptions{.ring_bytes = ring_bytes, .slot_bytes = 64, .routes = {}});
  };
  Drained drained;
  auto first = make_ring(8 << 10);
  ASSERT_TRUE(finish_and_drain(*first, drained, "the first exchange"));
  first.reset();
  const std::size_t pooled = detail::pooled_channel_sets(comm());
  auto second = make_ring(16 << 10);  // the first's window goes
  EXPECT_EQ(pooled, detail::pooled_channel_sets(comm()));
  EXPECT_EQ(peers.size() * (16 << 10), second->footprint().window_bytes);
  ASSERT_TRUE(finish_and_drain(*second, drained, "the second exchange"));
  auto third = make_ring(8 << 10);  // the second lives on: its window stays
  EXPECT_EQ(pooled + 1, detail::pooled_channel_sets(comm()));
  ASSERT_TRUE(finish_and_drain(*third, drained, "the third exchange"));
}

// The sizes a budget gives: the ring asked for while it fits, the budget
// over the peers above that, never below the floor nor above the ring.
TEST(NotifiedRingSizes, TheBudgetOverThePeersBetweenFloorAndRing_4) {
  const detail::NotifiedOptions asked{};  // 256 KiB rings, 16 MiB, 16 KiB floor, 256 B slots
  EXPECT_EQ(std::size_t{256} << 10, detail::ring_bytes_for(asked, 1));
  EXPECT_EQ(std::size_t{256} << 10, detail::ring_bytes_for(asked, 64));
  EXPECT_EQ(std::size_t{128} << 10, detail::ring_bytes_for(asked, 128));
  EXPECT_EQ(std::size_t{16} << 10, detail::ring_bytes_for(asked, 1024));
  EXPECT_EQ(std::size_t{16} << 10, detail::ring_bytes_for(asked, 10000));
  // 16 MiB over 1000 peers is 16777 bytes: whole slots only.
  EXPECT_EQ(std::size_t{16640}, detail::ring_bytes_for(asked, 1000));
  detail::NotifiedOptions unbounded = asked;
  unbounded.ring_budget_bytes = 0;
  EXPECT_EQ(std::size_t{256} << 10, detail::ring_bytes_for(unbounded, 10000));
}

// All messages handed over in one send(): small records go as batch
// entries (each one put, its slots freed once its last record went), the
// others between them as before; order and content hold.
TEST_P(NotifiedExchange, RecordsSentTogetherGoAsBatchesInOrder_4) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  constexpr int kMessages = 300;
  constexpr int kOpId = 7;
  const std::vector<int> peers = all_others();
  auto exchange = make_small(kOpId, peers, detail::Batching::ALWAYS);
  auto payloads = roomy_resource();
  std::vector<std::unique_ptr<Message>> all;
  for (int i = 0; i < kMessages; ++i) {
    for (const int peer : peers) all.push_back(shuffled_message(kOpId, rank(), peer, i, *payloads));
  }
  exchange->send(std::move(all));
  Drained drained;
  ASSERT_TRUE(finish_and_drain(*exchange, drained, "the batches"));
  expect_all_in_order(drained, peers, kOpId, kMessages);
}

// Large payloads by each route: pulled by the receiver from the sender's
// memory, sent as messages of their own, streamed through the ring; the
// thresholds are low, so that the shuffle mixes inline, streamed and
// routed payloads (on ucx by locality, pulled and sent apart too), in one
// send() and one at a time. Each pulled payload's
// send completes only once the peer read it (RETAIN gives them back).
TEST_P(NotifiedExchange, EveryRouteOfLargePayloadsKeepsOrderAndContent_4_5) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  constexpr int kMessages = 200;
  const std::vector<int> peers = all_others();
  int op_id = 11;
  for (const auto large : {detail::LargePayloads::PULL, detail::LargePayloads::MESSAGE,
                           detail::LargePayloads::BY_LOCALITY}) {
    for (const bool together : {true, false}) {
      SCOPED_TRACE(testing::Message() << "route " << static_cast<int>(large) << ", "
                                      << (together ? "one send()" : "one at a time"));
      auto exchange =
          make_small(op_id, peers, detail::Batching::ALWAYS,
                     {.large = large, .pull_from_bytes = 1200, .message_from_bytes = 600});
      auto payloads = roomy_resource();
      std::vector<std::unique_ptr<Message>> all;
      for (int i = 0; i < kMessages; ++i) {
        for (const int peer : peers) {
          auto message =
              shuffled_message(op_id, rank(), peer, i, *payloads, mpinotify::AfterSend::RETAIN);
          if (together) {
            all.push_back(std::move(message));
          } else {
            exchange->send(std::move(message));
            exchange->progress();
          }
        }
      }
      if (together) exchange->send(std::move(all));
      Drained drained;
      ASSERT_TRUE(finish_and_drain(*exchange, drained, "the routes"));
      expect_all_in_order(drained, peers, op_id, kMessages);
      // Every message came back, its payload unchanged.
      std::map<int, int> next;
      for (const auto &back : drained.released) {
        const int i = next[back->peer_rank()]++;
        const std::size_t bytes = payload_size(rank(), i);
        if (back->data() != nullptr) {
          EXPECT_EQ(pattern(rank(), i, bytes), bytes_of(*back->data())) << "returned " << i;
        }
      }
      for (const int peer : peers) EXPECT_EQ(kMessages, next[peer]) << "returned to " << peer;
      ++op_id;
    }
  }
}

// A rank listing a peer that does not list it is refused on every rank
// (the rings could not be laid out), before anything is sent.
TEST_P(NotifiedExchange, AsymmetricPeersAreRefusedEverywhere_3) {
  if (!has_ranks(3)) GTEST_SKIP() << "needs 3 ranks";
  // Rank 0 lists rank 1; rank 1 lists nobody; the others list nobody.
  std::vector<int> peers;
  if (rank() == 0) peers = {1};
  EXPECT_THROW(make_small(4, peers), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Notified, NotifiedExchange, testing::Values(ExchangeKind::NOTIFIED),
                         kind_name);

}  // namespace
}  // namespace exchtest
