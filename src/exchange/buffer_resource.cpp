// BufferResource, its reservations and buffers, and the default allocator.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

#include "mpinotify/buffer.hpp"

namespace mpinotify {

MemoryReservation::MemoryReservation(std::shared_ptr<BufferResource> owner, std::size_t size,
                                     std::size_t overbooked) noexcept
    : owner_(std::move(owner)), size_(size), overbooked_(overbooked) {}

MemoryReservation::MemoryReservation(MemoryReservation &&other) noexcept
    : owner_(std::move(other.owner_)),
      size_(std::exchange(other.size_, 0)),
      overbooked_(std::exchange(other.overbooked_, 0)) {}

MemoryReservation &MemoryReservation::operator=(MemoryReservation &&other) noexcept {
  if (this != &other) {
    release();
    owner_ = std::move(other.owner_);
    size_ = std::exchange(other.size_, 0);
    overbooked_ = std::exchange(other.overbooked_, 0);
  }
  return *this;
}

MemoryReservation::~MemoryReservation() { release(); }

void MemoryReservation::release() noexcept {
  if (owner_ && size_ > 0) owner_->give_back(size_);
  owner_.reset();
  size_ = 0;
}

Buffer::Buffer(std::shared_ptr<BufferResource> owner, std::size_t size, HostBytes host)
    : owner_(std::move(owner)), type_(MemoryType::HOST), size_(size), host_(std::move(host)) {}

Buffer::Buffer(std::shared_ptr<BufferResource> owner, std::size_t size, std::filesystem::path file)
    : owner_(std::move(owner)), type_(MemoryType::DISK), size_(size), file_(std::move(file)) {}

Buffer::~Buffer() {
  if (type_ == MemoryType::HOST) {
    owner_->give_back(std::move(host_.bytes), host_.capacity, host_.accounted);
    return;
  }
  std::error_code ignored;
  std::filesystem::remove(file_, ignored);
}

std::span<std::byte> Buffer::data() {
  if (type_ != MemoryType::HOST) throw std::logic_error("Buffer::data(): the buffer is on disk");
  return {host_.bytes.get(), size_};
}

std::span<const std::byte> Buffer::data() const {
  if (type_ != MemoryType::HOST) throw std::logic_error("Buffer::data(): the buffer is on disk");
  return {host_.bytes.get(), size_};
}

const std::filesystem::path &Buffer::path() const {
  if (type_ != MemoryType::DISK) throw std::logic_error("Buffer::path(): the buffer is in memory");
  return file_;
}

std::shared_ptr<BufferResource> BufferResource::create(BufferResourceOptions options) {
  return std::make_shared<BufferResource>(Passkey{}, std::move(options));
}

BufferResource::BufferResource(Passkey, BufferResourceOptions options)
    : options_(std::move(options)) {
  if (!options_.spill_directory) return;
  const std::filesystem::path &dir = *options_.spill_directory;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir)) {
    throw std::invalid_argument("BufferResource: spill directory " + dir.string() +
                                " is not a directory and cannot be made one");
  }
}

const std::filesystem::path &BufferResource::spill_directory() const {
  if (!options_.spill_directory) throw std::logic_error("BufferResource: no spill directory");
  return *options_.spill_directory;
}

std::size_t BufferResource::in_use() const noexcept {
  const std::lock_guard lock(mutex_);
  return in_use_;
}

std::size_t BufferResource::peak_in_use() const noexcept {
  const std::lock_guard lock(mutex_);
  return peak_in_use_;
}

std::size_t BufferResource::kept_for_reuse() const noexcept {
  const std::lock_guard lock(mutex_);
  return kept_bytes_;
}

std::vector<std::unique_ptr<std::byte[]>> BufferResource::drop_kept_past_limit() {
  std::vector<std::unique_ptr<std::byte[]>> dropped;
  // The largest first: the fewest blocks to free.
  while (!kept_.empty() && in_use_ + kept_bytes_ > options_.host_limit) {
    auto largest = std::prev(kept_.end());
    kept_bytes_ -= largest->first;
    dropped.push_back(std::move(largest->second));
    kept_.erase(largest);
  }
  return dropped;
}

MemoryReservation BufferResource::reserve(std::size_t size, bool overbook) {
  if (overbook && !options_.allow_overbooking) {
    throw std::invalid_argument("BufferResource::reserve: overbooking is not allowed");
  }
  std::size_t overbooked = 0;
  std::vector<std::unique_ptr<std::byte[]>> dropped;  // freed after the lock
  {
    const std::lock_guard lock(mutex_);
    const std::size_t room = options_.host_limit > in_use_ ? options_.host_limit - in_use_ : 0;
    if (size > room) {
      if (!overbook) return {};
      if (size > std::numeric_limits<std::size_t>::max() - in_use_) {
        throw std::length_error("BufferResource::reserve: size overflows the byte count");
      }
      overbooked = size - room;
    }
    in_use_ += size;
    peak_in_use_ = std::max(peak_in_use_, in_use_);
    dropped = drop_kept_past_limit();
  }
  return {shared_from_this(), size, overbooked};
}

