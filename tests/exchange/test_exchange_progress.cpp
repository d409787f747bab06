// Contract points 5 (progress, recv, release_sent), 8 (finish, idleness,
// the destructor) and 9 (threads).
#include <algorithm>
#include <atomic>
#include <iterator>
#include <map>
#include <thread>

#include "exchange_harness.hpp"

namespace exchtest {
namespace {

using mpinotify::AfterSend;
using mpinotify::MemoryType;
using Clock = std::chrono::steady_clock;

class ExchangeProgress : public ExchangeTest {};

// RETAIN messages come back once their send completed, unchanged, in send
// order per destination; DISCARD ones never do.
TEST_P(ExchangeProgress, RetainedMessagesComeBackUnchangedInOrder_5) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  constexpr int kCount = 6;
  auto exchange = make(1, {.peers = neighbours()});
  auto payloads = roomy_resource();
  Messages batch;
  for (int i = 0; i < kCount; ++i) {
    batch.push_back(std::make_unique<Message>(
        right(), stamp({1, rank(), i}), pattern_buffer(*payloads, rank(), i, 1000 + std::size_t(i)),
        i % 2 == 0 ? AfterSend::RETAIN : AfterSend::DISCARD));
  }
  exchange->send(std::move(batch));
  EXPECT_TRUE(exchange->release_sent().empty()) << "released before any progress";
  Messages released;
  Messages received;
  ASSERT_TRUE(drive_until(
      *exchange,
      [&] {
        std::ranges::move(exchange->release_sent(), std::back_inserter(released));
        std::ranges::move(exchange->recv(), std::back_inserter(received));
        return released.size() >= kCount / 2;
      },
      "the retained messages"));
  Drained rest;
  ASSERT_TRUE(finish_and_drain(*exchange, rest, "the ring"));
  EXPECT_TRUE(rest.released.empty()) << "a DISCARD message came back";
  ASSERT_EQ(std::size_t{kCount / 2}, released.size());
  for (std::size_t k = 0; k < released.size(); ++k) {
    const int i = int(2 * k);
    EXPECT_EQ(right(), released[k]->peer_rank());
    EXPECT_EQ(AfterSend::RETAIN, released[k]->after_send());
    EXPECT_EQ(stamp({1, rank(), i}), released[k]->metadata()) << "out of order or changed";
    ASSERT_NE(nullptr, released[k]->data());
    EXPECT_EQ(pattern(rank(), i, 1000 + std::size_t(i)), bytes_of(*released[k]->data()));
  }
  EXPECT_EQ(std::size_t{kCount}, received.size() + rest.received.size());
}

// recv() moves nothing by itself and hands out each message once.
TEST_P(ExchangeProgress, RecvNeedsProgressAndHandsOutOnce_5) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  auto exchange = make(1, {.peers = neighbours()});
  exchange->send(std::make_unique<Message>(right(), stamp({1, rank(), 0})));
  signal(comm(), right());
  ASSERT_TRUE(await_signal(comm(), left(), "its send"));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(exchange->recv().empty()) << "recv() delivered without progress()";
  Messages got;
  ASSERT_TRUE(receive_count(*exchange, 1, got, "the left neighbour's message"));
  for (int round = 0; round < 5; ++round) {
    exchange->progress();
    EXPECT_TRUE(exchange->recv().empty()) << "a message came out twice";
  }
  Drained rest;
  EXPECT_TRUE(finish_and_drain(*exchange, rest, "the ring"));
  EXPECT_TRUE(rest.received.empty());
}

// A received message not yet taken by recv(), or a sent RETAIN message not
// yet taken by release_sent(), keeps the exchange busy.
TEST_P(ExchangeProgress, UntakenMessagesKeepTheExchangeBusy_5) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  auto allocated = std::make_shared<bool>(false);
  auto allocate = [allocated](BufferResource &resource, std::size_t bytes,
                              mpinotify::AllocationMode mode) {
    *allocated = true;
    return mpinotify::default_allocate_fn()(resource, bytes, mode);
  };
  auto exchange = make(1, {.peers = neighbours(), .allocate = allocate});
  auto payloads = roomy_resource();
  exchange->send(std::make_unique<Message>(right(), stamp({1, rank(), 0}),
                                           pattern_buffer(*payloads, rank(), 0, 1000),
                                           AfterSend::RETAIN));
  // As receiver: from the allocation on, the message is this rank's.
  ASSERT_TRUE(drive_until(
      *exchange, [&] { return *allocated; }, "the incoming record"));
  const Clock::time_point until = Clock::now() + std::chrono::milliseconds(50);
  while (Clock::now() < until) {
    exchange->progress();
    EXPECT_FALSE(exchange->is_idle()) << "idle with a message not taken by recv()";
  }
  Messages got;
  ASSERT_TRUE(receive_count(*exchange, 1, got, "the left neighbour's message"));
  signal(comm(), left());
  // As sender: received there, but not yet taken back here.
  ASSERT_TRUE(await_signal(comm(), right(), "its receipt"));
  exchange->progress();
  EXPECT_FALSE(exchange->is_idle()) << "idle with a RETAIN message not taken by release_sent()";
  Messages released;
  ASSERT_TRUE(drive_until(
      *exchange,
      [&] {
        std::ranges::move(exchange->release_sent(), std::back_inserter(released));
        return !released.empty();
      },
      "the retained message"));
  EXPECT_TRUE(exchange->is_idle());
  Drained rest;
  EXPECT_TRUE(finish_and_drain(*exchange, rest, "the ring"));
}

