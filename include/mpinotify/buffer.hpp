// Memory for the metadata + payload exchange: a host byte budget with
// reservations, buffers that live in host memory or in a spill file, and
// the allocation function the exchange calls for every received payload.
//
// SPDX-License-Identifier: BSD-3-Clause
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

namespace mpinotify {

// Where a Buffer's bytes are.
enum class MemoryType { HOST, DISK };

class BufferResource;

// Host bytes set aside in a BufferResource. Move-only; what no buffer took
// goes back to the resource when the reservation dies.
class MemoryReservation {
 public:
  MemoryReservation() noexcept = default;
  MemoryReservation(MemoryReservation &&other) noexcept;
  MemoryReservation &operator=(MemoryReservation &&other) noexcept;
  MemoryReservation(const MemoryReservation &) = delete;
  MemoryReservation &operator=(const MemoryReservation &) = delete;
  ~MemoryReservation();

  // Bytes still reserved (make_buffer takes them out).
  std::size_t size() const noexcept { return size_; }
  // Bytes of the original request that went beyond the resource's limit.
  std::size_t overbooked() const noexcept { return overbooked_; }

 private:
  friend class BufferResource;
  MemoryReservation(std::shared_ptr<BufferResource> owner, std::size_t size,
                    std::size_t overbooked) noexcept;
  void release() noexcept;

  std::shared_ptr<BufferResource> owner_;
  std::size_t size_ = 0;
  std::size_t overbooked_ = 0;
};

// Bytes owned in host memory (counted in its resource's in_use()) or in a
// file of the resource's spill directory (removed when the buffer dies).
// Made by a BufferResource; held by unique_ptr.
class Buffer {
 public:
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer();

  std::size_t size() const noexcept { return size_; }
  MemoryType mem_type() const noexcept { return type_; }
  bool in_memory() const noexcept { return type_ == MemoryType::HOST; }
  // The bytes of a HOST buffer; std::logic_error for a DISK buffer.
  std::span<std::byte> data();
  std::span<const std::byte> data() const;
  // The file of a DISK buffer; std::logic_error for a HOST buffer.
  const std::filesystem::path &path() const;

 private:
  friend class BufferResource;
  struct HostBytes {
    std::unique_ptr<std::byte[]> bytes;
    std::size_t accounted;  // bytes counted in the owner's in_use()
    std::size_t capacity;   // bytes allocated (a reused block may be larger)
  };
  Buffer(std::shared_ptr<BufferResource> owner, std::size_t size, HostBytes host);
  Buffer(std::shared_ptr<BufferResource> owner, std::size_t size, std::filesystem::path file);

  std::shared_ptr<BufferResource> owner_;
  MemoryType type_;
  std::size_t size_;
  HostBytes host_;
  std::filesystem::path file_;
};

struct BufferResourceOptions {
  // Host bytes that reservations and buffers may hold together.
  std::size_t host_limit = 0;
  // Whether reserve(size, true) may go beyond host_limit.
  bool allow_overbooking = false;
  // The disk resource: where spill() writes (created if missing).
  std::optional<std::filesystem::path> spill_directory{};
  // Whether the host blocks of freed buffers of kMinKeptBlock bytes or
  // more are kept for later buffers of about their size, as long as they
  // and the bytes in use fit under host_limit together: a fresh block of
  // megabytes costs its page faults again (glibc maps and unmaps them),
  // which halves the throughput of a shuffle of such payloads.
  bool reuse_freed_blocks = true;
};

// A host byte budget shared by everything made from it; thread-safe. Made
// only by create() (buffers and reservations keep it alive).
class BufferResource : public std::enable_shared_from_this<BufferResource> {
  struct Passkey {};

 public:
  static std::shared_ptr<BufferResource> create(BufferResourceOptions options);
  BufferResource(Passkey, BufferResourceOptions options);

  std::size_t limit() const noexcept { return options_.host_limit; }
  bool allows_overbooking() const noexcept { return options_.allow_overbooking; }
  bool has_disk() const noexcept { return options_.spill_directory.has_value(); }
  // The spill directory; std::logic_error without one.
  const std::filesystem::path &spill_directory() const;
  // Host bytes reserved or held by buffers now, and the most ever.
  std::size_t in_use() const noexcept;
  std::size_t peak_in_use() const noexcept;
  // Host bytes of freed buffers kept for reuse (not in in_use(); they
  // and in_use() stay within the limit, the kept ones going first).
  std::size_t kept_for_reuse() const noexcept;
  static constexpr std::size_t kMinKeptBlock = std::size_t{64} << 10;

  // `size` bytes, or an empty reservation if they do not fit under the
  // limit. With overbook (std::invalid_argument unless allowed) always the
  // full size, overbooked() saying how much of it exceeds the limit.
  MemoryReservation reserve(std::size_t size, bool overbook = false);
  // A HOST buffer of `size` bytes taken out of `reservation` (made by this
  // resource and holding at least `size`, else std::invalid_argument).
  std::unique_ptr<Buffer> make_buffer(MemoryReservation &reservation, std::size_t size);
  // A HOST buffer holding a copy of `bytes`; std::runtime_error if they do
  // not fit (overbooking if the resource allows it).
  std::unique_ptr<Buffer> make_host_buffer(std::span<const std::byte> bytes);
  // The bytes of a HOST buffer moved to a file in the spill directory (its
  // host bytes go back); a DISK buffer comes back as it is. Without a spill
  // directory: std::logic_error; a failed write: std::runtime_error.
  std::unique_ptr<Buffer> spill(std::unique_ptr<Buffer> buffer);
  // A DISK buffer read back into host memory from `reservation` (file
  // removed); a HOST buffer comes back as it is.
  std::unique_ptr<Buffer> unspill(std::unique_ptr<Buffer> buffer, MemoryReservation &reservation);

 private:
  friend class MemoryReservation;
  friend class Buffer;
  void give_back(std::size_t bytes) noexcept;
  void give_back(std::unique_ptr<std::byte[]> block, std::size_t capacity,
                 std::size_t accounted) noexcept;
  // Kept blocks past the limit, taken out under the lock (freed after it).
  std::vector<std::unique_ptr<std::byte[]>> drop_kept_past_limit();

  BufferResourceOptions options_;
  mutable std::mutex mutex_;
  std::multimap<std::size_t, std::unique_ptr<std::byte[]>> kept_;  // by capacity
  std::size_t kept_bytes_ = 0;
  std::size_t in_use_ = 0;
  std::size_t peak_in_use_ = 0;
  std::size_t next_spill_file_ = 0;
};

// How badly the exchange needs a receive buffer.
enum class AllocationMode {
  MAY_FAIL,      // nullptr means "not now": the exchange asks again later
  MUST_SUCCEED,  // return a buffer or throw
};

// Called by the exchange (from progress()) for every received payload:
// a HOST buffer of exactly `size` bytes, or nullptr (MAY_FAIL only).
using AllocateFn = std::function<std::unique_ptr<Buffer>(BufferResource &resource, std::size_t size,
                                                         AllocationMode mode)>;

// Reserves without overbooking; when that fails, MAY_FAIL returns nullptr
// and MUST_SUCCEED overbooks if the resource allows it, else throws
// std::runtime_error.
AllocateFn default_allocate_fn();

}  // namespace mpinotify
