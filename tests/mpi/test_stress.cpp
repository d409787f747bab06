// SEMANTICS 2.6, 2.7, 3.1 under load: producer-consumer ordering with large
// payloads, resets racing increments, many counters from many origins.
#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

using mpitest::Flavor;
using mpitest::TestWindow;

class Stress : public mpitest::FlavorTest {};

// --- producer-consumer ------------------------------------------------------

// One payload: 64 KiB of 64-bit words. Word 0 is the round number, the last
// word a checksum of the others, the rest a pattern of (producer, round).
constexpr std::size_t kPayloadWords = 64 * 1024 / sizeof(std::uint64_t);
constexpr MPI_Aint kPayloadBytes = static_cast<MPI_Aint>(kPayloadWords * sizeof(std::uint64_t));
// Two slots per consumer: the producer may write round r+1 while round r is
// being checked, and reuses a slot only once its round was acknowledged.
constexpr int kSlots = 2;
constexpr int kRounds = 100;
// Counters: at the consumer, "rounds delivered"; at the producer, "rounds
// consumed" (acknowledged, or read by MPI_Get_notify).
constexpr int kDelivered = 0;
constexpr int kConsumed = 1;
constexpr double kDeadlineSeconds = 60.0;

std::uint64_t mix(std::uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t checksum(const std::uint64_t *words) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i + 1 < kPayloadWords; ++i) sum += words[i] * (2 * i + 1);
  return mix(sum);
}

// The payload of `round` from `producer`; round <= 0 is all zeros (a slot
// that was never written).
void fill_payload(std::uint64_t *words, int producer, int round) {
  if (round <= 0) {
    std::memset(words, 0, static_cast<std::size_t>(kPayloadBytes));
    return;
  }
  const std::uint64_t seed =
      (static_cast<std::uint64_t>(producer) << 40) ^ (static_cast<std::uint64_t>(round) << 20);
  words[0] = static_cast<std::uint64_t>(round);
  for (std::size_t i = 1; i + 1 < kPayloadWords; ++i) words[i] = mix(seed + i);
  words[kPayloadWords - 1] = checksum(words);
}

// Empty if `words` is exactly round `round` of `producer`; otherwise what is
// wrong with it.
std::string check_payload(const std::uint64_t *words, int producer, int round) {
  std::vector<std::uint64_t> expected(kPayloadWords);
  fill_payload(expected.data(), producer, round);
  std::string problem;
  if (words[0] != expected[0]) problem += "embedded round " + std::to_string(words[0]) + "; ";
  if (checksum(words) != words[kPayloadWords - 1]) problem += "checksum mismatch; ";
  std::size_t wrong = 0;
  std::size_t first = kPayloadWords;
  for (std::size_t i = 0; i < kPayloadWords; ++i) {
    if (words[i] != expected[i]) {
      ++wrong;
      if (first == kPayloadWords) first = i;
    }
  }
  if (wrong != 0)
    problem += std::to_string(wrong) + " of " + std::to_string(kPayloadWords) +
               " words wrong, first at word " + std::to_string(first);
  return problem;
}

// Copies the last word first, one word at a time. The transports write
// front to back, so a copy made this way right after a counter moved sees
// any part of the payload that had not arrived yet, and a slot overwritten
// this way right after a read was counted corrupts any part of a read still
// in progress.
void snapshot_backwards(std::uint64_t *to, const char *from) {
  const volatile std::uint64_t *words = reinterpret_cast<const volatile std::uint64_t *>(from);
  for (std::size_t i = kPayloadWords; i-- > 0;) to[i] = words[i];
}
void overwrite_backwards(char *to, const std::uint64_t *from) {
  volatile std::uint64_t *words = reinterpret_cast<volatile std::uint64_t *>(to);
  for (std::size_t i = kPayloadWords; i-- > 0;) words[i] = from[i];
}

enum class Transport {
  put,         // producer MPI_Put_notify's the payload into the consumer's slot
  accumulate,  // producer MPI_Accumulate_notify's (BXOR) the change into the slot
  get,         // consumer MPI_Get_notify's the payload out of the producer's slot
};

// Pairs (2k, 2k+1); a rank without a partner plays both roles itself.
struct Roles {
  int partner;
  bool producer;
  bool consumer;
};

