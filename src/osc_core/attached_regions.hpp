// Memory attached to dynamic windows, for the range check every backend
// makes before anything moves (SEMANTICS 3.4).
//
// Each rank publishes its attached regions in a RegionTable that peers can
// read without its help (the backend places it: shared memory for sm, a
// registered block for ucx, a host window for pmpi). The owner makes the
// version odd before changing the table and even after; a reader accepts a
// copy only when two reads agree and the version is even.
//
// An origin keeps a copy of each target's table it used, with a stamp the
// backend chooses to tell a current copy from a stale one (sm: the table's
// own version, read from shared memory; ucx, ofi and pmpi: a word each
// rank bumps, when it detaches memory, at every peer that read its table,
// so checking costs a local load). A range no region of the copy covers
// makes the origin read the table again (the target may have attached
// since); then only a range no listed region covers is MPI_ERR_RMA_RANGE.
// Regions beyond the table's capacity are not listed: ranges on a rank
// with that many are left to the host MPI unchecked.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "params.hpp"
#include "status.hpp"
#include "wait_policy.hpp"

namespace mpinotify {

// Reads a table that its owner rewrites while peers read it (its first
// word a version, odd while the owner changes it) until two reads in a row
// are the same and the version even: `read(Table &)` fills one copy, and
// the consistent copy is `first`. An owner that attaches and detaches
// while origins read it (the message exchange exposes and withdraws
// payloads so) can change the table between most reads for a while: such
// a table is read again until MPINOTIFY_PEER_TIMEOUT, paced by the wait
// policy after the first few reads; then Errc::other, naming `what`.
template <class Table, class Read>
Status read_consistent(Table &first, Table &second, Read &&read, const std::string &what) {
  constexpr int kQuickReads = 8;
  const int seconds = params().peer_timeout;
  const auto start = std::chrono::steady_clock::now();
  Backoff backoff;
  for (int reads = 1;; ++reads) {
    MPINOTIFY_TRY(read(first));
    MPINOTIFY_TRY(read(second));
    if (first.version % 2 == 0 && std::memcmp(&first, &second, sizeof(Table)) == 0) return {};
    if (reads < kQuickReads) continue;
    if (seconds != 0 && std::chrono::steady_clock::now() - start >= std::chrono::seconds(seconds))
      return error(Errc::other, what + " kept changing while it was read, for " +
                                    std::to_string(seconds) + " s (MPINOTIFY_PEER_TIMEOUT)");
    backoff.pause();
  }
}

struct Region {
  std::uint64_t base = 0;
  std::uint64_t size = 0;
};

struct RegionTable {
  static constexpr std::size_t kCapacity = 512;
  std::uint64_t version;
  std::uint64_t count;  // regions attached; those past kCapacity are not listed
  Region regions[kCapacity];
};

// This rank's attached regions, and its table; thread-safe.
class LocalRegions {
 public:
  // The table peers read (the backend's memory); nullptr until it exists.
  // Republished from the list at once.
  void place(RegionTable *table);
  void attach(std::uint64_t base, std::uint64_t size);
  // False when no region starts at `base`.
  bool detach(std::uint64_t base);

 private:
  void publish();

  std::mutex mutex_;
  RegionTable *table_ = nullptr;
  std::vector<Region> regions_;
};

// An origin's copies of its targets' tables; thread-safe.
class PeerRegions {
 public:
  // Copies the whole table of `target` into its argument (one read; the
  // cache reads twice to see a consistent copy).
  using Fetch = std::function<Status(int target, RegionTable &copy)>;

  // MPI_ERR_RMA_RANGE unless memory `target` attached covers [lo, hi).
  // `stamp` is the backend's current word for `target`: a copy taken under
  // another stamp is read again first.
  Status check(int target, std::uint64_t lo, std::uint64_t hi, std::uint64_t stamp,
               const Fetch &fetch);

 private:
  struct Copy {
    bool known = false;
    std::uint64_t stamp = 0;
    bool complete = true;  // every attached region is listed
    std::vector<Region> regions;
    bool covers(std::uint64_t lo, std::uint64_t hi) const;
  };
  Status refresh(int target, std::uint64_t stamp, const Fetch &fetch, Copy &copy);

  std::mutex mutex_;
  std::unordered_map<int, Copy> copies_;  // of the targets checked so far
};

}  // namespace mpinotify