std::unique_ptr<Buffer> BufferResource::make_buffer(MemoryReservation &reservation,
                                                    std::size_t size) {
  if (size > 0 && reservation.owner_.get() != this) {
    throw std::invalid_argument("BufferResource::make_buffer: reservation of another resource");
  }
  if (reservation.size_ < size) {
    throw std::invalid_argument("BufferResource::make_buffer: " + std::to_string(size) +
                                " bytes from a reservation of " +
                                std::to_string(reservation.size_));
  }
  Buffer::HostBytes host{nullptr, size, size};
  if (size >= kMinKeptBlock) {
    // A kept block at most an eighth larger than asked.
    const std::lock_guard lock(mutex_);
    const auto fit = kept_.lower_bound(size);
    if (fit != kept_.end() && fit->first - size <= size / 8) {
      host.bytes = std::move(fit->second);
      host.capacity = fit->first;
      kept_bytes_ -= fit->first;
      kept_.erase(fit);
    }
  }
  // Not zeroed: the exchange and the caller write every byte.
  if (!host.bytes && size > 0) host.bytes = std::make_unique_for_overwrite<std::byte[]>(size);
  reservation.size_ -= size;
  return std::unique_ptr<Buffer>(new Buffer(shared_from_this(), size, std::move(host)));
}

std::unique_ptr<Buffer> BufferResource::make_host_buffer(std::span<const std::byte> bytes) {
  MemoryReservation reservation = reserve(bytes.size());
  if (reservation.size() < bytes.size() && options_.allow_overbooking) {
    reservation = reserve(bytes.size(), true);
  }
  if (reservation.size() < bytes.size()) {
    throw std::runtime_error("BufferResource::make_host_buffer: " + std::to_string(bytes.size()) +
                             " bytes do not fit under the limit");
  }
  std::unique_ptr<Buffer> buffer = make_buffer(reservation, bytes.size());
  if (!bytes.empty()) std::memcpy(buffer->data().data(), bytes.data(), bytes.size());
  return buffer;
}

std::unique_ptr<Buffer> BufferResource::spill(std::unique_ptr<Buffer> buffer) {
  if (!buffer || buffer->mem_type() == MemoryType::DISK) return buffer;
  std::filesystem::path file;
  {
    const std::lock_guard lock(mutex_);
    file = spill_directory() / ("mpinotify-spill-" + std::to_string(::getpid()) + "-" +
                                std::to_string(next_spill_file_++));
  }
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    const std::span<const std::byte> bytes = std::as_const(*buffer).data();
    out.write(reinterpret_cast<const char *>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(file, ignored);
      throw std::runtime_error("BufferResource::spill: cannot write " + file.string());
    }
  }
  return std::unique_ptr<Buffer>(new Buffer(shared_from_this(), buffer->size(), std::move(file)));
}

std::unique_ptr<Buffer> BufferResource::unspill(std::unique_ptr<Buffer> buffer,
                                                MemoryReservation &reservation) {
  if (!buffer || buffer->mem_type() == MemoryType::HOST) return buffer;
  std::unique_ptr<Buffer> host = make_buffer(reservation, buffer->size());
  std::ifstream in(buffer->path(), std::ios::binary);
  const std::span<std::byte> bytes = host->data();
  in.read(reinterpret_cast<char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!in)
    throw std::runtime_error("BufferResource::unspill: cannot read " + buffer->path().string());
  return host;
}

void BufferResource::give_back(std::size_t bytes) noexcept {
  const std::lock_guard lock(mutex_);
  in_use_ -= std::min(bytes, in_use_);
}

void BufferResource::give_back(std::unique_ptr<std::byte[]> block, std::size_t capacity,
                               std::size_t accounted) noexcept {
  const std::lock_guard lock(mutex_);
  in_use_ -= std::min(accounted, in_use_);
  if (!block || !options_.reuse_freed_blocks || capacity < kMinKeptBlock) return;
  if (in_use_ + kept_bytes_ + capacity > options_.host_limit) return;  // freed on return
  try {
    kept_.emplace(capacity, std::move(block));
    kept_bytes_ += capacity;
  } catch (const std::bad_alloc &) {  // the map's node: the block is freed instead
  }
}

AllocateFn default_allocate_fn() {
  return [](BufferResource &resource, std::size_t size,
            AllocationMode mode) -> std::unique_ptr<Buffer> {
    MemoryReservation reservation = resource.reserve(size);
    if (reservation.size() < size) {
      if (mode == AllocationMode::MAY_FAIL) return nullptr;
      if (!resource.allows_overbooking()) {
        throw std::runtime_error("default_allocate_fn: " + std::to_string(size) +
                                 " bytes do not fit under the limit of " +
                                 std::to_string(resource.limit()) +
                                 " bytes and the resource does not allow overbooking");
      }
      reservation = resource.reserve(size, true);
    }
    return resource.make_buffer(reservation, size);
  };
}

}  // namespace mpinotify