Roles roles() {
  const int me = mpitest::rank();
  int partner = me ^ 1;
  if (partner >= mpitest::size()) partner = me;
  return {partner, me % 2 == 0 || partner == me, me % 2 == 1 || partner == me};
}

MPI_Aint slot_offset(int round) { return (round % kSlots) * kPayloadBytes; }

// Round numbers travelling as messages from one peer, in order: the side
// of the protocol that is not under test (acknowledgements for put and
// accumulate, announcements for get), so that every counter movement the
// test checks comes from the operation under test.
class Mailbox {
 public:
  Mailbox(MPI_Comm comm, int peer) : comm_(comm), peer_(peer) { post(); }
  ~Mailbox() {
    MPI_Cancel(&request_);
    MPI_Wait(&request_, MPI_STATUS_IGNORE);
  }
  Mailbox(const Mailbox &) = delete;
  Mailbox &operator=(const Mailbox &) = delete;
  // The highest round received so far.
  int latest() {
    for (;;) {
      int flag = 0;
      EXPECT_MPI_OK(MPI_Test(&request_, &flag, MPI_STATUS_IGNORE));
      if (flag == 0) return latest_;
      EXPECT_EQ(latest_ + 1, incoming_) << "rounds out of order from rank " << peer_;
      latest_ = incoming_;
      post();
    }
  }

 private:
  void post() { EXPECT_MPI_OK(MPI_Irecv(&incoming_, 1, MPI_INT, peer_, 0, comm_, &request_)); }
  MPI_Comm comm_;
  int peer_;
  int incoming_ = 0;
  int latest_ = 0;
  MPI_Request request_ = MPI_REQUEST_NULL;
};

class Outbox {
 public:
  Outbox(MPI_Comm comm, int peer) : comm_(comm), peer_(peer), rounds_(kRounds + 1) {}
  ~Outbox() {
    EXPECT_MPI_OK(
        MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
  }
  Outbox(const Outbox &) = delete;
  Outbox &operator=(const Outbox &) = delete;
  void send(int round) {
    rounds_[static_cast<std::size_t>(round)] = round;
    requests_.push_back(MPI_REQUEST_NULL);
    EXPECT_MPI_OK(MPI_Isend(&rounds_[static_cast<std::size_t>(round)], 1, MPI_INT, peer_, 0, comm_,
                            &requests_.back()));
  }

 private:
  MPI_Comm comm_;
  int peer_;
  std::vector<int> rounds_;
  std::vector<MPI_Request> requests_;
};

// Runs kRounds rounds of the protocol, each check made on the rank that sees
// the data. Put/accumulate: the consumer polls its counter and, each time it
// moves to v, checks that every round up to v is entirely in place
// (SEMANTICS 2.6, 3.1), then acknowledges by message. Get: the producer
// announces rounds by message and polls its own counter, which the
// consumer's MPI_Get_notify moves; it overwrites a slot as soon as the read
// of the round in it is counted (SEMANTICS 3.1: the increment follows the
// read).
void producer_consumer(TestWindow &w, Transport transport) {
  w.set_num_notify(2);
  MPI_Win win = w.win();
  const Roles me = roles();
  const int my_rank = mpitest::rank();
  const int producer_rank = me.producer ? my_rank : me.partner;
  const int consumer_rank = me.consumer ? my_rank : me.partner;
  const bool counted_at_consumer = transport != Transport::get;
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);

