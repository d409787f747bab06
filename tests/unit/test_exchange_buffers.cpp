// The exchange's memory (contract points 1, 2, 6 and 7 without MPI):
// BufferResource reservations and limits, Buffer in memory and on disk,
// the default allocator, Message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "mpinotify/buffer.hpp"
#include "mpinotify/message.hpp"

namespace {

using mpinotify::AfterSend;
using mpinotify::AllocationMode;
using mpinotify::Buffer;
using mpinotify::BufferResource;
using mpinotify::MemoryReservation;
using mpinotify::MemoryType;
using mpinotify::Message;

std::vector<std::byte> bytes(std::size_t n, int seed) {
  std::vector<std::byte> out(n);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = static_cast<std::byte>((i + std::size_t(seed)) & 0xFF);
  return out;
}

std::vector<std::byte> contents(const Buffer &buffer) {
  return {buffer.data().begin(), buffer.data().end()};
}

class SpillDir : public testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> made{0};
    dir_ = std::filesystem::temp_directory_path() /
           ("mpinotify-unit-spill-" + std::to_string(::getpid()) + "-" + std::to_string(made++));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::size_t files() const {
    if (!std::filesystem::exists(dir_)) return 0;
    return std::size_t(std::distance(std::filesystem::directory_iterator(dir_),
                                     std::filesystem::directory_iterator()));
  }
  std::filesystem::path dir_;
};

TEST(BufferResource, ReservesWithinTheLimitOnly_2) {
  auto resource = BufferResource::create({.host_limit = 1000});
  MemoryReservation first = resource->reserve(600);
  EXPECT_EQ(600U, first.size());
  EXPECT_EQ(0U, first.overbooked());
  EXPECT_EQ(600U, resource->in_use());
  MemoryReservation refused = resource->reserve(500);
  EXPECT_EQ(0U, refused.size()) << "no overbooking unless configured";
  EXPECT_EQ(600U, resource->in_use());
  MemoryReservation rest = resource->reserve(400);
  EXPECT_EQ(400U, rest.size());
  EXPECT_EQ(1000U, resource->in_use());
  rest = MemoryReservation{};
  EXPECT_EQ(600U, resource->in_use()) << "a dropped reservation gives its bytes back";
}

TEST(BufferResource, BuffersCountUntilTheyDie_2) {
  auto resource = BufferResource::create({.host_limit = 1000});
  MemoryReservation reservation = resource->reserve(800);
  std::unique_ptr<Buffer> buffer = resource->make_buffer(reservation, 300);
  EXPECT_EQ(500U, reservation.size());
  EXPECT_EQ(300U, buffer->size());
  EXPECT_EQ(MemoryType::HOST, buffer->mem_type());
  EXPECT_TRUE(buffer->in_memory());
  EXPECT_EQ(300U, buffer->data().size());
  EXPECT_THROW(static_cast<void>(buffer->path()), std::logic_error);
  EXPECT_THROW(resource->make_buffer(reservation, 501), std::invalid_argument);
  reservation = MemoryReservation{};
  EXPECT_EQ(300U, resource->in_use());
  buffer.reset();
  EXPECT_EQ(0U, resource->in_use());
  EXPECT_EQ(800U, resource->peak_in_use());
}

