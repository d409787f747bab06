#include "node_probe.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <unordered_map>

#include "agreement.hpp"
#include "world_ranks.hpp"

namespace mpinotify {
namespace {

// What a group's lowest rank publishes: its segment's name and the token
// written in it (a name alone could meet a stale file of the same name).
struct ProbeRecord {
  char name[48];
  std::uint64_t token;
};

std::uint64_t fresh_token() {
  static std::atomic<std::uint64_t> sequence{0};
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device() ^ ++sequence;
}

// Makes the segment and writes the token in it; false if any step fails.
bool make_probe(ProbeRecord &record) {
  static std::atomic<unsigned> made{0};
  record.token = fresh_token();
  std::snprintf(record.name, sizeof record.name, "/mpinotify-probe-%ld-%u",
                static_cast<long>(getpid()), made.fetch_add(1));
  const int fd = shm_open(record.name, O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) return false;
  bool ok = ftruncate(fd, sizeof record.token) == 0 &&
            pwrite(fd, &record.token, sizeof record.token, 0) ==
                static_cast<ssize_t>(sizeof record.token);
  close(fd);
  if (!ok) shm_unlink(record.name);
  return ok;
}

// Whether this process finds the segment under that name, token and all.
bool open_probe(const ProbeRecord &record) {
  const int fd = shm_open(record.name, O_RDONLY, 0);
  if (fd < 0) return false;
  std::uint64_t seen = 0;
  const bool read = pread(fd, &seen, sizeof seen, 0) == static_cast<ssize_t>(sizeof seen);
  close(fd);
  return read && seen == record.token;
}

// The answers of earlier probes, by group (world ranks in order). Which
// processes can open each other's segments does not change while they
// run, and every member of a group probed it together, so all members
// find the same entry and skip the collective together.
class ProbeCache {
 public:
  bool find(const std::vector<int> &group, MemorySharing &out) {
    std::lock_guard guard(mutex_);
    const auto it = known_.find(group);
    if (group.empty() || it == known_.end()) return false;
    out = it->second;
    return true;
  }
  // Never forgotten: a rank that dropped an entry its peers kept would
  // probe alone. An entry costs 4 bytes per member, once per group.
  void remember(const std::vector<int> &group, const MemorySharing &sharing) {
    if (group.empty()) return;
    std::lock_guard guard(mutex_);
    known_[group] = sharing;
  }

 private:
  std::mutex mutex_;
  std::map<std::vector<int>, MemorySharing> known_;
};

ProbeCache &probe_cache() {
  static ProbeCache cache;
  return cache;
}

}  // namespace

bool known_memory_sharing(MPI_Comm comm, MemorySharing &out) {
  return probe_cache().find(world_ranks(comm), out);
}

std::uint64_t this_node() {
  static const std::uint64_t key = [] {
    std::string text(256, '\0');
    if (gethostname(text.data(), text.size() - 1) != 0) text.clear();
    text.resize(std::strlen(text.c_str()));
    if (std::FILE *f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
      char boot[64] = {};
      if (std::fgets(boot, sizeof boot, f) != nullptr) text += boot;
      std::fclose(f);
    }
    std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a
    for (const char c : text) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    return hash;
  }();
  return key;
}

Status probe_memory_sharing(MPI_Comm comm, const std::vector<std::uint64_t> &nodes,
                            MemorySharing &out) {
  int rank = 0;
  MPINOTIFY_TRY(host_status(PMPI_Comm_rank(comm, &rank), "MPI_Comm_rank"));
  const auto me = static_cast<std::size_t>(rank);
  // The lowest rank with each key leads its group; a key of its own means
  // no group, and then there is nothing to check anywhere. One pass: window
  // creation runs this on every rank of every window.
  std::vector<std::size_t> leader(nodes.size());
  std::unordered_map<std::uint64_t, std::size_t> first_with_key;
  bool any_group = false;
  for (std::size_t r = 0; r < nodes.size(); ++r) {
    const auto [at, first] = first_with_key.try_emplace(nodes[r], r);
    leader[r] = at->second;
    any_group = any_group || !first;
  }
  const bool all_keys_equal = first_with_key.size() <= 1;
  out = {};
  const std::vector<int> group = world_ranks(comm);
  if (!any_group) {
    out.single_node = nodes.size() == 1;
    probe_cache().remember(group, out);  // for known_memory_sharing
    return {};
  }
  // No look at probe_cache() here: the caller probes because some rank did
  // not know the answer (the creation summary), and a rank that learnt it
  // meanwhile from another thread's window over the group must still take
  // part, or the others wait in the allgather for it.
  ProbeRecord mine{};
  const bool leads = leader[me] == me;
  const bool made = leads && make_probe(mine);
  std::vector<ProbeRecord> all;
  Status st = allgather_records(comm, mine, all);
  int found = 0;
  if (st.ok()) found = (leads ? made : open_probe(all[leader[me]])) ? 1 : 0;
  // Everyone has looked before any leader removes its segment.
  int found_everywhere = 0;
  if (st.ok())
    st = host_status(PMPI_Allreduce(&found, &found_everywhere, 1, MPI_INT, MPI_MIN, comm),
                     "MPI_Allreduce");
  if (made) shm_unlink(mine.name);
  MPINOTIFY_TRY(st);
  const bool everywhere = found_everywhere != 0;
  out.single_node = all_keys_equal && everywhere;
  out.lookalikes_apart = !everywhere;
  probe_cache().remember(group, out);
  return {};
}

}  // namespace mpinotify