  // Producer: what goes out for round `next_round`, prepared ahead so that
  // it leaves the moment its slot is free.
  std::vector<std::uint64_t> staging(kPayloadWords);
  std::vector<std::uint64_t> previous(kPayloadWords);
  auto prepare = [&](int r) {
    fill_payload(staging.data(), producer_rank, r);
    if (transport == Transport::accumulate) {
      // The slot holds round r - kSlots: XOR in the difference.
      fill_payload(previous.data(), producer_rank, r - kSlots);
      for (std::size_t i = 0; i < kPayloadWords; ++i) staging[i] ^= previous[i];
    }
  };
  // Consumer: copies of the rounds being checked.
  std::vector<std::vector<std::uint64_t>> copies(kSlots, std::vector<std::uint64_t>(kPayloadWords));
  int next_round = 1;       // producer: the next round to send
  MPI_Count consumed = 0;   // producer: rounds the consumer is done with
  int seen = 0;             // consumer: rounds checked so far
  MPI_Count delivered = 0;  // consumer: rounds available
  int polls_with_news = 0;
  int bad_rounds = 0;
  std::string first_problem;
  if (me.producer) prepare(next_round);
  {
    // The producer hears acknowledgements (put, accumulate); the consumer
    // hears announcements (get).
    Mailbox inbox(comm, me.partner);
    Outbox outbox(comm, me.partner);
    EXPECT_MPI_OK(MPI_Win_lock_all(0, win));
    const double deadline = MPI_Wtime() + kDeadlineSeconds;
    bool timed_out = false;
    for (;;) {
      const bool producer_done = !me.producer || (next_round > kRounds && consumed >= kRounds);
      const bool consumer_done = !me.consumer || seen >= kRounds;
      if (producer_done && consumer_done) break;
      if (MPI_Wtime() > deadline) {
        timed_out = true;
        break;
      }
      if (me.producer && !producer_done) {
        if (counted_at_consumer) {
          consumed = inbox.latest();
        } else {
          EXPECT_MPI_OK(MPI_Win_get_notify_value(win, kConsumed, &consumed));
          EXPECT_LE(consumed, next_round - 1) << "more reads counted than rounds announced";
        }
        // The slot of round r is free once round r - kSlots was consumed.
        if (next_round <= kRounds && consumed >= next_round - kSlots) {
          const int r = next_round++;
          const MPI_Aint target_disp = w.disp(consumer_rank, slot_offset(r));
          switch (transport) {
            case Transport::put:
              EXPECT_MPI_OK(MPI_Put_notify(
                  staging.data(), static_cast<int>(kPayloadBytes), MPI_BYTE, consumer_rank,
                  target_disp, static_cast<int>(kPayloadBytes), MPI_BYTE, kDelivered, win));
              EXPECT_MPI_OK(MPI_Win_flush(consumer_rank, win));
              break;
            case Transport::accumulate:
              EXPECT_MPI_OK(MPI_Accumulate_notify(staging.data(), static_cast<int>(kPayloadWords),
                                                  MPI_UINT64_T, consumer_rank, target_disp,
                                                  static_cast<int>(kPayloadWords), MPI_UINT64_T,
                                                  MPI_BXOR, kDelivered, win));
              EXPECT_MPI_OK(MPI_Win_flush(consumer_rank, win));
              break;
            case Transport::get:
              overwrite_backwards(w.base() + slot_offset(r), staging.data());
              EXPECT_MPI_OK(MPI_Win_sync(win));
              outbox.send(r);
              break;
          }
          if (next_round <= kRounds) prepare(next_round);
        }
      }
      if (me.consumer && !consumer_done) {
        if (counted_at_consumer) {
          EXPECT_MPI_OK(MPI_Win_get_notify_value(win, kDelivered, &delivered));
        } else {
          delivered = inbox.latest();
        }
        if (delivered > seen) {
          ++polls_with_news;
          EXPECT_LE(delivered, seen + kSlots) << "more rounds delivered than slots allow";
          EXPECT_LE(delivered, kRounds);
          const int last = static_cast<int>(std::min<MPI_Count>(
              {delivered, static_cast<MPI_Count>(kRounds), static_cast<MPI_Count>(seen + kSlots)}));
          // Copy first, check afterwards. Local copies go newest round
          // first (the one most likely still arriving); reads go oldest
          // first, because each counted read lets the producer reuse the
          // slot of the oldest round it has not seen consumed.
          for (int i = 0; i < last - seen; ++i) {
            const int r = transport == Transport::get ? seen + 1 + i : last - i;
            std::vector<std::uint64_t> &copy = copies[static_cast<std::size_t>(r % kSlots)];
            if (transport == Transport::get) {
              std::memset(copy.data(), 0, static_cast<std::size_t>(kPayloadBytes));
              EXPECT_MPI_OK(MPI_Get_notify(copy.data(), static_cast<int>(kPayloadBytes), MPI_BYTE,
                                           producer_rank, w.disp(producer_rank, slot_offset(r)),
                                           static_cast<int>(kPayloadBytes), MPI_BYTE, kConsumed,
                                           win));
              EXPECT_MPI_OK(MPI_Win_flush(producer_rank, win));
            } else {
              snapshot_backwards(copy.data(), w.base() + slot_offset(r));
            }
          }
          for (int r = seen + 1; r <= last; ++r) {
            const std::string problem = check_payload(
                copies[static_cast<std::size_t>(r % kSlots)].data(), producer_rank, r);
            if (!problem.empty() && bad_rounds++ == 0)
              first_problem = "round " + std::to_string(r) + " checked at count " +
                              std::to_string(delivered) + ": " + problem;
            if (counted_at_consumer) outbox.send(r);
          }
          seen = last;
        }
      }
      sched_yield();
    }
    EXPECT_MPI_OK(MPI_Win_unlock_all(win));
    EXPECT_FALSE(timed_out) << "rank " << my_rank << " stopped after " << kDeadlineSeconds
                            << " s: producer at round " << next_round << " with " << consumed
                            << " consumed, consumer checked " << seen << " rounds";
    // A rank that gave up still meets the others: no hang in the mailboxes.
    MPI_Barrier(comm);
  }
  if (me.consumer) {
    EXPECT_EQ(0, bad_rounds) << "consumer rank " << my_rank << ": " << first_problem;
    EXPECT_EQ(kRounds, seen);
    EXPECT_GT(polls_with_news, 0);
  }
  MPI_Barrier(comm);
  // Nothing else arrives: the counter under test is exact, the other one
  // never moved.
  MPI_Count v = -1;
  if (me.consumer) {
    EXPECT_MPI_OK(MPI_Win_get_notify_value(win, kDelivered, &v));
    EXPECT_EQ(counted_at_consumer ? kRounds : 0, v)
        << "counter " << kDelivered << " of rank " << my_rank;
  }
  if (me.producer) {
    EXPECT_MPI_OK(MPI_Win_get_notify_value(win, kConsumed, &v));
    EXPECT_EQ(counted_at_consumer ? 0 : kRounds, v)
        << "counter " << kConsumed << " of rank " << my_rank;
  }
  MPI_Comm_free(&comm);
}

