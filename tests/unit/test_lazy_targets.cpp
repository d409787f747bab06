// osc_core/lazy_targets.hpp: per-target records made on first use, looked
// up without a lock, each listed and released once, in a table that grows
// with the records rather than with the group; concurrent first uses make
// one record per target while others look up. Also RankCounts: a window's
// attached counts, kept once where every rank has the same.
#include <gtest/gtest.h>

#include <atomic>
#include <climits>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "lazy_targets.hpp"
#include "module.hpp"

namespace {

using mpinotify::LazyTargets;

struct Record {
  int target = -1;
};

// The record of `target`, made under the table's mutex if missing, as a
// backend's slow path does; `made` counts the records made.
Record *get(LazyTargets<Record> &table, int target, std::atomic<int> &made) {
  if (Record *known = table.find(target)) return known;
  std::lock_guard guard(table.mutex());
  if (Record *known = table.find(target)) return known;
  made.fetch_add(1);
  auto record = std::make_unique<Record>();
  record->target = target;
  return table.publish(target, std::move(record));
}

std::multiset<int> listed(const LazyTargets<Record> &table) {
  std::multiset<int> targets;
  table.for_each([&](int target, const Record &record) {
    EXPECT_EQ(target, record.target);
    targets.insert(target);
  });
  return targets;
}

TEST(LazyTargets, EmptyUntilFirstUseThenListedOnce) {
  LazyTargets<Record> table;
  std::atomic<int> made{0};
  for (int t = 0; t < 8; ++t) EXPECT_EQ(nullptr, table.find(t));
  EXPECT_EQ(0U, table.count());
  EXPECT_EQ(0U, table.slot_count());
  EXPECT_TRUE(listed(table).empty());
  Record *five = get(table, 5, made);
  EXPECT_EQ(five, get(table, 5, made));  // made once
  get(table, 0, made);
  get(table, 7, made);
  EXPECT_EQ(3, made.load());
  EXPECT_EQ(3U, table.count());
  EXPECT_EQ((std::multiset<int>{0, 5, 7}), listed(table));
  EXPECT_EQ(nullptr, table.find(1));
  EXPECT_EQ(five, table.find(5));
}

// Ranks of a huge group, used sparsely: the table's size follows the
// records (at most four slots each), the records survive every growth,
// and targets that were never used are not found.
TEST(LazyTargets, SizedByTheRecordsNotByTheirRanks) {
  LazyTargets<Record> table;
  std::atomic<int> made{0};
  std::vector<int> used;
  used.reserve(300);
  for (int i = 0; i < 300; ++i) used.push_back(i % 2 == 0 ? i * 7919 : INT_MAX - 1 - i * 3);
  std::vector<Record *> records;
  records.reserve(used.size());
  for (int target : used) {
    records.push_back(get(table, target, made));
    EXPECT_LE(table.slot_count(), 4 * table.count() + 8);
    EXPECT_GE(table.slot_count(), 2 * table.count());
  }
  EXPECT_EQ(300, made.load());
  for (std::size_t i = 0; i < used.size(); ++i) {
    EXPECT_EQ(records[i], table.find(used[i])) << used[i];
    EXPECT_EQ(used[i], records[i]->target);
  }
  EXPECT_EQ(std::multiset<int>(used.begin(), used.end()), listed(table));
  for (int target : {1, 2, 7918, 7920, INT_MAX, INT_MAX - 2})
    EXPECT_EQ(nullptr, table.find(target));
}

TEST(LazyTargets, ClearReleasesEachRecordOnceAndStartsOver) {
  LazyTargets<Record> table;
  std::atomic<int> made{0};
  for (int t = 0; t < 20; ++t) get(table, t * 3, made);  // grows twice
  std::multiset<int> released;
  table.clear([&](int target, Record &record) {
    EXPECT_EQ(target, record.target);
    released.insert(target);
  });
  EXPECT_EQ(20U, released.size());
  EXPECT_EQ(20U, std::set<int>(released.begin(), released.end()).size());
  EXPECT_EQ(0U, table.count());
  EXPECT_EQ(0U, table.slot_count());
  EXPECT_EQ(nullptr, table.find(3));
  get(table, 3, made);  // made again after clear
  EXPECT_EQ(21, made.load());
  EXPECT_EQ((std::multiset<int>{3}), listed(table));
}

TEST(LazyTargets, EmptyTable) {
  LazyTargets<Record> table;
  EXPECT_EQ(0U, table.count());
  table.clear([](int, Record &) { ADD_FAILURE() << "nothing to release"; });
}

// Threads make records while others look up the ones made before: every
// growth of the table happens under lookups, which must find whole records.
TEST(LazyTargets, ConcurrentFirstUsesMakeOneRecordPerTarget) {
  constexpr int kTargets = 512;
  constexpr int kThreads = 4;
  LazyTargets<Record> table;
  std::atomic<int> made{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      while (!go.load()) {
      }
      std::vector<int> mine;
      for (int n = 0; n < kTargets; ++n) {
        const int target = ((n * 7 + i * 13) % kTargets) * 1000;
        Record *record = get(table, target, made);
        ASSERT_EQ(target, record->target);
        mine.push_back(target);
        // Everything this thread saw made is still found as it was.
        for (std::size_t k = mine.size() > 8 ? mine.size() - 8 : 0; k < mine.size(); ++k) {
          const Record *again = table.find(mine[k]);
          ASSERT_NE(nullptr, again);
          ASSERT_EQ(mine[k], again->target);
        }
        if (n % 32 == 0) {
          EXPECT_LE(listed(table).size(), static_cast<std::size_t>(kTargets));
        }
      }
    });
  }
  go.store(true);
  for (std::thread &thread : threads) thread.join();
  EXPECT_EQ(kTargets, made.load());
  EXPECT_EQ(static_cast<std::size_t>(kTargets), table.count());
  const std::multiset<int> targets = listed(table);
  EXPECT_EQ(static_cast<std::size_t>(kTargets), targets.size());
  EXPECT_EQ(static_cast<std::size_t>(kTargets),
            std::set<int>(targets.begin(), targets.end()).size());
}

TEST(RankCounts, OneNumberOrOnePerRank) {
  const mpinotify::RankCounts none;
  EXPECT_EQ(0, none[0]);
  EXPECT_FALSE(none.any());
  const mpinotify::RankCounts same(5);
  EXPECT_EQ(5, same[0]);
  EXPECT_EQ(5, same[99999]);
  EXPECT_TRUE(same.any());
  const mpinotify::RankCounts differ(std::vector<int>{0, 0, 2});
  EXPECT_EQ(0, differ[1]);
  EXPECT_EQ(2, differ[2]);
  EXPECT_TRUE(differ.any());
  EXPECT_FALSE(mpinotify::RankCounts(std::vector<int>{0, 0}).any());
}

}  // namespace