// Freed blocks of megabytes are kept for buffers of about their size; the
// kept bytes and the bytes in use stay within the limit together.
TEST(BufferResource, ReusesFreedLargeBlocksWithinTheLimit_2) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  auto resource = BufferResource::create({.host_limit = 3 * kMiB});
  MemoryReservation reservation = resource->reserve(kMiB);
  std::unique_ptr<Buffer> first = resource->make_buffer(reservation, kMiB);
  const std::byte *block = first->data().data();
  first.reset();
  EXPECT_EQ(0U, resource->in_use());
  EXPECT_EQ(kMiB, resource->kept_for_reuse());

  reservation = resource->reserve(kMiB - 1000);
  std::unique_ptr<Buffer> again = resource->make_buffer(reservation, kMiB - 1000);
  EXPECT_EQ(block, again->data().data()) << "a block at most an eighth larger is reused";
  EXPECT_EQ(0U, resource->kept_for_reuse());
  EXPECT_EQ(kMiB - 1000, resource->in_use()) << "in use counts what was asked";
  again.reset();
  EXPECT_EQ(kMiB, resource->kept_for_reuse()) << "kept at its whole size";

  reservation = resource->reserve(kMiB / 2);
  std::unique_ptr<Buffer> half = resource->make_buffer(reservation, kMiB / 2);
  EXPECT_NE(block, half->data().data()) << "a block twice the size is not taken";
  EXPECT_EQ(kMiB, resource->kept_for_reuse());

  // 2.5 MiB in use: the kept MiB would pass the limit, so it goes.
  MemoryReservation more = resource->reserve(2 * kMiB);
  EXPECT_EQ(2 * kMiB, more.size()) << "kept blocks never refuse a reservation";
  EXPECT_EQ(0U, resource->kept_for_reuse());
  more = MemoryReservation{};
  half.reset();
  EXPECT_EQ(kMiB / 2, resource->kept_for_reuse());

  auto small = BufferResource::create({.host_limit = 3 * kMiB});
  reservation = small->reserve(BufferResource::kMinKeptBlock - 1);
  small->make_buffer(reservation, BufferResource::kMinKeptBlock - 1).reset();
  EXPECT_EQ(0U, small->kept_for_reuse()) << "blocks under 64 KiB are not kept";

  auto plain = BufferResource::create({.host_limit = 3 * kMiB, .reuse_freed_blocks = false});
  reservation = plain->reserve(kMiB);
  plain->make_buffer(reservation, kMiB).reset();
  EXPECT_EQ(0U, plain->kept_for_reuse()) << "reuse can be turned off";
}

TEST(BufferResource, ReservationOfAnotherResourceIsRefused_2) {
  auto one = BufferResource::create({.host_limit = 100});
  auto other = BufferResource::create({.host_limit = 100});
  MemoryReservation reservation = other->reserve(10);
  EXPECT_THROW(one->make_buffer(reservation, 10), std::invalid_argument);
}

TEST(BufferResource, OverbooksOnlyWhenAllowed_2) {
  auto strict = BufferResource::create({.host_limit = 100});
  EXPECT_THROW(strict->reserve(200, true), std::invalid_argument);
  EXPECT_FALSE(strict->allows_overbooking());
  auto lenient = BufferResource::create({.host_limit = 100, .allow_overbooking = true});
  MemoryReservation within = lenient->reserve(60, true);
  EXPECT_EQ(0U, within.overbooked());
  MemoryReservation beyond = lenient->reserve(70, true);
  EXPECT_EQ(70U, beyond.size());
  EXPECT_EQ(30U, beyond.overbooked());
  EXPECT_EQ(130U, lenient->in_use());
  EXPECT_EQ(130U, lenient->peak_in_use());
  EXPECT_EQ(0U, lenient->reserve(1).size()) << "plain reservations still respect the limit";
}

TEST(BufferResource, MakeHostBufferCopiesOrThrows_2) {
  auto resource = BufferResource::create({.host_limit = 100});
  std::unique_ptr<Buffer> copy = resource->make_host_buffer(bytes(40, 3));
  EXPECT_EQ(bytes(40, 3), contents(*copy));
  EXPECT_THROW(resource->make_host_buffer(bytes(61, 0)), std::runtime_error);
  std::unique_ptr<Buffer> empty = resource->make_host_buffer({});
  EXPECT_EQ(0U, empty->size());
  EXPECT_TRUE(empty->in_memory());
}