// SEMANTICS 2.6, 3.1: 64 KiB notified puts; whenever the counter moves, the
// whole payload of every round it indicates is there.
TEST_P(Stress, ProducerConsumerPut_2_6_3_1) {
  TestWindow w(GetParam(), kSlots * kPayloadBytes);
  producer_consumer(w, Transport::put);
}

// SEMANTICS 2.6, 3.1: the same with MPI_Accumulate_notify (BXOR of the
// difference to the slot's previous round, so the result is right only if
// the accumulate combined every element).
TEST_P(Stress, ProducerConsumerAccumulate_2_6_3_1) {
  TestWindow w(GetParam(), kSlots * kPayloadBytes);
  producer_consumer(w, Transport::accumulate);
}

// SEMANTICS 3.1: MPI_Get_notify increments the producer's counter only
// after the read; the producer overwrites the slot as soon as it sees the
// increment, so an early increment corrupts what the consumer got.
TEST_P(Stress, ProducerConsumerGet_3_1) {
  TestWindow w(GetParam(), kSlots * kPayloadBytes);
  producer_consumer(w, Transport::get);
}

// SEMANTICS 2.6, 3.1: large notified puts (where transports switch to
// zero-copy and rendezvous protocols); the moment the counter moves, every
// byte is there. Each rank puts to its right neighbour and checks what its
// left neighbour put.
TEST_P(Stress, LargePutCompleteAtNotification_2_6_3_1) {
  constexpr MPI_Aint kMaxBytes = MPI_Aint{4} << 20;
  TestWindow w(GetParam(), kMaxBytes);
  w.set_num_notify(1);
  const int me = mpitest::rank();
  const int n = mpitest::size();
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  std::vector<std::uint64_t> payload(static_cast<std::size_t>(kMaxBytes) / 8);
  MPI_Win_lock_all(0, w.win());
  int round = 0;
  for (const MPI_Aint bytes : {MPI_Aint{256} << 10, MPI_Aint{1} << 20, kMaxBytes}) {
    ++round;
    const std::size_t words = static_cast<std::size_t>(bytes) / 8;
    for (std::size_t i = 0; i < words; ++i)
      payload[i] = mix((static_cast<std::uint64_t>(me) << 32) ^
                       (static_cast<std::uint64_t>(round) << 24) ^ i);
    EXPECT_MPI_OK(MPI_Put_notify(payload.data(), static_cast<int>(words), MPI_UINT64_T, right,
                                 w.disp(right, 0), static_cast<int>(words), MPI_UINT64_T, 0,
                                 w.win()));
    EXPECT_MPI_OK(MPI_Win_flush_local(right, w.win()));
    const MPI_Count seen = mpitest::wait_for_counter(w.win(), 0, round, kDeadlineSeconds);
    EXPECT_EQ(round, seen) << bytes << "-byte put from rank " << left << " never notified";
    const auto *got = reinterpret_cast<const std::uint64_t *>(w.base());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < words; ++i) {
      if (got[i] != mix((static_cast<std::uint64_t>(left) << 32) ^
                        (static_cast<std::uint64_t>(round) << 24) ^ i))
        ++wrong;
    }
    EXPECT_EQ(0U, wrong) << "of " << words << " words of a " << bytes << "-byte put from rank "
                         << left << " when its notification arrived";
    // The next round overwrites the window: everyone has checked this one.
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Win_unlock_all(w.win());
}

