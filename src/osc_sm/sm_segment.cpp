#include "sm_segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>

namespace mpinotify::sm {
namespace {

std::uint64_t round_up(std::uint64_t value, std::uint64_t quantum) {
  return (value + quantum - 1) / quantum * quantum;
}

std::string unique_name() {
  static std::atomic<unsigned> sequence{0};
  static const unsigned salt = std::random_device{}();
  return "/mpinotify-" + std::to_string(getuid()) + "-" + std::to_string(getpid()) + "-" +
         std::to_string(sequence.fetch_add(1)) + "-" + std::to_string(salt);
}

std::string system_error(const char *what, int code) {
  return std::string(what) + ": " + std::strerror(code);
}

}  // namespace

Layout plan_layout(const std::vector<std::int64_t> &capacities, std::uint32_t stride,
                   std::uint64_t page_bytes) {
  Layout layout;
  layout.stride = stride;
  std::uint64_t at =
      round_up(sizeof(SegmentHeader) + capacities.size() * sizeof(RankEntry), page_bytes);
  for (const std::int64_t capacity : capacities) {
    layout.offsets.push_back(at);
    at += round_up(static_cast<std::uint64_t>(capacity) * stride, page_bytes);
  }
  layout.total_bytes = at;
  return layout;
}

Segment::~Segment() {
  if (linked_) unlink();
  if (base_ != nullptr) munmap(base_, bytes_);
}

Status Segment::map(int fd, std::uint64_t bytes) {
  void *address = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int code = errno;
  close(fd);
  if (address == MAP_FAILED) return error(Errc::no_mem, system_error("mmap of counters", code));
  base_ = static_cast<char *>(address);
  bytes_ = bytes;
  return {};
}

Status Segment::create(const Layout &layout) {
  name_ = unique_name();
  const int fd = shm_open(name_.c_str(), O_RDWR | O_CREAT | O_EXCL, S_IRUSR | S_IWUSR);
  if (fd < 0) return error(Errc::no_mem, system_error("shm_open of counters", errno));
  linked_ = true;
  // Reserve every page now: a full /dev/shm must fail here, in the
  // agreement, not later as SIGBUS on first touch.
  const int reserved = posix_fallocate(fd, 0, static_cast<off_t>(layout.total_bytes));
  if (reserved != 0) {
    close(fd);
    return error(Errc::no_mem, system_error("reserving counter memory in /dev/shm", reserved));
  }
  MPINOTIFY_TRY(map(fd, layout.total_bytes));
  SegmentHeader &h = header();
  h.version = kLayoutVersion;
  h.ranks = static_cast<std::uint32_t>(layout.offsets.size());
  h.stride = layout.stride;
  h.total_bytes = layout.total_bytes;
  for (std::size_t r = 0; r < layout.offsets.size(); ++r) {
    RankEntry &e = entry(static_cast<int>(r));
    e.offset = layout.offsets[r];
    const std::uint64_t next =
        r + 1 < layout.offsets.size() ? layout.offsets[r + 1] : layout.total_bytes;
    e.capacity = static_cast<std::int64_t>((next - e.offset) / layout.stride);
    e.count = 0;
  }
  // The stamp goes last: a header with a stamp is complete.
  std::atomic_thread_fence(std::memory_order_release);
  std::memcpy(h.stamp, kLayoutStamp, sizeof kLayoutStamp);
  return {};
}

Status Segment::open(const std::string &name, const Layout &layout) {
  name_ = name;
  const int fd = shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0) return error(Errc::no_mem, system_error("shm_open of the counters of rank 0", errno));
  struct stat info {};
  if (fstat(fd, &info) != 0 || static_cast<std::uint64_t>(info.st_size) != layout.total_bytes) {
    close(fd);
    return error(Errc::intern, "counter segment " + name + " has an unexpected size");
  }
  MPINOTIFY_TRY(map(fd, layout.total_bytes));
  std::atomic_thread_fence(std::memory_order_acquire);
  const SegmentHeader &h = header();
  if (std::memcmp(h.stamp, kLayoutStamp, sizeof kLayoutStamp) != 0 || h.version != kLayoutVersion ||
      h.ranks != layout.offsets.size() || h.stride != layout.stride ||
      h.total_bytes != layout.total_bytes)
    return error(Errc::intern, "counter segment " + name +
                                   " has another layout (stamp, version or size differ): "
                                   "are all ranks running the same mpinotify?");
  return {};
}

void Segment::unlink() {
  if (!linked_) return;
  shm_unlink(name_.c_str());
  linked_ = false;
}

}  // namespace mpinotify::sm
