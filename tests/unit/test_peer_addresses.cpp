// osc_base/peer_addresses.hpp, ReachedPeers: what a network backend makes
// of a peer's address (an endpoint, an address-vector entry) is made by the
// first use, once per address however many threads ask at once, and a
// first use that fails keeps nothing, so the next one tries again.
// PeerAddresses: a gathered group's addresses by rank, and no address
// outside the group.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "osc_base/peer_addresses.hpp"
#include "osc_base/peer_deadline.hpp"

namespace {

using mpinotify::Errc;
using mpinotify::PeerAddresses;
using mpinotify::ReachedPeers;
using mpinotify::Status;

TEST(ReachedPeers, AFailedFirstUseKeepsNothingAndTheNextTriesAgain) {
  ReachedPeers<int> reached;
  int makes = 0;
  auto fail = [&](int &handle) {
    ++makes;
    handle = 7;
    return mpinotify::error(Errc::other, "unreachable");
  };
  auto succeed = [&](int &handle) {
    ++makes;
    handle = 42;
    return Status{};
  };
  int out = -1;
  EXPECT_EQ(Errc::other, reached.get("peer", fail, out).code());
  EXPECT_EQ(-1, out);
  EXPECT_EQ(0U, reached.count());
  EXPECT_EQ(Errc::other, reached.get("peer", fail, out).code());
  EXPECT_EQ(2, makes) << "a failed peer was not tried again";
  ASSERT_TRUE(reached.get("peer", succeed, out).ok());
  EXPECT_EQ(42, out);
  EXPECT_EQ(1U, reached.count());
  // Made once: later uses find it, even with a make that would fail.
  out = -1;
  ASSERT_TRUE(reached.get("peer", fail, out).ok());
  EXPECT_EQ(42, out);
  EXPECT_EQ(3, makes);
}

TEST(ReachedPeers, OneHandlePerAddressByItsBytes) {
  ReachedPeers<int> reached;
  int next = 0;
  auto make = [&](int &handle) {
    handle = ++next;
    return Status{};
  };
  int a = 0;
  int b = 0;
  int again = 0;
  // Names are bytes, zeros included: these two differ after the first.
  const std::string first("x\0a", 3);
  const std::string second("x\0b", 3);
  ASSERT_TRUE(reached.get(first, make, a).ok());
  ASSERT_TRUE(reached.get(second, make, b).ok());
  ASSERT_TRUE(reached.get(first, make, again).ok());
  EXPECT_NE(a, b);
  EXPECT_EQ(a, again);
  EXPECT_EQ(2U, reached.count());
  std::vector<int> released;
  reached.clear([&](int handle) { released.push_back(handle); });
  EXPECT_EQ(2U, released.size());
  EXPECT_EQ(0U, reached.count());
}

TEST(ReachedPeers, ConcurrentFirstUsesMakeOneHandle) {
  ReachedPeers<int> reached;
  std::atomic<int> makes{0};
  std::atomic<bool> go{false};
  constexpr int kThreads = 8;
  std::vector<int> seen(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      const Status st = reached.get(
          "peer",
          [&](int &handle) {
            handle = 100 + makes.fetch_add(1);
            std::this_thread::yield();  // others arrive meanwhile
            return Status{};
          },
          seen[static_cast<std::size_t>(t)]);
      EXPECT_TRUE(st.ok());
    });
  }
  go.store(true);
  for (std::thread &thread : threads) thread.join();
  EXPECT_EQ(1, makes.load());
  for (const int handle : seen) EXPECT_EQ(100, handle);
}

// What `addresses` gives for each rank: `expected` by group rank, and
// nothing (MPI_ERR_INTERN, `out` untouched) for -1 and the group's size.
void expect_by_rank(const PeerAddresses &addresses, const std::vector<std::string> &expected) {
  mpinotify::PeerDeadline deadline(1);
  EXPECT_EQ(expected.size(), addresses.size());
  std::string got;
  for (std::size_t r = 0; r < expected.size(); ++r) {
    ASSERT_TRUE(addresses.get(static_cast<int>(r), deadline, got).ok()) << r;
    EXPECT_EQ(expected[r], got) << r;
  }
  for (const int outside : {-1, static_cast<int>(expected.size())}) {
    got = "kept";
    const Status status = addresses.get(outside, deadline, got);
    EXPECT_EQ(Errc::intern, status.code()) << outside;
    EXPECT_EQ("kept", got) << outside;
  }
}

TEST(PeerAddresses, GatheredByRankAndNothingOutsideTheGroup) {
  expect_by_rank(PeerAddresses(std::vector<std::string>{"zero", "one", "two"}),
                 {"zero", "one", "two"});
}

// A group within MPI_COMM_WORLD, whose addresses the world exchanged: its
// rank r is the process of MPI_COMM_WORLD rank world_ranks[r].
TEST(PeerAddresses, TakenFromTheWorldsByWorldRank) {
  const auto world =
      std::make_shared<const std::vector<std::string>>(std::vector<std::string>{"w0", "w1", "w2"});
  expect_by_rank(PeerAddresses(world, std::vector<int>{2, 0}), {"w2", "w0"});
}

// What a wait that counts whole seconds (PMIx_Get) is given of a deadline
// the steps of one first use share: all of it at the start, never less than
// a second, nothing (no limit) for 0.
TEST(PeerDeadline, SecondsLeftForAWaitInWholeSeconds) {
  mpinotify::PeerDeadline none(0);
  EXPECT_EQ(0, none.seconds_left());
  mpinotify::PeerDeadline three(3);
  EXPECT_EQ(3, three.seconds_left());
  EXPECT_FALSE(three.passed());
  EXPECT_LE(three.seconds_left(), 3);
  EXPECT_GE(three.seconds_left(), 1);
}

}  // namespace