// --- resets racing increments -------------------------------------------------

// SEMANTICS 2.7: every rank issues zero-byte notified puts (each flushed)
// to one counter of the target while the target keeps resetting it; the
// resets' sum plus what is left equals the number of operations exactly. A
// rank stops at kMaxOps or after kBudgetSeconds, whichever comes first
// (oversubscribed MPICH is slow), and the total is agreed afterwards. At np
// 1 the rank alternates the two itself.
TEST_P(Stress, ResetRacesIncrements_2_7) {
  constexpr int kMaxOps = 2000;
  constexpr double kBudgetSeconds = 0.5;
  constexpr int kIdx = 1;
  TestWindow w(GetParam(), 64);
  w.set_num_notify(2);
  MPI_Win win = w.win();
  const int target = mpitest::size() - 1;
  const bool is_target = mpitest::rank() == target;

  MPI_Count reset_sum = 0;
  int resets = 0;
  int nonzero_resets = 0;
  int negative_resets = 0;
  long long issued = 0;
  long long total = -1;
  bool issuing = true;
  MPI_Request agreed = MPI_REQUEST_NULL;
  bool all_done = false;
  EXPECT_MPI_OK(MPI_Win_lock_all(0, win));
  const double start = MPI_Wtime();
  const double deadline = start + kDeadlineSeconds;
  while (!all_done) {
    if (issuing) {
      EXPECT_MPI_OK(
          MPI_Put_notify(nullptr, 0, MPI_BYTE, target, w.disp(target, 0), 0, MPI_BYTE, kIdx, win));
      EXPECT_MPI_OK(MPI_Win_flush(target, win));
      ++issued;
      if (issued == kMaxOps || MPI_Wtime() - start > kBudgetSeconds) {
        issuing = false;
        EXPECT_MPI_OK(MPI_Win_unlock_all(win));
        // Completes once every rank's increments are complete; gives the total.
        EXPECT_MPI_OK(
            MPI_Iallreduce(&issued, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD, &agreed));
      }
    }
    if (is_target) {
      MPI_Count old = -1;
      EXPECT_MPI_OK(MPI_Win_reset_notify_value(win, kIdx, &old));
      ++resets;
      if (old < 0) ++negative_resets;
      if (old > 0) ++nonzero_resets;
      reset_sum += old;
    }
    if (!issuing) {
      int flag = 0;
      EXPECT_MPI_OK(MPI_Test(&agreed, &flag, MPI_STATUS_IGNORE));
      all_done = flag != 0;
      if (!all_done && MPI_Wtime() > deadline) {
        ADD_FAILURE() << "the other ranks did not finish in time";
        EXPECT_MPI_OK(MPI_Wait(&agreed, MPI_STATUS_IGNORE));
        all_done = true;
      }
      sched_yield();
    }
  }
  if (is_target) {
    MPI_Count left = -1;
    EXPECT_MPI_OK(MPI_Win_reset_notify_value(win, kIdx, &left));
    EXPECT_EQ(0, negative_resets) << "a reset returned a negative value";
    EXPECT_LE(reset_sum, total) << "resets returned more than was ever sent";
    EXPECT_EQ(total, reset_sum + left)
        << resets << " resets (" << nonzero_resets << " non-zero) summed " << reset_sum << ", "
        << left << " left over";
    EXPECT_GT(nonzero_resets, 0);
    MPI_Count v = -1;
    EXPECT_MPI_OK(MPI_Win_get_notify_value(win, kIdx, &v));
    EXPECT_EQ(0, v);
    EXPECT_MPI_OK(MPI_Win_get_notify_value(win, 0, &v));
    EXPECT_EQ(0, v) << "the other counter moved";
  }
  EXPECT_GT(total, 0);
  MPI_Barrier(MPI_COMM_WORLD);
}

