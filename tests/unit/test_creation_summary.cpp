// The creation summary's reduction (osc_core/creation_summary.hpp): folding
// ranks' parts in any order gives what combine_verdicts and the per-field
// rules give for the whole group.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "agreement.hpp"
#include "creation_summary.hpp"

namespace mpinotify {
namespace {

CreationSummary fold(const std::vector<CreationSummary> &parts, const std::vector<int> &order) {
  CreationSummary all = parts[static_cast<std::size_t>(order[0])];
  for (std::size_t i = 1; i < order.size(); ++i)
    combine_summaries(parts[static_cast<std::size_t>(order[i])], all);
  return all;
}

TEST(CreationSummary, EveryOrderGivesTheGroupsAnswer) {
  const std::vector<Errc> verdicts = {Errc::ok, Errc::arg, Errc::no_mem, Errc::arg, Errc::no_mem};
  std::vector<CreationSummary> parts;
  for (int r = 0; r < 5; ++r)
    parts.push_back(summary_of_rank(
        verdicts[static_cast<std::size_t>(r)], r, r == 3, r != 1, 100 * (r + 1), r % 2 == 0 ? 4 : 8,
        7 + static_cast<std::uint64_t>(r % 2), 0xF0U | (1U << r), r != 4));
  for (int r = 0; r < 5; ++r) {
    parts[static_cast<std::size_t>(r)].window_key = 10U + (r * 3U) % 5U;
    parts[static_cast<std::size_t>(r)].groups_known = 0x5U | (1U << (r + 4));
    parts[static_cast<std::size_t>(r)].single_node = r == 2 ? 0 : 1;
  }
  const Verdict expected = combine_verdicts(verdicts);
  std::vector<int> order = {0, 1, 2, 3, 4};
  do {
    const CreationSummary all = fold(parts, order);
    EXPECT_EQ(static_cast<int>(expected.code), all.verdict);
    EXPECT_EQ(expected.rank, all.verdict_rank);
    EXPECT_EQ(1, all.disabled);
    EXPECT_EQ(0, all.same_counts);
    EXPECT_EQ(100, all.size_min);
    EXPECT_EQ(500, all.size_max);
    EXPECT_EQ(4, all.disp_unit_min);
    EXPECT_EQ(8, all.disp_unit_max);
    EXPECT_EQ(7U, all.node_min);
    EXPECT_EQ(8U, all.node_max);
    EXPECT_EQ(14U, all.window_key);
    EXPECT_EQ(0xF0U, all.backends);
    EXPECT_EQ(0, all.backends_known);
    EXPECT_EQ(0x5U, all.groups_known);
    EXPECT_EQ(0, all.single_node);  // one rank did not know
  } while (std::next_permutation(order.begin(), order.end()));
}

TEST(CreationSummary, AGroupThatAgreesStaysUniform) {
  std::vector<CreationSummary> parts;
  for (int r = 0; r < 3; ++r)
    parts.push_back(summary_of_rank(Errc::ok, r, false, true, 4096, 8, 42, 0x6U, true));
  for (CreationSummary &part : parts) part.single_node = 1;
  const CreationSummary all = fold(parts, {2, 0, 1});
  EXPECT_EQ(0, all.verdict);
  EXPECT_EQ(0, all.disabled);
  EXPECT_EQ(1, all.same_counts);
  EXPECT_EQ(all.size_min, all.size_max);
  EXPECT_EQ(all.disp_unit_min, all.disp_unit_max);
  EXPECT_EQ(all.node_min, all.node_max);
  EXPECT_EQ(0x6U, all.backends);
  EXPECT_EQ(1, all.backends_known);
  EXPECT_EQ(1, all.single_node);
}

// A key the group agreed on is never this process's next one, and a lower
// agreed key does not take the next one back.
TEST(CreationSummary, WindowKeysOnlyGrow) {
  const std::uint64_t first = next_window_key();
  window_key_taken(first + 5);
  EXPECT_EQ(first + 6, next_window_key());
  window_key_taken(first + 2);
  EXPECT_EQ(first + 6, next_window_key());
  window_key_taken(first + 6);
  EXPECT_EQ(first + 7, next_window_key());
}

}  // namespace
}  // namespace mpinotify
