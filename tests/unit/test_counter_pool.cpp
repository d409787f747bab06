// The ucx backend's pool of registered counter blocks (osc_ucx/ucx_memory.hpp):
// blocks are zeroed, never overlap while held, come back for the next
// window of their size class, share their chunk's key, and large ones get a
// registration of their own. Runs UCX in this process only (no MPI).
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <vector>

#include "osc_ucx/ucx_memory.hpp"

namespace {

using mpinotify::ucx::CounterPool;
using mpinotify::ucx::LocalMemory;

class CounterPoolTest : public testing::Test {
 protected:
  void SetUp() override {
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64;
    ASSERT_EQ(UCS_OK, ucp_init(&params, nullptr, &context_));
  }
  void TearDown() override {
    if (context_ != nullptr) ucp_cleanup(context_);
  }
  ucp_context_h context_ = nullptr;
};

TEST_F(CounterPoolTest, BlocksAreZeroedApartAndReusedBySizeClass) {
  CounterPool pool(context_);
  std::vector<LocalMemory> held;
  // 40 blocks of 256 counters: more than one chunk.
  for (int i = 0; i < 40; ++i) {
    LocalMemory block;
    std::string key;
    ASSERT_TRUE(pool.take(256 * sizeof(std::int64_t), block, key).ok());
    ASSERT_NE(nullptr, block.base);
    EXPECT_TRUE(block.pooled);
    EXPECT_GE(block.bytes, 256 * sizeof(std::int64_t));
    EXPECT_FALSE(key.empty());
    for (std::size_t b = 0; b < block.bytes; ++b)
      ASSERT_EQ(0, static_cast<const char *>(block.base)[b]) << "block " << i << " byte " << b;
    std::memset(block.base, 0x5a, block.bytes);  // dirty, for the reuse below
    held.push_back(block);
  }
  // No two held blocks overlap.
  std::set<std::pair<const char *, const char *>> ranges;
  for (const LocalMemory &b : held) {
    const char *lo = static_cast<const char *>(b.base);
    for (const auto &[other_lo, other_hi] : ranges)
      EXPECT_TRUE(lo + b.bytes <= other_lo || other_hi <= lo);
    ranges.insert({lo, lo + b.bytes});
  }
  // A block given back is the next one of its class, cleared again.
  void *returned = held[7].base;
  pool.give_back(held[7]);
  EXPECT_EQ(nullptr, held[7].handle);
  LocalMemory again;
  std::string key;
  ASSERT_TRUE(pool.take(2000, again, key).ok());
  EXPECT_EQ(returned, again.base);
  for (std::size_t b = 0; b < again.bytes; ++b)
    ASSERT_EQ(0, static_cast<const char *>(again.base)[b]) << "byte " << b;
  held[7] = again;
  // Another class does not take it.
  void *spare = held[8].base;
  pool.give_back(held[8]);
  LocalMemory smaller;
  ASSERT_TRUE(pool.take(128, smaller, key).ok());
  EXPECT_NE(spare, smaller.base);
  held[8] = smaller;
  for (LocalMemory &b : held) pool.give_back(b);
}

TEST_F(CounterPoolTest, LargeBlocksHaveARegistrationOfTheirOwn) {
  CounterPool pool(context_);
  LocalMemory small;
  LocalMemory large;
  std::string small_key;
  std::string large_key;
  ASSERT_TRUE(pool.take(128, small, small_key).ok());
  ASSERT_TRUE(pool.take(CounterPool::kLargestPooled + 8, large, large_key).ok());
  EXPECT_FALSE(large.pooled);
  EXPECT_NE(small.handle, large.handle);
  EXPECT_GE(large.bytes, CounterPool::kLargestPooled + 8);
  for (std::size_t b = 0; b < large.bytes; b += 512)
    ASSERT_EQ(0, static_cast<const char *>(large.base)[b]);
  pool.give_back(large);
  EXPECT_EQ(nullptr, large.handle);
  pool.give_back(small);
}

}  // namespace
