// Contract points 6 (receive allocation: MAY_FAIL first, retries, one
// forced allocation per timeout, head-of-line per peer, the default
// allocator) and 7 (forced receives to disk or kept in memory). Most tests
// have rank 0 send to rank 1 (the others have no peers); the receiver
// checks.
#include <algorithm>
#include <iterator>
#include <map>

#include "exchange_harness.hpp"

namespace exchtest {
namespace {

using mpinotify::AllocationMode;
using mpinotify::ExchangeOptions;
using mpinotify::ForcedReceive;
using mpinotify::MemoryReservation;
using mpinotify::MemoryType;
using Clock = std::chrono::steady_clock;

// Every call of an allocator, and whether it came from inside progress().
struct AllocationLog {
  struct Call {
    std::size_t size;
    AllocationMode mode;
    Clock::time_point at;
    int progress_call;
    bool granted;
  };
  std::vector<Call> calls;
  int progress_calls = 0;
  bool in_progress = false;
  int outside_progress = 0;

  std::vector<Call> forced() const {
    std::vector<Call> picked;
    std::ranges::copy_if(calls, std::back_inserter(picked),
                         [](const Call &c) { return c.mode == AllocationMode::MUST_SUCCEED; });
    return picked;
  }
};

using Grant = std::function<bool(std::size_t size, AllocationMode mode)>;

// Gives a buffer when `grant` says so (from the resource, overbooking
// where it allows), else nullptr; logs the call.
AllocateFn logged(std::shared_ptr<AllocationLog> log, Grant grant) {
  return [log, grant](BufferResource &resource, std::size_t size, AllocationMode mode) {
    const bool granted = grant(size, mode);
    log->calls.push_back({size, mode, Clock::now(), log->progress_calls, granted});
    if (!log->in_progress) ++log->outside_progress;
    if (!granted) return std::unique_ptr<Buffer>{};
    MemoryReservation reservation = resource.reserve(size);
    if (reservation.size() < size) reservation = resource.reserve(size, true);
    return resource.make_buffer(reservation, size);
  };
}

// progress() with the log told that allocations are now expected.
bool drive_logged(MetadataPayloadExchange &exchange, AllocationLog &log,
                  const std::function<bool()> &done, const std::string &what) {
  return wait_until(
      [&] {
        if (done()) return true;
        ++log.progress_calls;
        log.in_progress = true;
        exchange.progress();
        log.in_progress = false;
        return false;
      },
      what);
}

// drive_logged until `got` holds `count` messages from recv().
bool receive_logged(MetadataPayloadExchange &exchange, AllocationLog &log, Messages &got,
                    std::size_t count, const std::string &what) {
  return drive_logged(
      exchange, log,
      [&] {
        std::ranges::move(exchange.recv(), std::back_inserter(got));
        return got.size() >= count;
      },
      what);
}

class ExchangeAllocation : public ExchangeTest {
 protected:
  static constexpr int kSender = 0;
  static constexpr int kReceiver = 1;
  std::vector<int> pair_peers() const {
    if (rank() == kSender) return {kReceiver};
    if (rank() == kReceiver) return {kSender};
    return {};
  }
  // The sender's messages: stamp index i, payload of sizes[i] bytes.
  void send_sized(MetadataPayloadExchange &exchange, const std::vector<std::size_t> &sizes,
                  int to = kReceiver) const {
    auto payloads = roomy_resource();
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      exchange.send(std::make_unique<Message>(to, stamp({1, rank(), int(i)}),
                                              pattern_buffer(*payloads, rank(), int(i), sizes[i])));
    }
  }
  // Checks that `got` are the messages send_sized sent from `from`.
  static void expect_sent(const Messages &got, const std::vector<std::size_t> &sizes, int from) {
    ASSERT_EQ(sizes.size(), got.size());
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      EXPECT_EQ(Stamp({1, from, int(i)}), read_stamp(got[i]->metadata())) << "out of order";
      ASSERT_NE(nullptr, got[i]->data());
      EXPECT_EQ(pattern(from, int(i), sizes[i]), bytes_of(*got[i]->data()));
    }
  }
  // An exchange of the pair whose allocator grants only MUST_SUCCEED
  // (logged), from `resource`, forced payloads kept in memory.
  std::unique_ptr<MetadataPayloadExchange> forcing_only(std::shared_ptr<AllocationLog> log,
                                                        std::shared_ptr<BufferResource> resource,
                                                        std::chrono::milliseconds timeout) const {
    auto allocate = logged(std::move(log), [](std::size_t, AllocationMode mode) {
      return mode == AllocationMode::MUST_SUCCEED;
    });
    return make(1, {.peers = pair_peers(),
                    .allocate = allocate,
                    .timeout = timeout,
                    .resource = std::move(resource),
                    .options = {.forced_receive = ForcedReceive::KEEP_IN_MEMORY}});
  }
  // The end of a test whose receiver is unusable: the sender waits for its
  // sends, then both go with a warning; the others end as usual.
  void leave_broken_pair(std::unique_ptr<MetadataPayloadExchange> &exchange) const {
    if (rank() != kSender && rank() != kReceiver) {
      Drained drained;
      EXPECT_TRUE(finish_and_drain(*exchange, drained, "a bystander"));
      return;
    }
    if (rank() == kSender) {
      EXPECT_TRUE(drive_until(
          *exchange, [&] { return exchange->is_idle(); }, "the sends"));
    }
    testing::internal::CaptureStderr();
    EXPECT_NO_THROW(exchange.reset());
    const std::string warning = testing::internal::GetCapturedStderr();
    if (rank() == kReceiver) {
      EXPECT_NE(std::string::npos, warning.find("unusable")) << warning;
    }
  }
};