TEST_F(SpillDir, SpillMovesBytesToAFileAndBack_2) {
  auto resource = BufferResource::create({.host_limit = 1000, .spill_directory = dir_});
  EXPECT_TRUE(resource->has_disk());
  EXPECT_EQ(dir_, resource->spill_directory());
  std::unique_ptr<Buffer> buffer = resource->make_host_buffer(bytes(500, 9));
  EXPECT_EQ(500U, resource->in_use());
  std::unique_ptr<Buffer> spilled = resource->spill(std::move(buffer));
  EXPECT_EQ(MemoryType::DISK, spilled->mem_type());
  EXPECT_FALSE(spilled->in_memory());
  EXPECT_EQ(500U, spilled->size());
  EXPECT_TRUE(std::filesystem::exists(spilled->path()));
  EXPECT_EQ(dir_, spilled->path().parent_path());
  EXPECT_EQ(0U, resource->in_use()) << "spilled bytes still counted in memory";
  EXPECT_THROW(static_cast<void>(spilled->data()), std::logic_error);
  EXPECT_EQ(MemoryType::DISK, resource->spill(std::move(spilled))->mem_type());
  EXPECT_EQ(0U, files()) << "the spilled buffer died: its file should have gone";

  spilled = resource->spill(resource->make_host_buffer(bytes(300, 4)));
  const std::filesystem::path file = spilled->path();
  MemoryReservation room = resource->reserve(300);
  std::unique_ptr<Buffer> back = resource->unspill(std::move(spilled), room);
  EXPECT_EQ(MemoryType::HOST, back->mem_type());
  EXPECT_EQ(bytes(300, 4), contents(*back));
  EXPECT_FALSE(std::filesystem::exists(file));
  EXPECT_EQ(300U, resource->in_use());
}

TEST(BufferResource, SpillNeedsADirectory_7) {
  auto resource = BufferResource::create({.host_limit = 100});
  EXPECT_FALSE(resource->has_disk());
  EXPECT_THROW(resource->spill(resource->make_host_buffer(bytes(10, 0))), std::logic_error);
  EXPECT_THROW(static_cast<void>(resource->spill_directory()), std::logic_error);
}

TEST(DefaultAllocator, MayFailRefusesBeyondTheLimit_6) {
  auto resource = BufferResource::create({.host_limit = 100});
  const auto allocate = mpinotify::default_allocate_fn();
  std::unique_ptr<Buffer> fits = allocate(*resource, 80, AllocationMode::MAY_FAIL);
  ASSERT_NE(nullptr, fits);
  EXPECT_EQ(80U, fits->size());
  EXPECT_EQ(nullptr, allocate(*resource, 30, AllocationMode::MAY_FAIL));
  EXPECT_EQ(80U, resource->in_use()) << "a refusal kept bytes";
}

TEST(DefaultAllocator, MustSucceedOverbooksOrThrows_6) {
  const auto allocate = mpinotify::default_allocate_fn();
  auto strict = BufferResource::create({.host_limit = 100});
  EXPECT_THROW(allocate(*strict, 101, AllocationMode::MUST_SUCCEED), std::runtime_error);
  EXPECT_EQ(0U, strict->in_use());
  auto lenient = BufferResource::create({.host_limit = 100, .allow_overbooking = true});
  std::unique_ptr<Buffer> forced = allocate(*lenient, 150, AllocationMode::MUST_SUCCEED);
  ASSERT_NE(nullptr, forced);
  EXPECT_EQ(150U, forced->size());
  EXPECT_EQ(150U, lenient->in_use());
  std::unique_ptr<Buffer> small = allocate(*lenient, 0, AllocationMode::MAY_FAIL);
  ASSERT_NE(nullptr, small);
}

TEST(Message, FieldsAndReleases_1) {
  auto resource = BufferResource::create({.host_limit = 100});
  Message message(3, {1, 2, 3}, resource->make_host_buffer(bytes(5, 1)), AfterSend::RETAIN);
  EXPECT_EQ(3, message.peer_rank());
  EXPECT_EQ((std::vector<std::uint8_t>{1, 2, 3}), message.metadata());
  ASSERT_NE(nullptr, message.data());
  EXPECT_EQ(AfterSend::RETAIN, message.after_send());
  EXPECT_FALSE(message.forced());
  EXPECT_THROW(message.set_data(resource->make_host_buffer(bytes(1, 0))), std::logic_error);
  EXPECT_EQ((std::vector<std::uint8_t>{1, 2, 3}), message.release_metadata());
  EXPECT_TRUE(message.metadata().empty());
  std::unique_ptr<Buffer> payload = message.release_data();
  EXPECT_EQ(nullptr, message.data());
  EXPECT_EQ(bytes(5, 1), contents(*payload));
  message.set_data(std::move(payload));
  EXPECT_NE(nullptr, message.data());

  const Message plain(0, {});
  EXPECT_EQ(nullptr, plain.data());
  EXPECT_EQ(AfterSend::DISCARD, plain.after_send());
}

}  // namespace
