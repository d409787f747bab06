// osc_base/lazy_targets.hpp: per-target records made on first use, looked
// up without a lock, listed in the order they were made, and released once
// each by clear(); concurrent first uses make one record per target.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "osc_base/lazy_targets.hpp"

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

std::vector<int> listed(const LazyTargets<Record> &table) {
  std::vector<int> targets;
  table.for_each([&](int target, const Record &record) {
    EXPECT_EQ(target, record.target);
    targets.push_back(target);
  });
  return targets;
}

TEST(LazyTargets, EmptyUntilFirstUseThenListedInOrder) {
  LazyTargets<Record> table(8);
  std::atomic<int> made{0};
  for (int t = 0; t < 8; ++t) EXPECT_EQ(nullptr, table.find(t));
  EXPECT_EQ(0U, table.count());
  EXPECT_TRUE(listed(table).empty());
  Record *five = get(table, 5, made);
  EXPECT_EQ(five, get(table, 5, made));  // made once
  get(table, 0, made);
  get(table, 7, made);
  EXPECT_EQ(3, made.load());
  EXPECT_EQ(3U, table.count());
  EXPECT_EQ((std::vector<int>{5, 0, 7}), listed(table));
  EXPECT_EQ(nullptr, table.find(1));
}

TEST(LazyTargets, ClearReleasesEachRecordOnceAndStartsOver) {
  LazyTargets<Record> table(4);
  std::atomic<int> made{0};
  get(table, 2, made);
  get(table, 3, made);
  std::vector<int> released;
  table.clear([&](int target, Record &record) {
    EXPECT_EQ(target, record.target);
    released.push_back(target);
  });
  EXPECT_EQ((std::vector<int>{2, 3}), released);
  EXPECT_EQ(0U, table.count());
  EXPECT_EQ(nullptr, table.find(2));
  get(table, 3, made);  // made again after clear
  EXPECT_EQ(3, made.load());
  EXPECT_EQ((std::vector<int>{3}), listed(table));
}

TEST(LazyTargets, EmptyGroup) {
  LazyTargets<Record> table(0);
  EXPECT_EQ(0U, table.count());
  table.clear([](int, Record &) { ADD_FAILURE() << "nothing to release"; });
}

TEST(LazyTargets, ConcurrentFirstUsesMakeOneRecordPerTarget) {
  constexpr int kTargets = 64;
  constexpr int kThreads = 4;
  LazyTargets<Record> table(kTargets);
  std::atomic<int> made{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      while (!go.load()) {
      }
      for (int n = 0; n < kTargets; ++n) {
        const int target = (n * 7 + i * 13) % kTargets;
        Record *record = get(table, target, made);
        ASSERT_EQ(target, record->target);
        // A walk meanwhile sees whole records only (listed() checks them).
        EXPECT_LE(listed(table).size(), static_cast<std::size_t>(kTargets));
      }
    });
  }
  go.store(true);
  for (std::thread &thread : threads) thread.join();
  EXPECT_EQ(kTargets, made.load());
  EXPECT_EQ(static_cast<std::size_t>(kTargets), table.count());
  const std::vector<int> targets = listed(table);
  EXPECT_EQ(static_cast<std::size_t>(kTargets),
            std::set<int>(targets.begin(), targets.end()).size());
}

}  // namespace