// MAY_FAIL refusals keep the message, which is asked for again on later
// progress() calls and delivered whole and in order; nothing is delivered
// meanwhile; the allocator runs only inside progress().
TEST_P(ExchangeAllocation, RefusedAllocationsAreRetriedNotDropped_6) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  const std::vector<std::size_t> sizes = {1000, 1001, 1002, 1003};
  auto log = std::make_shared<AllocationLog>();
  auto refusals = std::make_shared<int>(5);
  auto allocate =
      logged(log, [refusals](std::size_t, AllocationMode) { return (*refusals)-- <= 0; });
  auto exchange = make(1, {.peers = pair_peers(), .allocate = allocate});
  if (rank() == kSender) send_sized(*exchange, sizes);
  Messages got;
  if (rank() == kReceiver) {
    ASSERT_TRUE(drive_logged(
        *exchange, *log,
        [&] {
          EXPECT_TRUE(exchange->recv().empty()) << "delivered while the allocator refused";
          return log->calls.size() >= 5;
        },
        "five refusals"));
    ASSERT_TRUE(receive_logged(*exchange, *log, got, sizes.size(), "the messages"));
    expect_sent(got, sizes, kSender);
    std::map<int, int> per_progress_call;
    for (std::size_t i = 0; i < 5; ++i) {
      EXPECT_EQ(1000U, log->calls[i].size) << "the head is asked again, not skipped";
      EXPECT_FALSE(log->calls[i].granted);
      EXPECT_EQ(1, ++per_progress_call[log->calls[i].progress_call]) << "retried in one call";
    }
    EXPECT_TRUE(log->forced().empty());
    EXPECT_EQ(0, log->outside_progress);
  }
  Drained drained;
  EXPECT_TRUE(finish_and_drain(*exchange, drained, "the pair"));
  EXPECT_TRUE(drained.received.empty());
}

