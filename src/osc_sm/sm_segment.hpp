// The shared-memory segment that holds one window's counters on one node.
//
// It describes itself: a header with a layout stamp and version, checked by
// every process that maps it, then one entry per rank (attached count,
// capacity, offset of its first counter), then the counters. Offsets, never
// pointers: each process maps the segment at its own address. Each rank's
// counters start on a page of their own, so they can live on the rank's
// NUMA node. The segment is created owner-only and its name removed as soon
// as every rank has mapped it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "osc_core/status.hpp"

namespace mpinotify::sm {

inline constexpr char kLayoutStamp[16] = "mpinotify.sm";
inline constexpr std::uint32_t kLayoutVersion = 1;

struct alignas(64) SegmentHeader {
  char stamp[16];
  std::uint32_t version;
  std::uint32_t ranks;
  std::uint32_t stride;  // bytes from one counter to the next
  std::uint32_t unused;
  std::uint64_t total_bytes;
};

struct alignas(64) RankEntry {
  std::int64_t count;     // published (release) once the space behind it is clear
  std::int64_t capacity;  // counters
  std::uint64_t offset;   // bytes from the segment start to counter 0
};

// Pure: where everything goes for the given capacities.
struct Layout {
  std::uint32_t stride = 0;
  std::vector<std::uint64_t> offsets;
  std::uint64_t total_bytes = 0;
};
Layout plan_layout(const std::vector<std::int64_t> &capacities, std::uint32_t stride,
                   std::uint64_t page_bytes);

class Segment {
 public:
  Segment() = default;
  Segment(const Segment &) = delete;
  Segment &operator=(const Segment &) = delete;
  ~Segment();

  // Creates a new segment (owner-only, name unique to this process) with
  // all its memory reserved up front, and writes the header for `layout`.
  Status create(const Layout &layout);
  // Maps a segment another rank created, and checks its header.
  Status open(const std::string &name, const Layout &layout);
  // Removes the name; the mappings stay.
  void unlink();

  const std::string &name() const { return name_; }
  SegmentHeader &header() const { return *reinterpret_cast<SegmentHeader *>(base_); }
  RankEntry &entry(int rank) const {
    return reinterpret_cast<RankEntry *>(base_ + sizeof(SegmentHeader))[rank];
  }
  std::int64_t *counters(int rank) const {
    return reinterpret_cast<std::int64_t *>(base_ + entry(rank).offset);
  }

 private:
  Status map(int fd, std::uint64_t bytes);

  std::string name_;
  char *base_ = nullptr;
  std::uint64_t bytes_ = 0;
  bool linked_ = false;
};

}  // namespace mpinotify::sm