// --- many counters, many origins ----------------------------------------------

// How many times rank `origin` notifies counter `idx` of rank `target`.
int times(int origin, int target, int idx) { return 1 + (3 * origin + 5 * target + 7 * idx) % 5; }

// SEMANTICS 3.1, 3.6: every rank notifies every counter of every rank
// (itself included) a different number of times, mixing zero-byte puts,
// accumulates (+1 into the word of that counter) and NO_OP
// get-accumulates, interleaved across targets and counters; after
// unlock_all and a barrier every counter and every word is exact.
TEST_P(Stress, ManyCountersManyOrigins_3_1) {
  constexpr int kCounters = 16;
  constexpr int kMaxTimes = 5;
  TestWindow w(GetParam(), kCounters * static_cast<MPI_Aint>(sizeof(std::int64_t)));
  w.set_num_notify(kCounters);
  MPI_Win win = w.win();
  const int n = mpitest::size();
  const int me = mpitest::rank();
  const std::int64_t one = 1;
  std::int64_t ignored = 0;
  EXPECT_MPI_OK(MPI_Win_lock_all(0, win));
  for (int k = 0; k < kMaxTimes; ++k) {
    for (int step = 0; step < n; ++step) {
      const int t = (me + step) % n;  // every origin starts at a different target
      for (int idx = 0; idx < kCounters; ++idx) {
        if (k >= times(me, t, idx)) continue;
        const MPI_Aint disp = w.disp(t, idx * static_cast<MPI_Aint>(sizeof(std::int64_t)));
        switch (k % 3) {
          case 0:
            EXPECT_MPI_OK(MPI_Accumulate_notify(&one, 1, MPI_INT64_T, t, disp, 1, MPI_INT64_T,
                                                MPI_SUM, idx, win));
            break;
          case 1:
            EXPECT_MPI_OK(MPI_Put_notify(nullptr, 0, MPI_BYTE, t, disp, 0, MPI_BYTE, idx, win));
            break;
          default:
            EXPECT_MPI_OK(MPI_Get_accumulate_notify(&one, 1, MPI_INT64_T, &ignored, 1, MPI_INT64_T,
                                                    t, disp, 1, MPI_INT64_T, MPI_NO_OP, idx, win));
            break;
        }
      }
    }
    EXPECT_MPI_OK(MPI_Win_flush_all(win));
  }
  EXPECT_MPI_OK(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  const auto *words = w.as<std::int64_t>();
  for (int idx = 0; idx < kCounters; ++idx) {
    MPI_Count expected_count = 0;
    std::int64_t expected_sum = 0;
    for (int s = 0; s < n; ++s) {
      expected_count += times(s, me, idx);
      expected_sum += (times(s, me, idx) + 2) / 3;  // rounds k = 0, 3 accumulate
    }
    MPI_Count v = -1;
    EXPECT_MPI_OK(MPI_Win_get_notify_value(win, idx, &v));
    EXPECT_EQ(expected_count, v) << "counter " << idx << " of rank " << me;
    EXPECT_EQ(expected_sum, words[idx]) << "word " << idx << " of rank " << me;
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

INSTANTIATE_TEST_SUITE_P(AllFlavors, Stress, testing::ValuesIn(mpitest::all_flavors()),
                         mpitest::flavor_param_name);

}  // namespace
