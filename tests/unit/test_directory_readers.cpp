// Who hears of a detach on a dynamic window (osc_base/directory_readers.hpp):
// a rank marks itself once per target, before its first read, and a target
// tells exactly the ranks marked in its block.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "directory_readers.hpp"

namespace {

using mpinotify::DirectoryReaders;
using mpinotify::Errc;
using mpinotify::error;
using mpinotify::Status;

TEST(DirectoryReaders, MarksEachTargetOnceAndRetriesAFailedMark) {
  DirectoryReaders readers;
  std::vector<int> marked;
  auto mark_of = [&](int target) {
    return [&marked, target] {
      marked.push_back(target);
      return Status{};
    };
  };
  EXPECT_TRUE(readers.before_read(3, mark_of(3)).ok());
  EXPECT_TRUE(readers.before_read(3, mark_of(3)).ok());
  EXPECT_TRUE(readers.before_read(1 << 30, mark_of(1 << 30)).ok());
  EXPECT_EQ((std::vector<int>{3, 1 << 30}), marked);

  int tries = 0;
  auto failing = [&] {
    ++tries;
    return error(Errc::other, "the peer is gone");
  };
  EXPECT_EQ(Errc::other, readers.before_read(5, failing).code()) << "the read must not go on";
  EXPECT_EQ(Errc::other, readers.before_read(5, failing).code());
  EXPECT_EQ(2, tries) << "a failed mark is tried again";
  EXPECT_TRUE(readers.before_read(5, mark_of(5)).ok());
  EXPECT_EQ(5, marked.back());
}

// Threads reading the same targets at once: one mark per target, and no
// read goes on before its target's mark is complete.
TEST(DirectoryReaders, ConcurrentFirstReadsMarkOnce) {
  DirectoryReaders readers;
  constexpr int kTargets = 64;
  std::vector<std::atomic<int>> marks(kTargets);
  std::atomic<int> early{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int target = 0; target < kTargets; ++target) {
        const Status st = readers.before_read(target, [&] {
          marks[static_cast<std::size_t>(target)].fetch_add(1);
          return Status{};
        });
        if (!st.ok() || marks[static_cast<std::size_t>(target)].load() == 0) ++early;
      }
    });
  }
  for (std::thread &thread : threads) thread.join();
  EXPECT_EQ(0, early.load());
  for (const std::atomic<int> &count : marks) EXPECT_EQ(1, count.load());
}

TEST(DirectoryReaders, ATargetTellsTheMarkedRanksOnly) {
  constexpr int kRanks = 21;
  std::vector<unsigned char> block(DirectoryReaders::mark_bytes(kRanks), 0);
  EXPECT_EQ(24U, block.size()) << "whole words";
  std::vector<int> told;
  DirectoryReaders::for_each_marked(block.data(), kRanks, [&](int r) { told.push_back(r); });
  EXPECT_TRUE(told.empty()) << "nobody read this block";
  for (const int r : {0, 7, 20}) block[static_cast<std::size_t>(r)] = DirectoryReaders::kMark;
  block[21] = DirectoryReaders::kMark;  // padding past the last rank
  DirectoryReaders::for_each_marked(block.data(), kRanks, [&](int r) { told.push_back(r); });
  EXPECT_EQ((std::vector<int>{0, 7, 20}), told);
}

}  // namespace
