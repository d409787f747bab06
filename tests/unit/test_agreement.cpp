// Agreement verdicts (SEMANTICS 2.3, 4.2): combine_verdicts and
// agreed_status, pure functions, no MPI run time.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "agreement.hpp"

namespace {

using mpinotify::agreed_status;
using mpinotify::combine_verdicts;
using mpinotify::Errc;
using mpinotify::error;
using mpinotify::Status;
using mpinotify::Verdict;

Verdict combine(std::vector<Errc> codes) { return combine_verdicts(codes); }

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

TEST(CombineVerdicts, NobodyRefusesMeansGoAhead_2_3) {
  const Verdict none = combine({});
  EXPECT_EQ(Errc::ok, none.code);
  EXPECT_EQ(-1, none.rank);
  const Verdict all_ok = combine({Errc::ok, Errc::ok, Errc::ok});
  EXPECT_EQ(Errc::ok, all_ok.code);
  EXPECT_EQ(-1, all_ok.rank);
}

TEST(CombineVerdicts, OneRefusalDecides_2_3) {
  for (int bad = 0; bad < 4; ++bad) {
    std::vector<Errc> codes(4, Errc::ok);
    codes[static_cast<std::size_t>(bad)] = Errc::no_mem;
    const Verdict v = combine(codes);
    EXPECT_EQ(Errc::no_mem, v.code);
    EXPECT_EQ(bad, v.rank);
  }
}

// SEMANTICS 2.3: an argument error outranks an allocation error, whatever
// the ranks' order.
TEST(CombineVerdicts, HighestCodeWins_2_3) {
  Verdict v = combine({Errc::no_mem, Errc::ok, Errc::arg});
  EXPECT_EQ(Errc::arg, v.code);
  EXPECT_EQ(2, v.rank);
  v = combine({Errc::arg, Errc::no_mem});
  EXPECT_EQ(Errc::arg, v.code);
  EXPECT_EQ(0, v.rank);
  v = combine({Errc::host, Errc::info, Errc::other, Errc::rma_sync});
  EXPECT_EQ(Errc::info, v.code);
  EXPECT_EQ(1, v.rank);
}

TEST(CombineVerdicts, LowestRankAmongEqualsDecides_2_3) {
  Verdict v = combine({Errc::ok, Errc::info, Errc::no_mem, Errc::info});
  EXPECT_EQ(Errc::info, v.code);
  EXPECT_EQ(1, v.rank);
  v = combine({Errc::arg, Errc::arg, Errc::arg});
  EXPECT_EQ(0, v.rank);
  v = combine({Errc::other, Errc::no_mem, Errc::no_mem});
  EXPECT_EQ(Errc::no_mem, v.code);
  EXPECT_EQ(1, v.rank);
}

// The documented order of Errc: argument errors (decided before any
// allocation) outrank resource errors, which outrank what backends report.
TEST(CombineVerdicts, ErrcOrderPutsCallerErrorsFirst_2_3) {
  EXPECT_GT(Errc::arg, Errc::info);
  EXPECT_GT(Errc::info, Errc::no_mem);
  EXPECT_GT(Errc::arg, Errc::no_mem);
  EXPECT_GT(Errc::notification, Errc::no_mem);
  EXPECT_GT(Errc::no_mem, Errc::unsupported);
  EXPECT_GT(Errc::no_mem, Errc::host);
  EXPECT_GT(Errc::no_mem, Errc::intern);
  EXPECT_GT(Errc::host, Errc::ok);
  EXPECT_GT(Errc::other, Errc::ok);
  // Every pair: the higher code wins in either order.
  for (int a = 1; a < mpinotify::kErrcCount; ++a) {
    for (int b = 1; b < mpinotify::kErrcCount; ++b) {
      const Verdict v = combine({static_cast<Errc>(a), static_cast<Errc>(b)});
      EXPECT_EQ(static_cast<Errc>(std::max(a, b)), v.code);
      EXPECT_EQ(a >= b ? 0 : 1, v.rank);
    }
  }
}

TEST(AgreedStatus, GoAheadGivesSuccess_2_3) {
  EXPECT_TRUE(agreed_status(Status(), Verdict{}, 0, "MPI_Win_set_num_notify").ok());
}

// The deciding rank keeps its own detailed status.
TEST(AgreedStatus, DecidingRankKeepsItsOwnMessage_2_3) {
  const Status mine = error(Errc::arg, "num_notifications -5 is negative");
  const Status st = agreed_status(mine, Verdict{Errc::arg, 2}, 2, "MPI_Win_set_num_notify");
  EXPECT_EQ(Errc::arg, st.code());
  EXPECT_EQ(mine.message(), st.message());
}

// A rank that agreed gets the verdict's class with a message naming the
// operation and the rank that refused.
TEST(AgreedStatus, OthersGetAMessageNamingTheDecidingRank_2_3) {
  const Status st = agreed_status(Status(), Verdict{Errc::no_mem, 3}, 0, "MPI_Win_set_num_notify");
  EXPECT_EQ(Errc::no_mem, st.code());
  EXPECT_TRUE(contains(st.message(), "rank 3")) << st.message();
  EXPECT_TRUE(contains(st.message(), "MPI_Win_set_num_notify")) << st.message();
  EXPECT_TRUE(contains(st.message(), "MPI_ERR_NO_MEM")) << st.message();
}

// A rank whose own error lost (a lower code) reports the verdict, not its
// own error.
TEST(AgreedStatus, LowerLocalErrorGivesWayToTheVerdict_2_3) {
  const Status mine = error(Errc::no_mem, "cannot allocate");
  const Status st = agreed_status(mine, Verdict{Errc::arg, 0}, 1, "MPI_Win_set_num_notify");
  EXPECT_EQ(Errc::arg, st.code());
  EXPECT_TRUE(contains(st.message(), "rank 0")) << st.message();
  EXPECT_FALSE(contains(st.message(), "cannot allocate")) << st.message();
}

// A rank that refused for the deciding class itself, without being the
// deciding (lowest) rank, keeps its own reason: that is what its caller did
// wrong.
TEST(AgreedStatus, SameClassOnANonDecidingRankKeepsItsOwnReason_2_3) {
  const Status mine = error(Errc::arg, "num_notifications -1 is negative");
  const Status st = agreed_status(mine, Verdict{Errc::arg, 0}, 2, "MPI_Win_set_num_notify");
  EXPECT_EQ(Errc::arg, st.code());
  EXPECT_EQ(mine.message(), st.message());
}

// A host error cannot be shared as a code: the others report MPI_ERR_OTHER
// (naming the rank), the deciding rank keeps the host's code.
TEST(AgreedStatus, HostErrorBecomesOtherElsewhere_2_3) {
  const Status host = Status::from_host(12345, false, "MPI_Win_allocate failed");
  const Status mine = agreed_status(host, Verdict{Errc::host, 1}, 1, "MPI_Win_create");
  EXPECT_EQ(Errc::host, mine.code());
  EXPECT_EQ(12345, mine.host_code());
  const Status other = agreed_status(Status(), Verdict{Errc::host, 1}, 0, "MPI_Win_create");
  EXPECT_EQ(Errc::other, other.code());
  EXPECT_TRUE(contains(other.message(), "rank 1")) << other.message();
  EXPECT_TRUE(contains(other.message(), "MPI_Win_create")) << other.message();
}

}  // namespace