// With every MAY_FAIL refused, one allocation is forced once no allocation
// succeeded for the timeout, then the count restarts: never two forced in
// one progress() call or within one timeout; each forced call comes after
// a MAY_FAIL attempt for the same message.
TEST_P(ExchangeAllocation, OneForcedAllocationPerTimeout_6) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  constexpr auto kTimeout = std::chrono::milliseconds(50);
  const std::vector<std::size_t> sizes = {100, 101, 102};
  auto log = std::make_shared<AllocationLog>();
  auto resource = BufferResource::create({.host_limit = 0, .allow_overbooking = true});
  auto exchange = forcing_only(log, resource, kTimeout);
  if (rank() == kSender) send_sized(*exchange, sizes);
  if (rank() == kReceiver) {
    Messages got;
    ASSERT_TRUE(receive_logged(*exchange, *log, got, sizes.size(), "the forced messages"));
    expect_sent(got, sizes, kSender);
    for (const auto &message : got) EXPECT_TRUE(message->forced());
    const std::vector<AllocationLog::Call> forced = log->forced();
    ASSERT_EQ(sizes.size(), forced.size());
    EXPECT_GE(forced[0].at - log->calls.front().at, kTimeout) << "forced before the timeout";
    for (std::size_t i = 0; i < forced.size(); ++i) {
      EXPECT_EQ(sizes[i], forced[i].size) << "forced out of order";
      if (i > 0) {
        EXPECT_GE(forced[i].at - forced[i - 1].at, kTimeout) << "two forced within a timeout";
        EXPECT_NE(forced[i].progress_call, forced[i - 1].progress_call);
      }
      const bool tried_first = std::ranges::any_of(log->calls, [&](const auto &call) {
        return call.progress_call == forced[i].progress_call && call.size == forced[i].size &&
               call.mode == AllocationMode::MAY_FAIL && call.at <= forced[i].at;
      });
      EXPECT_TRUE(tried_first) << "MUST_SUCCEED without MAY_FAIL first";
    }
  }
  Drained drained;
  EXPECT_TRUE(finish_and_drain(*exchange, drained, "the pair"));
}

// A forced payload kept in memory holds the next forcing until recv() has
// handed it out: progress() alone for many timeouts forces one message,
// not one per timeout, so the memory beyond the limit stays within one
// forced payload while the program has not taken it. After recv(), the
// rest are forced and arrive in order.
TEST_P(ExchangeAllocation, AForcedPayloadNotYetReceivedHoldsTheNextForcing_7) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  constexpr auto kTimeout = std::chrono::milliseconds(20);
  const std::vector<std::size_t> sizes = {300, 301, 302};
  auto log = std::make_shared<AllocationLog>();
  auto resource = BufferResource::create({.host_limit = 0, .allow_overbooking = true});
  auto exchange = forcing_only(log, resource, kTimeout);
  if (rank() == kSender) send_sized(*exchange, sizes);
  if (rank() == kReceiver) {
    ASSERT_TRUE(drive_logged(
        *exchange, *log, [&] { return !log->forced().empty(); }, "the first forced allocation"));
    // Ten timeouts of progress() without recv().
    const auto until = Clock::now() + 10 * kTimeout;
    while (Clock::now() < until) {
      log->in_progress = true;
      exchange->progress();
      log->in_progress = false;
    }
    EXPECT_EQ(1U, log->forced().size()) << "forced again while a forced payload awaited recv()";
    EXPECT_EQ(sizes[0], resource->peak_in_use()) << "more than one forced payload held";
    Messages got;
    ASSERT_TRUE(receive_logged(*exchange, *log, got, sizes.size(), "the forced messages"));
    expect_sent(got, sizes, kSender);
    EXPECT_EQ(sizes.size(), log->forced().size());
  }
  Drained drained;
  EXPECT_TRUE(finish_and_drain(*exchange, drained, "the pair"));
}

