// MPINOTIFY_* parameters (SEMANTICS 6.4): parse_params and parse_unsigned,
// pure functions, no MPI run time.
#include <gtest/gtest.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "params.hpp"
#include "peer_deadline.hpp"

namespace {

using mpinotify::EnvLookup;
using mpinotify::Params;
using mpinotify::parse_params;
using mpinotify::parse_unsigned;

// An environment holding exactly `vars`.
EnvLookup environment(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char *name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

bool any_warning_mentions(const Params &p, const std::string &a, const std::string &b) {
  for (const std::string &w : p.warnings) {
    if (w.find(a) != std::string::npos && w.find(b) != std::string::npos) return true;
  }
  return false;
}

TEST(ParseParams, DefaultsWhenNothingIsSet_6_4) {
  const Params p = parse_params(environment({}));
  EXPECT_EQ("", p.backend);
  EXPECT_EQ(16, p.num_counters);
  EXPECT_EQ(0u, p.counter_memory_limit);
  EXPECT_EQ(0, p.verbose);
  EXPECT_TRUE(p.warnings.empty());
}

TEST(ParseParams, ValidValuesAreTaken_6_4) {
  const Params p = parse_params(environment({{"MPINOTIFY_BACKEND", "pmpi"},
                                             {"MPINOTIFY_NUM_COUNTERS", "40"},
                                             {"MPINOTIFY_COUNTER_MEMORY_LIMIT", "67108864"},
                                             {"MPINOTIFY_VERBOSE", "1"}}));
  EXPECT_EQ("pmpi", p.backend);
  EXPECT_EQ(40, p.num_counters);
  EXPECT_EQ(67108864u, p.counter_memory_limit);
  EXPECT_EQ(1, p.verbose);
  EXPECT_TRUE(p.warnings.empty());
}

TEST(ParseParams, ZeroAndLeadingZerosAreValid_6_4) {
  const Params p = parse_params(
      environment({{"MPINOTIFY_NUM_COUNTERS", "0"}, {"MPINOTIFY_COUNTER_MEMORY_LIMIT", "0008"}}));
  EXPECT_EQ(0, p.num_counters);
  EXPECT_EQ(8u, p.counter_memory_limit);
  EXPECT_TRUE(p.warnings.empty());
}

TEST(ParseParams, EmptyValuesKeepDefaultsSilently_6_4) {
  const Params p = parse_params(environment({{"MPINOTIFY_NUM_COUNTERS", ""},
                                             {"MPINOTIFY_COUNTER_MEMORY_LIMIT", ""},
                                             {"MPINOTIFY_VERBOSE", ""}}));
  EXPECT_EQ(16, p.num_counters);
  EXPECT_EQ(0u, p.counter_memory_limit);
  EXPECT_EQ(0, p.verbose);
  EXPECT_TRUE(p.warnings.empty());
}

// Every malformed value keeps its default and leaves one warning naming
// the variable and the value.
TEST(ParseParams, MalformedValuesKeepDefaultAndWarn_6_4) {
  for (const std::string bad : {"abc", "-1", "+5", " 5", "5 ", "12x", "1.5", "0x10", "1e3"}) {
    const Params p = parse_params(environment({{"MPINOTIFY_NUM_COUNTERS", bad},
                                               {"MPINOTIFY_COUNTER_MEMORY_LIMIT", bad},
                                               {"MPINOTIFY_VERBOSE", bad}}));
    EXPECT_EQ(16, p.num_counters) << bad;
    EXPECT_EQ(0u, p.counter_memory_limit) << bad;
    EXPECT_EQ(0, p.verbose) << bad;
    EXPECT_EQ(3u, p.warnings.size()) << bad;
    EXPECT_TRUE(any_warning_mentions(p, "MPINOTIFY_NUM_COUNTERS", "\"" + bad + "\"")) << bad;
    EXPECT_TRUE(any_warning_mentions(p, "MPINOTIFY_COUNTER_MEMORY_LIMIT", "\"" + bad + "\""))
        << bad;
    EXPECT_TRUE(any_warning_mentions(p, "MPINOTIFY_VERBOSE", "\"" + bad + "\"")) << bad;
  }
}

TEST(ParseParams, OneBadValueDoesNotSpoilTheOthers_6_4) {
  const Params p = parse_params(environment(
      {{"MPINOTIFY_NUM_COUNTERS", "oops"}, {"MPINOTIFY_COUNTER_MEMORY_LIMIT", "4096"}}));
  EXPECT_EQ(16, p.num_counters);
  EXPECT_EQ(4096u, p.counter_memory_limit);
  ASSERT_EQ(1u, p.warnings.size());
  EXPECT_NE(std::string::npos, p.warnings[0].find("MPINOTIFY_NUM_COUNTERS"));
  EXPECT_NE(std::string::npos, p.warnings[0].find("default"));
}

// Each parameter's range: the largest value is taken, one more is refused.
TEST(ParseParams, OverflowKeepsDefaultAndWarns_6_4) {
  {
    const Params p = parse_params(environment({{"MPINOTIFY_NUM_COUNTERS", "2147483647"}}));
    EXPECT_EQ(INT_MAX, p.num_counters);
    EXPECT_TRUE(p.warnings.empty());
  }
  {
    const Params p = parse_params(environment({{"MPINOTIFY_NUM_COUNTERS", "2147483648"}}));
    EXPECT_EQ(16, p.num_counters);
    EXPECT_TRUE(any_warning_mentions(p, "MPINOTIFY_NUM_COUNTERS", "2147483647"));
  }
  {
    const Params p =
        parse_params(environment({{"MPINOTIFY_COUNTER_MEMORY_LIMIT", "18446744073709551615"}}));
    EXPECT_EQ(UINT64_MAX, p.counter_memory_limit);
    EXPECT_TRUE(p.warnings.empty());
  }
  for (const std::string big :
       {"18446744073709551616", "99999999999999999999", "123456789012345678901234567890"}) {
    const Params p = parse_params(environment({{"MPINOTIFY_COUNTER_MEMORY_LIMIT", big}}));
    EXPECT_EQ(0u, p.counter_memory_limit) << big;
    EXPECT_EQ(1u, p.warnings.size()) << big;
  }
}

// MPINOTIFY_VERBOSE is an integer in [0, 1] (its warning says so): 2 is out
// of range like any other bad value.
TEST(ParseParams, VerboseAboveOneKeepsDefaultAndWarns_6_4) {
  for (const std::string big : {"2", "9", "10"}) {
    const Params p = parse_params(environment({{"MPINOTIFY_VERBOSE", big}}));
    EXPECT_EQ(0, p.verbose) << big;
    EXPECT_TRUE(any_warning_mentions(p, "MPINOTIFY_VERBOSE", "\"" + big + "\"")) << big;
  }
}

// MPINOTIFY_SKIP_IDLE_HOST_FLUSH: on unless 0; only 0 and 1 are values.
TEST(ParseParams, SkipIdleHostFlushIsOnOrOff_3_9) {
  EXPECT_EQ(1, parse_params(environment({})).skip_idle_host_flush);
  EXPECT_EQ(
      0, parse_params(environment({{"MPINOTIFY_SKIP_IDLE_HOST_FLUSH", "0"}})).skip_idle_host_flush);
  EXPECT_EQ(
      1, parse_params(environment({{"MPINOTIFY_SKIP_IDLE_HOST_FLUSH", "1"}})).skip_idle_host_flush);
  for (const std::string bad : {"2", "yes", "-1"}) {
    const Params p = parse_params(environment({{"MPINOTIFY_SKIP_IDLE_HOST_FLUSH", bad}}));
    EXPECT_EQ(1, p.skip_idle_host_flush) << bad;
    EXPECT_TRUE(any_warning_mentions(p, "MPINOTIFY_SKIP_IDLE_HOST_FLUSH", "\"" + bad + "\""))
        << bad;
  }
}

// MPINOTIFY_PEER_TIMEOUT: seconds, 0 (forever) up to a day.
TEST(ParseParams, PeerTimeoutIsSecondsUpToADay_6_1) {
  EXPECT_EQ(60, parse_params(environment({})).peer_timeout);
  EXPECT_EQ(0, parse_params(environment({{"MPINOTIFY_PEER_TIMEOUT", "0"}})).peer_timeout);
  EXPECT_EQ(5, parse_params(environment({{"MPINOTIFY_PEER_TIMEOUT", "5"}})).peer_timeout);
  EXPECT_EQ(86400, parse_params(environment({{"MPINOTIFY_PEER_TIMEOUT", "86400"}})).peer_timeout);
  for (const std::string bad : {"86401", "1.5", "-1", "ten"}) {
    const Params p = parse_params(environment({{"MPINOTIFY_PEER_TIMEOUT", bad}}));
    EXPECT_EQ(60, p.peer_timeout) << bad;
    EXPECT_TRUE(any_warning_mentions(p, "MPINOTIFY_PEER_TIMEOUT", "\"" + bad + "\"")) << bad;
  }
}

// MPINOTIFY_WAIT_SPIN: auto (-1), or microseconds up to a second.
TEST(ParseParams, WaitSpinIsAutoOrMicrosecondsUpToASecond_6_4) {
  EXPECT_EQ(-1, parse_params(environment({})).wait_spin_us);
  EXPECT_EQ(-1, parse_params(environment({{"MPINOTIFY_WAIT_SPIN", "auto"}})).wait_spin_us);
  EXPECT_EQ(-1, parse_params(environment({{"MPINOTIFY_WAIT_SPIN", ""}})).wait_spin_us);
  EXPECT_EQ(0, parse_params(environment({{"MPINOTIFY_WAIT_SPIN", "0"}})).wait_spin_us);
  EXPECT_EQ(50, parse_params(environment({{"MPINOTIFY_WAIT_SPIN", "50"}})).wait_spin_us);
  EXPECT_EQ(1000000, parse_params(environment({{"MPINOTIFY_WAIT_SPIN", "1000000"}})).wait_spin_us);
  for (const std::string bad : {"1000001", "-1", "Auto", "5us", "1.5"}) {
    const Params p = parse_params(environment({{"MPINOTIFY_WAIT_SPIN", bad}}));
    EXPECT_EQ(-1, p.wait_spin_us) << bad;
    EXPECT_TRUE(any_warning_mentions(p, "MPINOTIFY_WAIT_SPIN", "\"" + bad + "\"")) << bad;
  }
}

TEST(ParseParams, BackendIsTakenVerbatim_6_4) {
  EXPECT_EQ("ucx", parse_params(environment({{"MPINOTIFY_BACKEND", "ucx"}})).backend);
  EXPECT_EQ("", parse_params(environment({{"MPINOTIFY_BACKEND", ""}})).backend);
  EXPECT_EQ("tcp", parse_params(environment({{"MPINOTIFY_OFI_PROVIDER", "tcp"}})).ofi_provider);
}

TEST(ParseParams, OfiNotifyIsOneOfThreeWords_6_4) {
  for (const std::string good : {"auto", "data", "atomic"})
    EXPECT_EQ(good, parse_params(environment({{"MPINOTIFY_OFI_NOTIFY", good}})).ofi_notify);
  EXPECT_EQ("auto", parse_params(environment({{"MPINOTIFY_OFI_NOTIFY", ""}})).ofi_notify);
  for (const std::string bad : {"Atomic", "cq", "data "}) {
    const Params p = parse_params(environment({{"MPINOTIFY_OFI_NOTIFY", bad}}));
    EXPECT_EQ("auto", p.ofi_notify) << bad;
    EXPECT_TRUE(any_warning_mentions(p, "MPINOTIFY_OFI_NOTIFY", "\"" + bad + "\"")) << bad;
  }
}

// The table tools print lists every parameter with the default parse_params uses.
TEST(ParamTable, ListsEveryParameterWithItsDefault_6_4) {
  std::map<std::string, std::string> defaults;
  for (const mpinotify::ParamInfo &info : mpinotify::param_table()) {
    ASSERT_NE(nullptr, info.name);
    ASSERT_NE(nullptr, info.default_value);
    ASSERT_NE(nullptr, info.description);
    EXPECT_NE(std::string(info.description), "") << info.name;
    defaults[info.name] = info.default_value;
  }
  ASSERT_EQ(14u, defaults.size());
  EXPECT_EQ("auto", defaults.at("MPINOTIFY_WAIT_SPIN"));
  EXPECT_EQ("67108864", defaults.at("MPINOTIFY_PREFAULT"));
  EXPECT_EQ("0", defaults.at("MPINOTIFY_STATS"));
  EXPECT_EQ("", defaults.at("MPINOTIFY_STATS_FILE"));
  EXPECT_EQ("", defaults.at("MPINOTIFY_OFI_PROVIDER"));
  EXPECT_EQ("auto", defaults.at("MPINOTIFY_OFI_NOTIFY"));
  EXPECT_EQ("60", defaults.at("MPINOTIFY_PEER_TIMEOUT"));
  EXPECT_EQ("1", defaults.at("MPINOTIFY_SKIP_IDLE_HOST_FLUSH"));
  EXPECT_EQ("", defaults.at("MPINOTIFY_BACKEND"));
  EXPECT_EQ("", defaults.at("MPINOTIFY_FAULT"));
  EXPECT_EQ("0", defaults.at("MPINOTIFY_SM_COUNTER_STRIDE"));
  EXPECT_EQ("16", defaults.at("MPINOTIFY_NUM_COUNTERS"));
  EXPECT_EQ("0", defaults.at("MPINOTIFY_COUNTER_MEMORY_LIMIT"));
  EXPECT_EQ("0", defaults.at("MPINOTIFY_VERBOSE"));
  // Setting every parameter to its listed default changes nothing.
  std::map<std::string, std::string> vars(defaults.begin(), defaults.end());
  const Params p = parse_params(environment(vars));
  const Params d = parse_params(environment({}));
  EXPECT_EQ(d.backend, p.backend);
  EXPECT_EQ(d.num_counters, p.num_counters);
  EXPECT_EQ(d.counter_memory_limit, p.counter_memory_limit);
  EXPECT_EQ(d.sm_counter_stride, p.sm_counter_stride);
  EXPECT_EQ(d.verbose, p.verbose);
  EXPECT_EQ(d.fault, p.fault);
  EXPECT_EQ(d.ofi_notify, p.ofi_notify);
  EXPECT_EQ(d.stats, p.stats);
  EXPECT_EQ(d.stats_file, p.stats_file);
  EXPECT_EQ(d.wait_spin_us, p.wait_spin_us);
  EXPECT_EQ(d.prefault_bytes, p.prefault_bytes);
  EXPECT_EQ(d.peer_timeout, p.peer_timeout);
  EXPECT_TRUE(p.warnings.empty());
}

// MPINOTIFY_STATS is 0 or 1; a file prefix turns counting on by itself.
TEST(ParseParams, StatsIsOnOffOrAFile_6_4) {
  EXPECT_EQ(0, parse_params(environment({})).stats);
  EXPECT_EQ(1, parse_params(environment({{"MPINOTIFY_STATS", "1"}})).stats);
  const Params bad = parse_params(environment({{"MPINOTIFY_STATS", "yes"}}));
  EXPECT_EQ(0, bad.stats);
  EXPECT_TRUE(any_warning_mentions(bad, "MPINOTIFY_STATS", "yes"));
  const Params file = parse_params(environment({{"MPINOTIFY_STATS_FILE", "/tmp/counts"}}));
  EXPECT_EQ(1, file.stats);
  EXPECT_EQ("/tmp/counts", file.stats_file);
  EXPECT_TRUE(file.warnings.empty());
}

// MPINOTIFY_FAULT: a point on every rank, or on one rank with @rank; only
// whole items match.
TEST(FaultListed, PointsAndRanks) {
  using mpinotify::fault_listed;
  EXPECT_FALSE(fault_listed("", "reserve:sm", 0));
  EXPECT_TRUE(fault_listed("reserve:sm", "reserve:sm", 0));
  EXPECT_TRUE(fault_listed("reserve:sm", "reserve:sm", 3));
  EXPECT_TRUE(fault_listed("reserve:ucx,reserve:sm@1", "reserve:sm", 1));
  EXPECT_FALSE(fault_listed("reserve:ucx,reserve:sm@1", "reserve:sm", 0));
  EXPECT_TRUE(fault_listed("reserve:ucx,reserve:sm@1", "reserve:ucx", 0));
  EXPECT_FALSE(fault_listed("reserve:smx", "reserve:sm", 0));
  EXPECT_FALSE(fault_listed("reserve:sm@12", "reserve:sm", 1));
  EXPECT_FALSE(fault_listed("xreserve:sm", "reserve:sm", 0));
  EXPECT_EQ("reserve:pmpi@0",
            parse_params(environment({{"MPINOTIFY_FAULT", "reserve:pmpi@0"}})).fault);
}

TEST(ParseUnsigned, AcceptsDecimalDigitsUpToMax) {
  EXPECT_EQ(std::optional<std::uint64_t>(0), parse_unsigned("0", 10));
  EXPECT_EQ(std::optional<std::uint64_t>(7), parse_unsigned("007", 10));
  EXPECT_EQ(std::optional<std::uint64_t>(10), parse_unsigned("10", 10));
  EXPECT_EQ(std::nullopt, parse_unsigned("11", 10));
  EXPECT_EQ(std::optional<std::uint64_t>(0), parse_unsigned("0", 0));
  EXPECT_EQ(std::optional<std::uint64_t>(1), parse_unsigned("1", 1));
  EXPECT_EQ(std::optional<std::uint64_t>(INT_MAX), parse_unsigned("2147483647", INT_MAX));
  EXPECT_EQ(std::nullopt, parse_unsigned("2147483648", INT_MAX));
  EXPECT_EQ(std::optional<std::uint64_t>(UINT64_MAX),
            parse_unsigned("18446744073709551615", UINT64_MAX));
  EXPECT_EQ(std::optional<std::uint64_t>(UINT64_MAX - 1),
            parse_unsigned("18446744073709551614", UINT64_MAX));
}

// A value above `max` is refused also when `max` is below 9, i.e. when a
// single digit already exceeds it.
TEST(ParseUnsigned, SingleDigitAboveSmallMaxIsRefused) {
  EXPECT_EQ(std::nullopt, parse_unsigned("1", 0));
  EXPECT_EQ(std::nullopt, parse_unsigned("2", 1));
  EXPECT_EQ(std::nullopt, parse_unsigned("9", 5));
  EXPECT_EQ(std::nullopt, parse_unsigned("09", 5));
  EXPECT_EQ(std::optional<std::uint64_t>(5), parse_unsigned("5", 5));
}

TEST(ParseUnsigned, RefusesEverythingElse) {
  for (const std::string bad : {"", "-0", "-1", "+1", " 1", "1 ", "1a", "a1", "0x1", "1.0", "1,000",
                                "\t1", "\xd9\xa1" /* Arabic-Indic one */}) {
    EXPECT_EQ(std::nullopt, parse_unsigned(bad, UINT64_MAX)) << '"' << bad << '"';
  }
}

TEST(ParseUnsigned, OverflowIsRefusedNotWrapped) {
  EXPECT_EQ(std::nullopt, parse_unsigned("18446744073709551616", UINT64_MAX));  // 2^64
  EXPECT_EQ(std::nullopt, parse_unsigned("18446744073709551625", UINT64_MAX));
  EXPECT_EQ(std::nullopt, parse_unsigned("36893488147419103232", UINT64_MAX));  // 2^65
  EXPECT_EQ(std::nullopt, parse_unsigned("99999999999999999999", UINT64_MAX));
  // Longer than any uint64_t, even with leading zeros.
  EXPECT_EQ(std::nullopt, parse_unsigned("000000000000000000001", UINT64_MAX));
}

}  // namespace

// MPINOTIFY_SM_COUNTER_STRIDE: bytes up to a page; larger or malformed
// values keep the default (a cache line) and warn.
TEST(ParseParams, SmCounterStride_6_4) {
  EXPECT_EQ(0u, parse_params(environment({})).sm_counter_stride);
  EXPECT_EQ(8u,
            parse_params(environment({{"MPINOTIFY_SM_COUNTER_STRIDE", "8"}})).sm_counter_stride);
  const Params big = parse_params(environment({{"MPINOTIFY_SM_COUNTER_STRIDE", "4097"}}));
  EXPECT_EQ(0u, big.sm_counter_stride);
  EXPECT_EQ(1u, big.warnings.size());
}

// MPINOTIFY_PREFAULT: bytes, 0 turns it off; malformed values keep the
// default (64 MiB) and warn.
TEST(ParseParams, Prefault) {
  EXPECT_EQ(std::uint64_t{64} << 20, parse_params(environment({})).prefault_bytes);
  EXPECT_EQ(0u, parse_params(environment({{"MPINOTIFY_PREFAULT", "0"}})).prefault_bytes);
  EXPECT_EQ(4096u, parse_params(environment({{"MPINOTIFY_PREFAULT", "4096"}})).prefault_bytes);
  const Params bad = parse_params(environment({{"MPINOTIFY_PREFAULT", "1G"}}));
  EXPECT_EQ(std::uint64_t{64} << 20, bad.prefault_bytes);
  EXPECT_TRUE(any_warning_mentions(bad, "MPINOTIFY_PREFAULT", "1G"));
}

// The deadline of a wait on a peer: 0 never passes; otherwise it counts from
// the first check, not from construction.
TEST(PeerDeadline, CountsFromTheFirstCheckAndNeverForZero_6_1) {
  mpinotify::PeerDeadline forever(0);
  EXPECT_FALSE(forever.passed());
  mpinotify::PeerDeadline one_second(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_FALSE(one_second.passed()) << "counted from construction";
  EXPECT_FALSE(one_second.passed());
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_TRUE(one_second.passed());
  EXPECT_FALSE(forever.passed());
  EXPECT_EQ(1, one_second.seconds());
}

// A polling loop's deadline asks the clock on every 256th round only.
TEST(PeerDeadline, PollingLoopsCheckEvery256thRound_6_1) {
  mpinotify::PeerDeadline one_second(1);
  EXPECT_FALSE(one_second.passed());  // starts the count
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  for (int round = 1; round < 256; ++round) EXPECT_FALSE(one_second.passed_after_round()) << round;
  EXPECT_TRUE(one_second.passed_after_round());
}
