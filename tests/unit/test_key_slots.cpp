// The key table's slots (osc_base/key_slots.hpp): where a window's keys go,
// what a reader accepts, and what makes a window gather its keys instead.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "key_slots.hpp"

namespace mpinotify {
namespace {

class KeySlotsTest : public ::testing::Test {
 protected:
  static constexpr std::size_t kCount = 8;
  std::vector<KeySlot> memory = std::vector<KeySlot>(kCount);
  KeySlots table{memory.data(), kCount};

  static WindowKeys keys_of(std::uint64_t window_key, std::uint64_t generation,
                            std::string_view counters, std::string_view window_memory) {
    return {window_key,
            generation,
            {window_key * 100, window_key * 100 + 1},
            {counters, window_memory}};
  }
  KeySlot read_back{};  // what find's views point into
  // What a reader probing as the backends do finds (find_keys, reading
  // this table as if remotely).
  bool find(std::uint64_t window_key, std::uint64_t generation, WindowKeys &out) {
    const auto read = [this](std::size_t at, KeySlot &slot) -> Status {
      slot = memory[at];
      return {};
    };
    return find_keys(window_key, generation, kCount, 1, read, read_back, out).ok();
  }
};

TEST_F(KeySlotsTest, AReaderFindsWhatWasPublished) {
  const int slot = table.publish(-1, keys_of(3, 1, "counter-key", "memory-key"));
  ASSERT_EQ(3, slot);
  WindowKeys found;
  ASSERT_TRUE(find(3, 1, found));
  EXPECT_EQ(300U, found.bases[0]);
  EXPECT_EQ(301U, found.bases[1]);
  EXPECT_EQ("counter-key", found.keys[0]);
  EXPECT_EQ("memory-key", found.keys[1]);
  EXPECT_EQ(0U, memory[3].version % 2);
}

TEST_F(KeySlotsTest, AReaderTakesOnlyItsWindowsGeneration) {
  ASSERT_GE(table.publish(-1, keys_of(5, 1, "a", std::string_view{})), 0);  // no memory: null data
  WindowKeys found;
  EXPECT_FALSE(find(5, 2, found));  // the growth it waits for is not published
  EXPECT_FALSE(find(6, 1, found));  // another window's
  EXPECT_TRUE(find(5, 1, found));
  EXPECT_TRUE(found.keys[1].empty());
  memory[KeySlots::probe(5, 0, kCount)].version += 1;  // as while its owner writes it
  EXPECT_FALSE(find(5, 1, found));
}

TEST_F(KeySlotsTest, AGrowthRewritesTheSameSlot) {
  const int slot = table.publish(-1, keys_of(2, 1, "old", "memory"));
  ASSERT_GE(slot, 0);
  EXPECT_EQ(slot, table.publish(slot, keys_of(2, 2, "new-and-longer", "memory")));
  WindowKeys found;
  EXPECT_FALSE(find(2, 1, found));
  ASSERT_TRUE(find(2, 2, found));
  EXPECT_EQ("new-and-longer", found.keys[0]);
  EXPECT_EQ("memory", found.keys[1]);
}

TEST_F(KeySlotsTest, KeysThatDoNotFitAreNotPublished) {
  const std::string half(kKeySlotKeyBytes / 2, 'k');
  EXPECT_GE(table.publish(-1, keys_of(1, 1, half, half)), 0);
  EXPECT_EQ(-1, table.publish(-1, keys_of(2, 1, half, half + "k")));
  EXPECT_EQ(-1, table.publish(-1, keys_of(0, 1, "a", "b")));  // no agreed key
}

TEST_F(KeySlotsTest, AKeyInUseIsNotPublishedTwice) {
  ASSERT_GE(table.publish(-1, keys_of(4, 1, "first", "")), 0);
  EXPECT_EQ(-1, table.publish(-1, keys_of(4, 1, "second", "")));
  WindowKeys found;
  ASSERT_TRUE(find(4, 1, found));
  EXPECT_EQ("first", found.keys[0]);
}

TEST_F(KeySlotsTest, AFullNeighbourhoodGathersAndAWithdrawalMakesRoom) {
  std::vector<int> slots;
  for (std::uint64_t key = 1; key <= kCount; ++key) {
    slots.push_back(table.publish(-1, keys_of(key, 1, "k", "")));
    ASSERT_GE(slots.back(), 0) << "window " << key;
  }
  // Window 9's probes (slots 1-4) are taken by windows 1-4.
  EXPECT_EQ(-1, table.publish(-1, keys_of(9, 1, "k9", "")));
  table.withdraw(slots[2]);  // window 3, in slot 3
  WindowKeys found;
  EXPECT_FALSE(find(3, 1, found));
  EXPECT_EQ(3, table.publish(-1, keys_of(9, 1, "k9", "")));
  ASSERT_TRUE(find(9, 1, found));
  EXPECT_EQ("k9", found.keys[0]);
  EXPECT_TRUE(find(4, 1, found));
}

TEST_F(KeySlotsTest, ATornSlotIsRefused) {
  ASSERT_GE(table.publish(-1, keys_of(7, 1, "abc", "def")), 0);
  KeySlot copy = memory[7];
  copy.key_bytes[0] = static_cast<std::uint32_t>(copy.keys.size());
  WindowKeys found;
  EXPECT_FALSE(read_slot(copy, 7, 1, found));
  copy.key_bytes[0] = 0xFFFFFFFFU;
  EXPECT_FALSE(read_slot(copy, 7, 1, found));
  EXPECT_TRUE(read_slot(memory[7], 7, 1, found));
}

TEST_F(KeySlotsTest, AFailedReadEndsTheSearchWithItsError) {
  ASSERT_GE(table.publish(-1, keys_of(3, 1, "k", "")), 0);
  int reads = 0;
  const auto failing = [&reads](std::size_t, KeySlot &) -> Status {
    ++reads;
    return error(Errc::other, "the link went down");
  };
  WindowKeys found;
  const Status st = find_keys(3, 1, kCount, 1, failing, read_back, found);
  EXPECT_EQ(Errc::other, st.code());
  EXPECT_EQ(1, reads);
  const auto none = [](std::size_t, KeySlot &slot) -> Status {
    slot = KeySlot{};
    return {};
  };
  const Status missing = find_keys(3, 1, kCount, 1, none, read_back, found);
  EXPECT_EQ(Errc::intern, missing.code());
  EXPECT_NE(std::string::npos, missing.message().find("rank 1"));
}

TEST(KeySlots, AnEmptyTablePublishesNothing) {
  KeySlots none(nullptr, 0);
  EXPECT_EQ(-1, none.publish(-1, {1, 1, {0, 0}, {"a", "b"}}));
  none.withdraw(-1);
}

}  // namespace
}  // namespace mpinotify
