// Window creation hints (SEMANTICS 4.2, 4.3, 4.5): parse_creation_hints and
// notify_limits, pure functions, no MPI run time.
#include <gtest/gtest.h>

#include <climits>
#include <optional>
#include <string>

#include "hints.hpp"

namespace {

using mpinotify::CreationHints;
using mpinotify::Errc;
using mpinotify::notify_limits;
using mpinotify::NotifyLimits;
using mpinotify::parse_creation_hints;
using mpinotify::Status;

const std::optional<std::string> kAbsent;

TEST(CreationHints, AbsentKeysMeanNoLimitAndEnabled_4_2) {
  CreationHints out{99, true};
  EXPECT_TRUE(parse_creation_hints(kAbsent, kAbsent, out).ok());
  EXPECT_EQ(0, out.max_num_notify);
  EXPECT_FALSE(out.disabled);
}

TEST(CreationHints, ValidAssertions_4_2) {
  for (const auto &[text, value] : {std::pair<std::string, int>{"5", 5},
                                    {"1", 1},
                                    {"0", 0},
                                    {"0016", 16},
                                    {"2147483647", INT_MAX}}) {
    CreationHints out;
    const Status st = parse_creation_hints(text, kAbsent, out);
    EXPECT_TRUE(st.ok()) << text << ": " << st.message();
    EXPECT_EQ(value, out.max_num_notify) << text;
    EXPECT_FALSE(out.disabled);
  }
}

// A malformed assertion is Errc::info (MPI_ERR_INFO), names the key and the
// value, and leaves `out` as it was.
TEST(CreationHints, MalformedAssertionIsInfoError_4_2) {
  for (const std::string bad :
       {"", "-1", "+3", " 4", "4 ", "four", "4k", "2147483648", "99999999999999999999999", "1.0"}) {
    CreationHints out{7, true};
    const Status st = parse_creation_hints(bad, kAbsent, out);
    EXPECT_EQ(Errc::info, st.code()) << '"' << bad << '"';
    EXPECT_NE(std::string::npos, st.message().find("mpi_assert_max_num_notify")) << st.message();
    EXPECT_NE(std::string::npos, st.message().find("\"" + bad + "\"")) << st.message();
    EXPECT_EQ(7, out.max_num_notify) << "output changed on error";
    EXPECT_TRUE(out.disabled) << "output changed on error";
  }
}

TEST(CreationHints, DisableTrueAndFalse_4_5) {
  CreationHints out;
  EXPECT_TRUE(parse_creation_hints(kAbsent, std::string("true"), out).ok());
  EXPECT_TRUE(out.disabled);
  EXPECT_TRUE(parse_creation_hints(kAbsent, std::string("false"), out).ok());
  EXPECT_FALSE(out.disabled);
  EXPECT_TRUE(parse_creation_hints(std::string("3"), std::string("true"), out).ok());
  EXPECT_TRUE(out.disabled);
  EXPECT_EQ(3, out.max_num_notify);
}

TEST(CreationHints, DisableOtherValuesAreInfoErrors_4_5) {
  for (const std::string other : {"", "TRUE", "True", "yes", "1", "0", "no", " true", "true "}) {
    CreationHints out{4, false};
    const Status st = parse_creation_hints(kAbsent, other, out);
    EXPECT_EQ(Errc::info, st.code()) << '"' << other << '"';
    EXPECT_NE(std::string::npos, st.message().find("mpinotify_disable")) << st.message();
    EXPECT_NE(std::string::npos, st.message().find("\"" + other + "\"")) << st.message();
    EXPECT_EQ(4, out.max_num_notify);
    EXPECT_FALSE(out.disabled);
  }
}

TEST(CreationHints, BadAssertionWithValidDisableStillFails_4_2) {
  CreationHints out;
  EXPECT_EQ(Errc::info, parse_creation_hints(std::string("x"), std::string("true"), out).code());
  EXPECT_EQ(Errc::info, parse_creation_hints(std::string("2"), std::string("maybe"), out).code());
  EXPECT_FALSE(out.disabled);
}

// SEMANTICS 4.2b: mpi_assert_same_num_notifications is "true" or "false"
// (absent: false); anything else is Errc::info naming key and value.
TEST(CreationHints, SameNumNotifications_4_2b) {
  CreationHints out;
  EXPECT_TRUE(parse_creation_hints(kAbsent, kAbsent, out, std::string("true")).ok());
  EXPECT_TRUE(out.same_num_notifications);
  EXPECT_TRUE(parse_creation_hints(kAbsent, kAbsent, out, std::string("false")).ok());
  EXPECT_FALSE(out.same_num_notifications);
  EXPECT_TRUE(parse_creation_hints(std::string("4"), kAbsent, out, std::string("true")).ok());
  EXPECT_TRUE(out.same_num_notifications);
  EXPECT_EQ(4, out.max_num_notify);
  EXPECT_TRUE(parse_creation_hints(kAbsent, kAbsent, out).ok());
  EXPECT_FALSE(out.same_num_notifications);
  for (const std::string other : {"", "TRUE", "1", "yes", " true"}) {
    CreationHints kept{3, false, true};
    const Status st = parse_creation_hints(kAbsent, kAbsent, kept, other);
    EXPECT_EQ(Errc::info, st.code()) << '"' << other << '"';
    EXPECT_NE(std::string::npos, st.message().find("mpi_assert_same_num_notifications"))
        << st.message();
    EXPECT_NE(std::string::npos, st.message().find("\"" + other + "\"")) << st.message();
    EXPECT_TRUE(kept.same_num_notifications) << "output changed on error";
    EXPECT_EQ(3, kept.max_num_notify) << "output changed on error";
  }
}

// SEMANTICS 4.3: NUM_UB is the assertion if given, else INT_MAX; NUM_SB is
// the assertion if given, else the default reservation; NUM_SB <= NUM_UB.
TEST(NotifyLimits, AssertionGivesBothBounds_4_3) {
  const NotifyLimits l = notify_limits(CreationHints{5, false}, 16);
  EXPECT_EQ(5, l.num_sb);
  EXPECT_EQ(5, l.num_ub);
  const NotifyLimits big = notify_limits(CreationHints{100, false}, 16);
  EXPECT_EQ(100, big.num_sb);
  EXPECT_EQ(100, big.num_ub);
  const NotifyLimits max = notify_limits(CreationHints{INT_MAX, false}, 16);
  EXPECT_EQ(INT_MAX, max.num_sb);
  EXPECT_EQ(INT_MAX, max.num_ub);
}

TEST(NotifyLimits, NoAssertionGivesDefaultReservationAndIntMax_4_3) {
  for (int reservation : {0, 1, 16, 1000, INT_MAX}) {
    const NotifyLimits l = notify_limits(CreationHints{0, false}, reservation);
    EXPECT_EQ(reservation, l.num_sb);
    EXPECT_EQ(INT_MAX, l.num_ub);
    EXPECT_LE(l.num_sb, l.num_ub);
  }
}

TEST(NotifyLimits, NegativeReservationIsClampedToZero_4_3) {
  const NotifyLimits l = notify_limits(CreationHints{0, false}, -3);
  EXPECT_EQ(0, l.num_sb);
  EXPECT_EQ(INT_MAX, l.num_ub);
}

// SEMANTICS 4.5: a disabled window's attributes read 0, assertion or not.
TEST(NotifyLimits, DisabledWindowHasZeroBounds_4_5) {
  for (int assertion : {0, 7}) {
    const NotifyLimits l = notify_limits(CreationHints{assertion, true}, 16);
    EXPECT_EQ(0, l.num_sb);
    EXPECT_EQ(0, l.num_ub);
  }
}

TEST(NotifyLimits, SbNeverExceedsUb_4_3) {
  for (int assertion : {0, 1, 3, 16, 17, 5000}) {
    for (int reservation : {-1, 0, 4, 16, 64, INT_MAX}) {
      const NotifyLimits l = notify_limits(CreationHints{assertion, false}, reservation);
      EXPECT_LE(l.num_sb, l.num_ub) << assertion << " " << reservation;
      EXPECT_GE(l.num_sb, 0);
    }
  }
}

}  // namespace
