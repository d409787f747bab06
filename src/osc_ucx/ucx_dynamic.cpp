// ucx dynamic windows: attached memory registered with UCX and published in
// a directory that origins read with UCP gets, without the target's help.
//
// The directory is a registered block: a version, a count and fixed-size
// entries. The owner bumps the version to odd before changing entries and
// to the next even value after. A reader gets the block twice and accepts it
// only when both copies are equal and the version is even: a change in
// progress shows as an odd version or as two different copies (x86 makes
// the odd version visible before any entry it guards).
//
// After the entries comes one word per window rank: rank r adds 1 to word r
// of the block of every peer that reads its directory whenever it detaches
// memory, and completes those adds before MPI_Win_detach returns. An origin
// notes the word of a target when it reads that target's directory and
// reads the directory again when the word has moved, so a key of detached
// memory is never used once the program could know of the detach: a region
// re-attached at the same address gets its new key even inside one epoch.
// Checking costs one local load per operation. The RegionTable of the range
// check follows; the same detach words tell when an origin's copy of it is
// stale. Last, one byte per rank: the marks of the ranks that read this
// block, the only ones told of a detach (osc_base/directory_readers.hpp).
#include <atomic>
#include <cstring>

#include "osc_core/attached_regions.hpp"
#include "ucx_module.hpp"