TEST_P(ExchangeProgress, FinishIsIdempotent_8) {
  auto exchange = make(1, {.peers = neighbours()});
  EXPECT_FALSE(exchange->is_finished());
  exchange->finish();
  EXPECT_NO_THROW(exchange->finish());
  EXPECT_TRUE(exchange->is_finished());
  Drained drained;
  EXPECT_TRUE(finish_and_drain(*exchange, drained, "a finished exchange"));
  EXPECT_NO_THROW(exchange->finish());
  EXPECT_TRUE(exchange->is_idle());
}

// Message counts differ per pair (some zero). A rank that finished is not
// idle while a peer has not finished, and ends idle only with every
// message each peer announced.
TEST_P(ExchangeProgress, IdleWaitsForEveryPeersEnd_8) {
  const auto count = [](int from, int to) { return (from * 3 + to) % 4; };
  auto exchange = make(1, {.peers = all_others()});
  auto payloads = roomy_resource();
  for (const int to : all_others()) {
    for (int i = 0; i < count(rank(), to); ++i) {
      exchange->send(std::make_unique<Message>(to, stamp({1, rank(), i}),
                                               pattern_buffer(*payloads, rank(), i, 100)));
    }
  }
  Drained drained;
  if (rank() == 0) {
    // The others finish only when told.
    exchange->finish();
    const Clock::time_point until = Clock::now() + std::chrono::milliseconds(100);
    while (Clock::now() < until) {
      exchange->progress();
      std::ranges::move(exchange->recv(), std::back_inserter(drained.received));
      if (size() > 1) {
        EXPECT_FALSE(exchange->is_idle()) << "idle before its peers finished";
      }
    }
    for (const int to : all_others()) signal(comm(), to);
  } else {
    ASSERT_TRUE(await_signal(comm(), 0, "rank 0's go"));
  }
  Drained rest;
  ASSERT_TRUE(finish_and_drain(*exchange, rest, "the all-to-all"));
  std::ranges::move(rest.received, std::back_inserter(drained.received));
  std::map<int, int> next;
  for (const auto &message : drained.received) {
    const int from = message->peer_rank();
    EXPECT_EQ(Stamp({1, from, next[from]++}), read_stamp(message->metadata()));
  }
  for (const int from : all_others()) EXPECT_EQ(count(from, rank()), next[from]) << from;
}

// Destroyed finished and idle: silent. Destroyed with a send in flight and
// unfinished: one warning, no exception.
TEST_P(ExchangeProgress, DestructorWarnsOnlyWhenNotDrained_8) {
  auto clean = make(1, {.peers = neighbours()});
  Drained drained;
  ASSERT_TRUE(finish_and_drain(*clean, drained, "the clean exchange"));
  testing::internal::CaptureStderr();
  clean.reset();
  EXPECT_EQ("", testing::internal::GetCapturedStderr());

  if (!has_ranks(2)) return;
  auto busy = make(2, {.peers = neighbours()});
  auto payloads = roomy_resource();
  busy->send(std::make_unique<Message>(right(), stamp({2, rank(), 0}),
                                       pattern_buffer(*payloads, rank(), 0, 100)));
  testing::internal::CaptureStderr();
  EXPECT_NO_THROW(busy.reset());
  const std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_NE(std::string::npos, warning.find("warning")) << warning;
  EXPECT_NE(std::string::npos, warning.find("op id 2")) << warning;
  EXPECT_NE(std::string::npos, warning.find("finish() not called")) << warning;
  EXPECT_EQ(1, std::ranges::count(warning, '\n')) << warning;
}

// sendable_memory_types() from another thread while the owner thread
// drives a shuffle: the same answer, no race (the TSan build checks).
TEST_P(ExchangeProgress, SendableMemoryTypesFromAnyThread_9) {
  auto exchange = make(1, {.peers = all_others()});
  const std::vector<MemoryType> expected = exchange->sendable_memory_types();
  std::atomic<long> calls{0};
  std::atomic<long> different{0};
  std::jthread reader([&](std::stop_token stop) {
    while (!stop.stop_requested()) {
      if (exchange->sendable_memory_types() != expected) ++different;
      ++calls;
    }
  });
  auto payloads = roomy_resource();
  for (int i = 0; i < 20; ++i) {
    for (const int to : all_others()) {
      exchange->send(std::make_unique<Message>(to, stamp({1, rank(), i}),
                                               pattern_buffer(*payloads, rank(), i, 512)));
    }
    exchange->progress();
  }
  Drained drained;
  EXPECT_TRUE(finish_and_drain(*exchange, drained, "the shuffle"));
  EXPECT_TRUE(wait_until([&] { return calls.load() > 0; }, "the other thread's first call"));
  reader.request_stop();
  reader.join();
  EXPECT_EQ(0, different.load());
  EXPECT_EQ(all_others().size() * 20, drained.received.size());
}

INSTANTIATE_TEST_SUITE_P(Kinds, ExchangeProgress, testing::ValuesIn(kKinds), kind_name);

}  // namespace
}  // namespace exchtest