// Forcing takes the waiting head whose record came first, not the lowest
// rank's: rank 2's message arrives before rank 1's. The scenario needs
// rank 1's message to arrive before the timeout forces rank 2's; where
// timing did not give that (a loaded machine, a slow link between hosts),
// all ranks make it again with a timeout four times as long, up to four
// times, so that only a wrong choice fails.
TEST_P(ExchangeAllocation, ForcingTakesTheOldestWaitingMessage_6) {
  if (!has_ranks(3)) GTEST_SKIP() << "needs 3 ranks";
  constexpr std::size_t kFirst = 222;
  constexpr std::size_t kSecond = 111;
  constexpr int kAttempts = 4;
  const std::vector<int> peers = rank() == 0   ? std::vector<int>{1, 2}
                                 : rank() <= 2 ? std::vector<int>{0}
                                               : std::vector<int>{};
  auto timeout = std::chrono::milliseconds(200);
  for (int attempt = 1;; ++attempt, timeout *= 4) {
    auto log = std::make_shared<AllocationLog>();
    auto allocate = logged(
        log, [](std::size_t, AllocationMode mode) { return mode == AllocationMode::MUST_SUCCEED; });
    auto resource = BufferResource::create({.host_limit = 0, .allow_overbooking = true});
    auto exchange = make(
        attempt, {.peers = peers, .allocate = allocate, .timeout = timeout, .resource = resource});
    if (rank() == 2) send_sized(*exchange, {kFirst}, 0);
    if (rank() == 1) {
      ASSERT_TRUE(await_signal(comm(), 0, "rank 2's message is there"));
      send_sized(*exchange, {kSecond}, 0);
    }
    int conclusive = 1;
    if (rank() == 0) {
      const auto asked_for = [&](std::size_t size) {
        return std::ranges::any_of(log->calls, [&](const auto &call) { return call.size == size; });
      };
      ASSERT_TRUE(drive_logged(
          *exchange, *log, [&] { return asked_for(kFirst); }, "rank 2's"));
      signal(comm(), 1);
      Messages got;
      ASSERT_TRUE(receive_logged(*exchange, *log, got, 2, "both messages"));
      const std::vector<AllocationLog::Call> forced = log->forced();
      ASSERT_EQ(2U, forced.size());
      EXPECT_EQ(kFirst, forced[0].size) << "forced the younger message first";
      conclusive = std::ranges::any_of(log->calls,
                                       [&](const auto &call) {
                                         return call.size == kSecond && call.at < forced[0].at;
                                       })
                       ? 1
                       : 0;
      if (conclusive == 0 && attempt == kAttempts)
        ADD_FAILURE() << "rank 1's message came after the first forcing in all " << kAttempts
                      << " attempts (the last with a timeout of " << timeout.count() << " ms)";
    }
    Drained drained;
    EXPECT_TRUE(finish_and_drain(*exchange, drained, "the three"));
    MPI_Bcast(&conclusive, 1, MPI_INT, 0, comm());
    if (conclusive == 1 || attempt == kAttempts) break;
  }
}

// Receive buffers are allocated in message order per peer: while the first
// message of rank 0 is refused, its second is neither allocated nor
// delivered, but another peer's messages still flow.
TEST_P(ExchangeAllocation, AllocationIsHeadOfLinePerPeer_6) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  constexpr std::size_t kBlocked = 3000;
  const std::vector<std::size_t> blocked_then_small = {kBlocked, 100};
  auto log = std::make_shared<AllocationLog>();
  auto blocking = std::make_shared<bool>(true);
  auto allocate = logged(log, [blocking](std::size_t size, AllocationMode) {
    return !(*blocking && size == kBlocked);
  });
  const bool third = size() >= 3;
  std::vector<int> peers = pair_peers();
  if (rank() == kReceiver && third) peers.push_back(2);
  if (rank() == 2) peers = {kReceiver};
  auto exchange = make(1, {.peers = peers, .allocate = allocate});
  if (rank() == kSender) send_sized(*exchange, blocked_then_small);
  if (rank() == 2) send_sized(*exchange, {200});
  if (rank() == kReceiver) {
    Messages got;
    const Clock::time_point until = Clock::now() + std::chrono::milliseconds(100);
    ASSERT_TRUE(drive_logged(
        *exchange, *log,
        [&] {
          std::ranges::move(exchange->recv(), std::back_inserter(got));
          return third ? !got.empty() : Clock::now() > until;
        },
        "rank 2's message"));
    for (const auto &message : got) EXPECT_NE(kSender, message->peer_rank()) << "overtook";
    EXPECT_TRUE(std::ranges::none_of(log->calls, [](const auto &c) { return c.size == 100; }))
        << "the second message was allocated before the first";
    *blocking = false;
    Messages from_sender;
    ASSERT_TRUE(drive_logged(
        *exchange, *log,
        [&] {
          for (auto &message : exchange->recv()) {
            if (message->peer_rank() == kSender) from_sender.push_back(std::move(message));
          }
          return from_sender.size() >= 2;
        },
        "rank 0's messages"));
    expect_sent(from_sender, blocked_then_small, kSender);
  }
  Drained drained;
  EXPECT_TRUE(finish_and_drain(*exchange, drained, "the peers"));
}

