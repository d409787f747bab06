// ofi dynamic windows: attached memory registered with libfabric and listed
// in a directory that origins read with fi_read, without the target's help.
//
// A rank's directory is one registered block of three parts:
// - the key list: a version, a count and up to kEntries entries (address,
//   size and key of a registration). The owner makes the version odd before
//   it changes entries and even after; a reader reads the list twice and
//   takes it only when both copies agree and the version is even;
// - the RegionTable of the core's range check (osc_core/attached_regions.hpp);
// - one word per window rank: rank r writes its count of detaches into
//   word r of the block of every peer that reads its directory, complete
//   before MPI_Win_detach returns. An origin notes a target's word when it
//   reads that target's key list and reads the list again once the word
//   moved, so it never uses the key of memory the program could know was
//   detached (a region attached again at the same address gets its new
//   key). The core's copies of RegionTables go stale by the same word;
// - one byte per window rank: the marks of the ranks that read this block,
//   the only ones told of a detach (osc_base/directory_readers.hpp).
// Memory the list does not hold (a registration the provider refused, or
// past kEntries regions) moves through the host MPI.
#include <rdma/fi_rma.h>

#include <atomic>
#include <cstring>
#include <new>

#include "ofi_module.hpp"
#include "osc_core/attached_regions.hpp"

