// Contract point 3: construction (peers, op ids, the other arguments) and
// the separation of exchanges by op id, alive together or one after the
// other.
#include <algorithm>
#include <map>
#include <thread>

#include "exchange_harness.hpp"

namespace exchtest {
namespace {

using mpinotify::make_exchange;
using mpinotify::max_exchange_op_id;

class ExchangeSetup : public ExchangeTest {};

// Every rank passes the same kind of bad argument, so all throw alike
// before anything communicates.
TEST_P(ExchangeSetup, ConstructionRefusesBadArguments_3) {
  const auto with_peers = [&](std::vector<int> peers) { return make(1, {.peers = peers}); };
  EXPECT_THROW(with_peers({rank()}), std::invalid_argument) << "self among the peers";
  EXPECT_THROW(with_peers({size()}), std::out_of_range);
  EXPECT_THROW(with_peers({-1}), std::out_of_range);
  if (size() >= 2) {
    EXPECT_THROW(with_peers({right(), right()}), std::invalid_argument);
  }

  const int max_op_id = max_exchange_op_id(comm());
  EXPECT_GE(max_op_id, 16383) << "MPI_TAG_UB is at least 32767";
  EXPECT_THROW(make(-1, {.peers = neighbours()}), std::out_of_range);
  EXPECT_THROW(make(max_op_id + 1, {.peers = neighbours()}), std::out_of_range);

  const auto resource = roomy_resource();
  const auto allocate = mpinotify::default_allocate_fn();
  const auto kind = GetParam();
  EXPECT_THROW(make_exchange(kind, MPI_COMM_NULL, 1, {}, allocate, kNoForcing, resource),
               std::invalid_argument);
  EXPECT_THROW(make_exchange(kind, comm(), 1, neighbours(), {}, kNoForcing, resource),
               std::invalid_argument)
      << "no allocate function";
  EXPECT_THROW(make_exchange(kind, comm(), 1, neighbours(), allocate, kNoForcing, nullptr),
               std::invalid_argument)
      << "no resource";
  EXPECT_THROW(make_exchange(kind, comm(), 1, neighbours(), allocate, std::chrono::milliseconds(-1),
                             resource),
               std::invalid_argument)
      << "negative timeout";

  auto largest = make(max_op_id, {.peers = neighbours()});
  EXPECT_EQ(max_op_id, largest->op_id());
  Drained drained;
  EXPECT_TRUE(finish_and_drain(*largest, drained, "the largest op id"));
}

TEST_P(ExchangeSetup, FreshExchangeIsIdleAndNotFinished_3) {
  const std::vector<int> peers = all_others();
  auto exchange = make(5, {.peers = peers});
  EXPECT_TRUE(exchange->is_idle());
  EXPECT_FALSE(exchange->is_finished());
  EXPECT_EQ(5, exchange->op_id());
  EXPECT_TRUE(std::ranges::equal(peers, exchange->peers()));
  // What it holds for itself: nothing for tags; for notified RMA a ring
  // and its counters per peer (none without peers).
  const mpinotify::ExchangeFootprint held = exchange->footprint();
  if (GetParam() == mpinotify::ExchangeKind::TAG || peers.empty()) {
    EXPECT_EQ(0U, held.window_bytes);
    EXPECT_EQ(0U, held.counters);
  } else {
    EXPECT_EQ(0U, held.window_bytes % peers.size());
    EXPECT_GE(held.window_bytes, peers.size() * (std::size_t{16} << 10));
    EXPECT_GT(held.counters, peers.size());
  }
  Drained drained;
  EXPECT_TRUE(finish_and_drain(*exchange, drained, "a fresh exchange"));
}

// Two exchanges alive together on one communicator, sends interleaved:
// each receives exactly its own messages.
TEST_P(ExchangeSetup, ConcurrentOpIdsNeverMix_3) {
  constexpr int kPerPeer = 10;
  auto first = make(1, {.peers = all_others()});
  auto second = make(2, {.peers = all_others()});
  auto payloads = roomy_resource();
  for (int i = 0; i < kPerPeer; ++i) {
    for (const int to : all_others()) {
      first->send(std::make_unique<Message>(to, stamp({1, rank(), i})));
      second->send(std::make_unique<Message>(to, stamp({2, rank(), i}),
                                             pattern_buffer(*payloads, rank(), i, 200)));
    }
  }
  std::vector<Drained> drained;
  ASSERT_TRUE(finish_and_drain({first.get(), second.get()}, drained, "both exchanges"));
  for (int e = 0; e < 2; ++e) {
    std::map<int, int> next;
    for (const auto &message : drained[std::size_t(e)].received) {
      const int from = message->peer_rank();
      EXPECT_EQ(Stamp({e + 1, from, next[from]++}), read_stamp(message->metadata()))
          << "op id " << e + 1 << " got another's message or lost order";
      EXPECT_EQ(e == 1, message->data() != nullptr);
    }
    for (const int from : all_others()) EXPECT_EQ(kPerPeer, next[from]);
  }
}

// Exchanges made at the same time over the two halves of one
// MPI_Comm_split (communicators that share a context id on Open MPI 4.1,
// which names a window's shared-memory file by it), round after round:
// each half receives exactly its own messages and payloads.
TEST_P(ExchangeSetup, HalvesOfASplitExchangeAtTheSameTime_3) {
  if (!has_ranks(4)) GTEST_SKIP() << "needs two halves of 2 ranks";
  constexpr int kRounds = 30;
  constexpr int kPerPeer = 4;
  constexpr std::size_t kBytes = 300;
  const int color = rank() % 2;
  MPI_Comm half = MPI_COMM_NULL;
  ASSERT_EQ(MPI_SUCCESS, MPI_Comm_split(comm(), color, rank(), &half));
  int me = 0;
  int ranks = 0;
  MPI_Comm_rank(half, &me);
  MPI_Comm_size(half, &ranks);
  std::vector<int> others;
  for (int r = 0; r < ranks; ++r) {
    if (r != me) others.push_back(r);
  }
  auto payloads = roomy_resource();
  for (int round = 0; round < kRounds; ++round) {
    MPI_Barrier(comm());                       // both halves construct at once
    const int contents = 100 * color + round;  // names the half and the round
    auto exchange = make_exchange(GetParam(), half, 1, others, mpinotify::default_allocate_fn(),
                                  kNoForcing, roomy_resource(), {});
    for (int i = 0; i < kPerPeer; ++i) {
      for (const int to : others) {
        exchange->send(std::make_unique<Message>(
            to, stamp({contents, me, i}), pattern_buffer(*payloads, contents + me, i, kBytes)));
      }
    }
    Drained drained;
    ASSERT_TRUE(finish_and_drain(*exchange, drained, "round " + std::to_string(round)));
    std::map<int, int> next;
    for (const auto &message : drained.received) {
      const int from = message->peer_rank();
      const int i = next[from]++;
      EXPECT_EQ(Stamp({contents, from, i}), read_stamp(message->metadata()))
          << "round " << round << ": another half's message, or out of order";
      ASSERT_NE(nullptr, message->data());
      EXPECT_EQ(pattern(contents + from, i, kBytes), bytes_of(*message->data()))
          << "round " << round << ": a payload changed";
    }
    for (const int from : others) EXPECT_EQ(kPerPeer, next[from]) << "round " << round;
  }
  MPI_Comm_free(&half);
}

// Once idle after finish on this rank, the op id may be reused at once,
// even while a slower peer's first exchange is still alive: the old
// exchange reads no record past a peer's end.
TEST_P(ExchangeSetup, OpIdIsReusableOnceIdle_3) {
  const auto round = [&](int contents, int per_peer, bool dawdle) {
    auto exchange = make(7, {.peers = all_others()});
    for (int i = 0; i < per_peer; ++i) {
      for (const int to : all_others()) {
        exchange->send(std::make_unique<Message>(to, stamp({contents, rank(), i})));
      }
    }
    if (dawdle) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    Drained drained;
    EXPECT_TRUE(finish_and_drain(*exchange, drained, "round " + std::to_string(contents)));
    std::map<int, int> next;
    for (const auto &message : drained.received) {
      const int from = message->peer_rank();
      EXPECT_EQ(Stamp({contents, from, next[from]++}), read_stamp(message->metadata()));
    }
    for (const int from : all_others()) EXPECT_EQ(per_peer, next[from]) << "round " << contents;
  };
  round(7, 5, rank() == 0);
  round(70, 3, false);
}

// Peers are a subset: ranks 0 and 1 exchange; the others have no peers, are
// idle as soon as they finish, and cannot send to anyone.
TEST_P(ExchangeSetup, SubsetPeersLeaveTheOthersAlone_3) {
  if (!has_ranks(3)) GTEST_SKIP() << "needs 3 ranks";
  const bool pair = rank() < 2;
  auto exchange = make(1, {.peers = pair ? std::vector<int>{1 - rank()} : std::vector<int>{}});
  if (!pair) {
    EXPECT_THROW(exchange->send(std::make_unique<Message>(0, stamp({1, rank(), 0}))),
                 std::invalid_argument);
    exchange->finish();
    EXPECT_TRUE(exchange->is_idle()) << "no peers, yet not idle after finish()";
    return;
  }
  for (int i = 0; i < 4; ++i) {
    exchange->send(std::make_unique<Message>(1 - rank(), stamp({1, rank(), i})));
  }
  Drained drained;
  ASSERT_TRUE(finish_and_drain(*exchange, drained, "the pair"));
  ASSERT_EQ(4U, drained.received.size());
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(Stamp({1, 1 - rank(), i}), read_stamp(drained.received[std::size_t(i)]->metadata()));
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, ExchangeSetup, testing::ValuesIn(kKinds), kind_name);

}  // namespace
}  // namespace exchtest