// An allocator that throws under MUST_SUCCEED: the exception leaves
// progress(), and every later call says the exchange is unusable.
TEST_P(ExchangeAllocation, ThrowingAllocatorMakesTheExchangeUnusable_6) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  auto allocate = [](BufferResource &, std::size_t,
                     AllocationMode mode) -> std::unique_ptr<Buffer> {
    if (mode == AllocationMode::MUST_SUCCEED) throw std::runtime_error("allocator out of memory");
    return nullptr;
  };
  auto exchange = make(
      1, {.peers = pair_peers(), .allocate = allocate, .timeout = std::chrono::nanoseconds(0)});
  if (rank() == kSender) send_sized(*exchange, {100});
  if (rank() == kReceiver) {
    const auto thrown =
        progress_until_thrown<std::runtime_error>(*exchange, "the allocator's exception");
    ASSERT_TRUE(thrown);
    EXPECT_STREQ("allocator out of memory", thrown->what());
    const auto unusable = [&](const std::function<void()> &call, const char *name) {
      try {
        call();
        ADD_FAILURE() << name << " worked on an unusable exchange";
      } catch (const std::logic_error &error) {
        const std::string what = error.what();
        EXPECT_NE(std::string::npos, what.find("unusable")) << name << ": " << what;
        EXPECT_NE(std::string::npos, what.find("allocator out of memory")) << name << ": " << what;
      }
    };
    unusable([&] { exchange->progress(); }, "progress()");
    unusable(
        [&] {
          exchange->send(std::make_unique<Message>(kSender, stamp({1, 1, 0})));
        },
        "send()");
    unusable([&] { exchange->recv(); }, "recv()");
    unusable([&] { exchange->release_sent(); }, "release_sent()");
    unusable([&] { exchange->finish(); }, "finish()");
    unusable([&] { static_cast<void>(exchange->is_idle()); }, "is_idle()");
    EXPECT_FALSE(exchange->is_finished());
    EXPECT_FALSE(exchange->sendable_memory_types().empty());
  }
  leave_broken_pair(exchange);
}

// The default allocator forces by overbooking: refused where the resource
// does not allow it (std::runtime_error out of progress()); where it does,
// with a spill directory, every message arrives and host memory never
// exceeds the limit by more than one forced payload.
TEST_P(ExchangeAllocation, DefaultAllocatorForcesByOverbookingOnly_6) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  {
    // Small payloads, which MPI sends eagerly: nothing waits for the
    // receiver after it broke.
    auto tight = BufferResource::create({.host_limit = 2048});
    auto exchange = make(1, {.peers = pair_peers(),
                             .timeout = std::chrono::milliseconds(10),
                             .resource = rank() == kReceiver ? tight : nullptr});
    if (rank() == kSender) send_sized(*exchange, {1024, 1024, 1024, 1024});
    if (rank() == kReceiver) {
      Messages kept;  // so that memory fills
      const auto thrown = progress_until_thrown<std::runtime_error>(
          *exchange, "the refused forced allocation", &kept);
      ASSERT_TRUE(thrown);
      EXPECT_NE(std::string::npos, std::string(thrown->what()).find("overbooking"))
          << thrown->what();
      EXPECT_LE(tight->peak_in_use(), tight->limit());
    }
    leave_broken_pair(exchange);
  }
  constexpr std::size_t kPayload = 512 * 1024;
  const std::vector<std::size_t> sizes(8, kPayload);
  ScratchDir dir;
  auto limited = BufferResource::create(
      {.host_limit = 1 << 20, .allow_overbooking = true, .spill_directory = dir.path()});
  auto exchange = make(2, {.peers = pair_peers(),
                           .timeout = std::chrono::milliseconds(10),
                           .resource = rank() == kReceiver ? limited : nullptr});
  if (rank() == kSender) send_sized(*exchange, sizes);
  Drained drained;
  ASSERT_TRUE(finish_and_drain(*exchange, drained, "the pair"));
  if (rank() == kReceiver) {
    expect_sent(drained.received, sizes, kSender);
    EXPECT_LE(limited->peak_in_use(), limited->limit() + kPayload);
    EXPECT_LE(limited->in_use(), limited->limit());
  }
}