namespace mpinotify::ofi {
namespace {

constexpr std::size_t kEntries = 64;
constexpr std::size_t kWord = sizeof(std::uint64_t);

struct KeyEntry {
  std::uint64_t base;
  std::uint64_t size;
  std::uint64_t key;
};

struct KeyList {
  std::uint64_t version;
  std::uint64_t count;
  KeyEntry entries[kEntries];
};

static_assert(sizeof(KeyList) % kWord == 0 && sizeof(RegionTable) % kWord == 0);
constexpr std::size_t kRegionTableWord = sizeof(KeyList) / kWord;
constexpr std::size_t kFirstDetachWord = kRegionTableWord + sizeof(RegionTable) / kWord;

std::size_t detach_word(int rank) { return kFirstDetachWord + static_cast<std::size_t>(rank); }

// The readers' marks follow the detach words.
std::size_t first_mark_byte(int ranks) { return detach_word(ranks) * kWord; }

}  // namespace

Status OfiModule::make_directory() {
  const std::size_t words =
      detach_word(window_.size()) + DirectoryReaders::mark_bytes(window_.size()) / kWord;
  directory_.reset(new (std::nothrow) std::uint64_t[words]());
  if (!directory_) return error(Errc::no_mem, "allocating the attached-memory directory failed");
  return context_.register_memory(directory_.get(), words * kWord, memory_);
}

void OfiModule::place_directory() {
  if (directory_)
    window_.local_regions().place(
        reinterpret_cast<RegionTable *>(directory_.get() + kRegionTableWord));
}

std::uint64_t OfiModule::region_stamp(int target) {
  if (!directory_) return 0;
  return std::atomic_ref<std::uint64_t>(directory_[detach_word(target)])
      .load(std::memory_order_acquire);
}

Status OfiModule::read_directory(int target, std::size_t offset, void *out, std::size_t bytes) {
  const Peer *peer = nullptr;
  MPINOTIFY_TRY(target_peer(target, peer));
  if (!peer->has_memory) return error(Errc::intern, "no directory of attached memory is known");
  MPINOTIFY_TRY(mark_as_reader(target, *peer));
  if (context_.facts().max_message != 0 && context_.facts().max_message < bytes)
    return error(Errc::other,
                 "the libfabric provider's largest message is smaller than a "
                 "directory of attached memory");
  constexpr const char *kWhat = "fi_read (directory of attached memory)";
  return context_.read(out, bytes, kWhat, target, [&](std::byte *landing) {
    return context_.issue(kWhat, target, [&](void *context) {
      return fi_read(context_.endpoint(), landing, bytes, nullptr, peer->addr,
                     peer->memory_address + offset, peer->memory_key, context);
    });
  });
}

Status OfiModule::mark_as_reader(int target, const Peer &peer) {
  return readers_.before_read(target, [&]() -> Status {
    constexpr const char *kWhat = "fi_write (directory reader's mark)";
    const std::uint64_t mark = peer.memory_address + first_mark_byte(window_.size()) +
                               static_cast<std::uint64_t>(window_.rank());
    MPINOTIFY_TRY(context_.issue(kWhat, target, [&](void *context) {
      return fi_write(context_.endpoint(), &DirectoryReaders::kMark, 1, nullptr, peer.addr, mark,
                      peer.memory_key, context);
    }));
    // Delivered (FI_DELIVERY_COMPLETE) before the directory is read.
    return context_.complete_all(kWhat, target);
  });
}

Status OfiModule::fetch_regions(int target, RegionTable &copy) {
  return read_directory(target, kRegionTableWord * kWord, &copy, sizeof copy);
}

void OfiModule::attached(void *base, MPI_Aint size) {
  if (window_.flavor() != Flavor::dynamic || size <= 0 || !directory_) return;
  Registration registration;
  // Memory the provider cannot register stays on the host path.
  if (!context_.register_memory(base, static_cast<std::size_t>(size), registration).ok()) return;
  std::lock_guard guard(dynamic_mutex_);
  attached_.push_back(
      {reinterpret_cast<std::uint64_t>(base), static_cast<std::uint64_t>(size), registration});
  publish_directory();
}

void OfiModule::detaching(const void *base) {
  if (window_.flavor() != Flavor::dynamic || !directory_) return;
  std::lock_guard guard(dynamic_mutex_);
  Registration released;
  for (auto region = attached_.begin(); region != attached_.end(); ++region) {
    if (region->base != reinterpret_cast<std::uint64_t>(base)) continue;
    released = region->registration;
    attached_.erase(region);
    publish_directory();
    break;
  }
  // The word for this rank moves in the block of every rank that may hold
  // a copy of this directory (those marked as its readers), complete
  // before MPI_Win_detach returns: whatever tells an origin of the detach
  // comes after. Every reader is tried: one not told keeps its old copies
  // (and the host reports what then goes wrong).
  ++detaches_;
  const std::uint64_t offset = detach_word(window_.rank()) * kWord;
  auto *marks =
      reinterpret_cast<unsigned char *>(directory_.get()) + first_mark_byte(window_.size());
  Status announced;
  DirectoryReaders::for_each_marked(marks, window_.size(), [&](int r) {
    const Peer *peer = nullptr;
    Status issued = target_peer(r, peer);
    if (issued.ok()) {
      issued = context_.issue("fi_write (detach)", r, [&](void *context) {
        return fi_write(context_.endpoint(), &detaches_, sizeof detaches_, nullptr, peer->addr,
                        peer->memory_address + offset, peer->memory_key, context);
      });
    }
    if (announced.ok()) announced = issued;
  });
  if (const Status completed = complete_all(); announced.ok()) announced = completed;
  if (released.mr == nullptr) return;
  // A peer that may not have heard could still reach the memory with its
  // old key: it stays registered until the window goes.
  if (announced.ok())
    Context::release(released);
  else
    unannounced_.push_back(released);
}

void OfiModule::publish_directory() {
  auto *list = reinterpret_cast<KeyList *>(directory_.get());
  std::atomic_ref<std::uint64_t> version(list->version);
  const std::uint64_t before = version.load(std::memory_order_relaxed);
  version.store(before + 1, std::memory_order_release);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  std::size_t count = 0;
  for (const AttachedRegion &region : attached_) {
    if (count == kEntries) break;  // the rest goes through the host
    list->entries[count++] = {region.base, region.size, region.registration.key};
  }
  list->count = count;
  version.store(before + 2, std::memory_order_release);
}

Status OfiModule::fetch_directory(int target, PeerDirectory &out) {
  // Noted before the read: a detach announced during it reads it again.
  const std::uint64_t detaches = region_stamp(target);
  std::vector<KeyList> copies(2);
  MPINOTIFY_TRY(read_consistent(
      copies[0], copies[1],
      [&](KeyList &copy) { return read_directory(target, 0, &copy, sizeof copy); },
      "the directory of rank " + std::to_string(target)));
  const KeyList &seen = copies[0];
  out.regions.clear();
  for (std::size_t e = 0; e < seen.count && e < kEntries; ++e)
    out.regions.push_back({seen.entries[e].base, seen.entries[e].size, seen.entries[e].key});
  out.fetched = true;
  out.detaches = detaches;
  return {};
}

const OfiModule::PeerRegion *OfiModule::dynamic_region(int target, std::uint64_t address,
                                                       std::uint64_t bytes) {
  PeerDirectory &directory = directories_[target];
  auto find = [&]() -> const PeerRegion * {
    for (const PeerRegion &region : directory.regions) {
      if (address >= region.base && bytes <= region.size &&
          address - region.base <= region.size - bytes)
        return &region;
    }
    return nullptr;
  };
  if (directory.fetched && directory.detaches == region_stamp(target)) {
    if (const PeerRegion *known = find()) return known;
  }
  // Not known yet, attached since or detached since: read the list again.
  directory = {};
  if (!fetch_directory(target, directory).ok()) return nullptr;
  return find();
}

void OfiModule::release_dynamic() {
  if (directory_) window_.local_regions().place(nullptr);
  std::lock_guard guard(dynamic_mutex_);
  for (AttachedRegion &region : attached_) Context::release(region.registration);
  attached_.clear();
  for (Registration &registration : unannounced_) Context::release(registration);
  unannounced_.clear();
  directories_.clear();
}

}  // namespace mpinotify::ofi