namespace mpinotify::ucx {
namespace {

constexpr std::size_t kEntries = 64;
constexpr std::size_t kKeyCapacity = 232;  // packed rkeys larger than this stay off it

struct DirectoryEntry {
  std::uint64_t base;
  std::uint64_t size;
  std::uint32_t key_bytes;
  char key[kKeyCapacity];
};

struct Directory {
  std::uint64_t version;
  std::uint64_t count;
  DirectoryEntry entries[kEntries];
};

}  // namespace

std::size_t UcxModule::region_table_offset() const {
  return sizeof(Directory) + static_cast<std::size_t>(window_.size()) * sizeof(std::uint64_t);
}

std::size_t UcxModule::marks_offset() const { return region_table_offset() + sizeof(RegionTable); }

std::size_t UcxModule::directory_bytes() const {
  return marks_offset() + DirectoryReaders::mark_bytes(window_.size());
}

Status UcxModule::mark_as_reader(int target, const Peer &at) {
  return readers_.before_read(target, [&] {
    ucp_request_param_t param{};
    const std::uint64_t mark =
        at.memory.base + marks_offset() + static_cast<std::uint64_t>(window_.rank());
    MPINOTIFY_TRY(
        context_.wait(ucp_put_nbx(at.ep, &DirectoryReaders::kMark, 1, mark, at.memory.rkey, &param),
                      "ucp_put_nbx (directory reader's mark)", target));
    return flush_target(target);  // at the target before its directory is read
  });
}

Status UcxModule::fetch_regions(int target, RegionTable &copy) {
  const Peer *from = nullptr;
  MPINOTIFY_TRY(peer(target, from));
  MPINOTIFY_TRY(mark_as_reader(target, *from));
  const RemoteMemory &remote = from->memory;
  return context_.read(
      &copy, sizeof copy, "ucp_get_nbx (attached memory)", target, [&](void *landing) {
        ucp_request_param_t param{};
        return ucp_get_nbx(from->ep, landing, sizeof copy, remote.base + region_table_offset(),
                           remote.rkey, &param);
      });
}

std::uint64_t UcxModule::detaches_seen(int target) const {
  auto *words =
      reinterpret_cast<std::uint64_t *>(static_cast<char *>(memory_.base) + sizeof(Directory));
  return std::atomic_ref<std::uint64_t>(words[target]).load(std::memory_order_acquire);
}

Status UcxModule::announce_detach() {
  // Word `me` of the block of every rank that may hold a copy of this
  // directory: those marked as its readers (this one too, if it read it).
  const int me = window_.rank();
  const std::uint64_t word =
      sizeof(Directory) + static_cast<std::uint64_t>(me) * sizeof(std::uint64_t);
  const std::int64_t one = 1;
  auto *marks = static_cast<unsigned char *>(memory_.base) + marks_offset();
  Status announced;
  DirectoryReaders::for_each_marked(marks, window_.size(), [&](int r) {
    const Peer *to = nullptr;
    Status st = peer(r, to);
    if (st.ok()) st = post_add(r, to->ep, to->memory.base + word, to->memory.rkey, &one);
    if (announced.ok()) announced = st;
  });
  // Complete before MPI_Win_detach returns (those told, even if one could
  // not be): whatever tells an origin of the detach comes after.
  const Status completed = flush_all();
  return announced.ok() ? completed : announced;
}

void UcxModule::attached(void *base, MPI_Aint size) {
  if (window_.flavor() != Flavor::dynamic || size <= 0 || memory_.base == nullptr) return;
  // Memory UCX cannot register or describe stays on the host path.
  LocalMemory mapped;
  if (!map_memory(context_.context(), base, static_cast<std::size_t>(size), false, mapped).ok())
    return;
  std::string key = packed_key(context_.context(), mapped);
  if (key.empty()) {
    ucp_mem_unmap(context_.context(), mapped.handle);
    return;
  }
  AttachedRegion region{reinterpret_cast<std::uint64_t>(base), static_cast<std::uint64_t>(size),
                        mapped.handle, std::move(key)};
  std::lock_guard guard(dynamic_mutex_);
  attached_.push_back(std::move(region));
  publish_directory();
}

void UcxModule::detaching(const void *base) {
  if (window_.flavor() != Flavor::dynamic) return;
  std::lock_guard guard(dynamic_mutex_);
  const auto address = reinterpret_cast<std::uint64_t>(base);
  ucp_mem_h handle = nullptr;
  for (auto region = attached_.begin(); region != attached_.end(); ++region) {
    if (region->base != address) continue;
    handle = region->handle;
    attached_.erase(region);
    publish_directory();
    break;
  }
  // Told even for memory UCX never registered (the host's path): the
  // readers' copies of the range table must go stale too.
  const Status announced = announce_detach();
  if (handle == nullptr) return;
  if (!announced.ok()) {
    // Peers may not have heard: the memory stays registered until the
    // window goes, rather than be reached through a dead key.
    unannounced_.push_back(handle);
    return;
  }
  ucp_mem_unmap(context_.context(), handle);
}

void UcxModule::publish_directory() {
  auto *directory = static_cast<Directory *>(memory_.base);
  std::atomic_ref<std::uint64_t> version(directory->version);
  const std::uint64_t before = version.load(std::memory_order_relaxed);
  version.store(before + 1, std::memory_order_release);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  std::size_t count = 0;
  for (const AttachedRegion &region : attached_) {
    if (count == kEntries || region.key.size() > kKeyCapacity) continue;  // host path
    DirectoryEntry &entry = directory->entries[count++];
    entry.base = region.base;
    entry.size = region.size;
    entry.key_bytes = static_cast<std::uint32_t>(region.key.size());
    std::memcpy(entry.key, region.key.data(), region.key.size());
  }
  directory->count = count;
  version.store(before + 2, std::memory_order_release);
}

Status UcxModule::fetch_directory(int target, PeerDirectory &out) {
  const Peer *from = nullptr;
  MPINOTIFY_TRY(peer(target, from));
  const RemoteMemory &remote = from->memory;
  if (remote.rkey == nullptr) return error(Errc::intern, "no directory for this rank");
  MPINOTIFY_TRY(mark_as_reader(target, *from));
  std::vector<Directory> copies(2);
  // Noted before the read: a detach announced during it reads it again.
  const std::uint64_t detaches = detaches_seen(target);
  const auto read = [&](Directory &copy) {
    return context_.read(&copy, sizeof copy, "ucp_get_nbx (directory)", target, [&](void *landing) {
      ucp_request_param_t param{};
      return ucp_get_nbx(from->ep, landing, sizeof copy, remote.base, remote.rkey, &param);
    });
  };
  MPINOTIFY_TRY(read_consistent(copies[0], copies[1], read,
                                "the directory of rank " + std::to_string(target)));
  const Directory &seen = copies[0];
  out.regions.clear();
  for (std::size_t e = 0; e < seen.count && e < kEntries; ++e) {
    const DirectoryEntry &entry = seen.entries[e];
    PeerRegion region{entry.base, entry.size, nullptr, false};
    if (ucp_ep_rkey_unpack(from->ep, entry.key, &region.rkey) != UCS_OK)
      continue;  // that region goes through the host
    region.mapped = mapped_here(region.rkey, region.base);
    out.regions.push_back(region);
  }
  out.fetched = true;
  out.detaches = detaches;
  return {};
}

const UcxModule::PeerRegion *UcxModule::dynamic_region(int target, std::uint64_t address,
                                                       std::uint64_t bytes) {
  PeerDirectory &directory = directories_[target];
  auto find = [&]() -> const PeerRegion * {
    for (const PeerRegion &region : directory.regions) {
      if (address >= region.base && address - region.base + bytes <= region.size) return &region;
    }
    return nullptr;
  };
  if (directory.fetched && directory.detaches == detaches_seen(target)) {
    if (const PeerRegion *known = find()) return known;
  }
  // Not known yet, attached since or detached since: read the directory again.
  for (PeerRegion &region : directory.regions) ucp_rkey_destroy(region.rkey);
  directory = {};
  if (!fetch_directory(target, directory).ok()) return nullptr;
  return find();
}

void UcxModule::release_dynamic() {
  forget_directories();
  std::lock_guard guard(dynamic_mutex_);
  for (const AttachedRegion &region : attached_) ucp_mem_unmap(context_.context(), region.handle);
  attached_.clear();
  for (ucp_mem_h handle : unannounced_) ucp_mem_unmap(context_.context(), handle);
  unannounced_.clear();
}

void UcxModule::forget_directories() {
  std::lock_guard guard(dynamic_mutex_);
  for (auto &[target, directory] : directories_) {
    for (PeerRegion &region : directory.regions) ucp_rkey_destroy(region.rkey);
  }
  directories_.clear();
}

}  // namespace mpinotify::ucx