// Forced receives (point 7): rank 0 sends four 48 KiB payloads to rank 1,
// whose resource holds one; the other three are forced.
class ForcedReceives : public ExchangeAllocation {
 protected:
  static constexpr std::size_t kPayload = 48 * 1024;
  struct Outcome {
    Messages received;
    std::shared_ptr<BufferResource> resource;
  };
  Outcome run(ForcedReceive mode, const ScratchDir *dir) {
    Outcome outcome;
    outcome.resource = BufferResource::create(
        {.host_limit = 64 * 1024,
         .allow_overbooking = true,
         .spill_directory = dir != nullptr ? std::optional(dir->path()) : std::nullopt});
    auto exchange = make(1, {.peers = pair_peers(),
                             .timeout = std::chrono::milliseconds(10),
                             .resource = outcome.resource,
                             .options = {.forced_receive = mode}});
    const std::vector<std::size_t> sizes(4, kPayload);
    if (rank() == kSender) send_sized(*exchange, sizes);
    Drained drained;
    EXPECT_TRUE(finish_and_drain(*exchange, drained, "the pair"));
    if (rank() == kReceiver) {
      expect_sent(drained.received, sizes, kSender);
      EXPECT_FALSE(drained.received.empty() || drained.received[0]->forced());
      for (std::size_t i = 1; i < drained.received.size(); ++i) {
        EXPECT_TRUE(drained.received[i]->forced()) << "message " << i;
      }
    }
    outcome.received = std::move(drained.received);
    return outcome;
  }
};

TEST_P(ForcedReceives, ForcedPayloadMovesToDisk_7) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  ScratchDir dir;
  Outcome outcome = run(ForcedReceive::MOVE_TO_DISK, &dir);
  if (rank() != kReceiver || outcome.received.size() != 4) return;
  for (const auto &message : outcome.received) {
    const MemoryType expected = message->forced() ? MemoryType::DISK : MemoryType::HOST;
    EXPECT_EQ(expected, message->data()->mem_type());
  }
  EXPECT_EQ(3U, dir.file_count());
  EXPECT_EQ(kPayload, outcome.resource->in_use()) << "forced payloads still in host memory";
  MemoryReservation room = outcome.resource->reserve(kPayload, true);
  std::unique_ptr<Buffer> back =
      outcome.resource->unspill(outcome.received[1]->release_data(), room);
  EXPECT_EQ(MemoryType::HOST, back->mem_type());
  EXPECT_EQ(pattern(kSender, 1, kPayload), bytes_of(*back));
  EXPECT_EQ(2U, dir.file_count());
  outcome.received.clear();
  EXPECT_EQ(0U, dir.file_count()) << "spill files outlived their buffers";
}

TEST_P(ForcedReceives, ForcedPayloadStaysInMemoryWhenAsked_7) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  ScratchDir dir;
  Outcome outcome = run(ForcedReceive::KEEP_IN_MEMORY, &dir);
  if (rank() != kReceiver) return;
  for (const auto &message : outcome.received) EXPECT_TRUE(message->data()->in_memory());
  EXPECT_EQ(0U, dir.file_count());
  EXPECT_EQ(4 * kPayload, outcome.resource->in_use());
}

// MOVE_TO_DISK without a spill directory keeps the payload in memory.
TEST_P(ForcedReceives, ForcedPayloadStaysInMemoryWithoutSpillDirectory_7) {
  if (!has_ranks(2)) GTEST_SKIP() << "needs 2 ranks";
  Outcome outcome = run(ForcedReceive::MOVE_TO_DISK, nullptr);
  if (rank() != kReceiver) return;
  for (const auto &message : outcome.received) EXPECT_TRUE(message->data()->in_memory());
}

INSTANTIATE_TEST_SUITE_P(Kinds, ExchangeAllocation, testing::ValuesIn(kKinds), kind_name);
INSTANTIATE_TEST_SUITE_P(Kinds, ForcedReceives, testing::ValuesIn(kKinds), kind_name);

}  // namespace
}  // namespace exchtest
