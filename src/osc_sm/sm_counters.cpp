// sm counters: the segment, its growth with agreement, reads and resets.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "osc_core/agreement.hpp"
#include "osc_core/params.hpp"
#include "sm_module.hpp"
#include "sm_topology.hpp"

namespace mpinotify::sm {
namespace {

// What rank 0 tells the others about a new segment.
struct SegmentNotice {
  Errc verdict;
  std::uint32_t stride;
  char name[96];
};

}  // namespace

std::uint32_t counter_stride() {
  const std::uint64_t asked = params().sm_counter_stride;
  if (asked >= sizeof(std::int64_t) && asked % sizeof(std::int64_t) == 0)
    return static_cast<std::uint32_t>(asked);
  return static_cast<std::uint32_t>(std::max<std::size_t>(topology().cache_line, 8));
}

SmModule::SmModule(Window &window)
    : window_(window), deferred_(window), pending_(window.thread_multiple()) {
  memory_.map(window);
}

SmModule::~SmModule() = default;

Status SmModule::read_counter(int idx, MPI_Count *value) {
  before_own_access();
  *value =
      std::atomic_ref<std::int64_t>(counter(window_.rank(), idx)).load(std::memory_order_acquire);
  return {};
}

Status SmModule::reset_counter(int idx, MPI_Count *previous) {
  before_own_access();
  *previous = std::atomic_ref<std::int64_t>(counter(window_.rank(), idx))
                  .exchange(0, std::memory_order_acq_rel);
  return {};
}

Status SmModule::reserve(int capacity, bool &grows) {
  // Every rank finds the others' first counters after their memory; one
  // that cannot reach that memory fails the creation for all.
  if (counters_follow_memory() && memory_.empty())
    return error(Errc::other, "sm: the window memory of the other ranks is not mapped here");
  return capacity_.reserve(capacity, !counters_.empty(), counter_stride(), grows,
                           " of shared memory");
}

void SmModule::point_at(const Segment &segment) {
  const int ranks = window_.size();
  counters_.resize(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) counters_[static_cast<std::size_t>(r)] = segment.counters(r);
  stride_words_ = segment.header().stride / sizeof(std::int64_t);
  capacity_.hold(segment.entry(window_.rank()).capacity);
}

void SmModule::point_at_tails(std::int64_t capacity) {
  const int ranks = window_.size();
  const std::uint32_t stride = window_.tail_counter_stride();
  counters_.resize(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    char *memory = memory_.base(r);
    counters_[static_cast<std::size_t>(r)] = reinterpret_cast<std::int64_t *>(
        memory + tail_counters_offset(window_.span(r).size, stride));
  }
  stride_words_ = stride / sizeof(std::int64_t);
  capacity_.hold(capacity);
}

Status SmModule::share_segment(const std::vector<std::int64_t> &capacities, std::uint32_t stride,
                               const char *what, std::unique_ptr<Segment> &out) {
  MPI_Comm comm = window_.comm();
  const bool leader = window_.rank() == 0;
  out = std::make_unique<Segment>();
  SegmentNotice notice{};
  Status made;
  if (leader) {
    notice.stride = stride;
    made = out->create(plan_layout(capacities, notice.stride, getpagesize()));
    notice.verdict = made.code();
    std::strncpy(notice.name, out->name().c_str(), sizeof notice.name - 1);
  }
  MPINOTIFY_TRY(host_status(PMPI_Bcast(&notice, sizeof notice, MPI_BYTE, 0, comm), "MPI_Bcast"));
  if (!leader && notice.verdict == Errc::ok)
    made = out->open(notice.name, plan_layout(capacities, notice.stride, getpagesize()));
  // The agreement is the barrier after which every rank has mapped the
  // segment (or none uses it): its name can go.
  const Status agreed = agree(comm, made, what);
  if (leader) out->unlink();
  if (!agreed.ok()) out.reset();
  return agreed;
}

Status SmModule::commit(const RankCounts &new_counts, bool any_growth) {
  const int me = window_.rank();
  const std::int64_t count = new_counts[me];
  if (any_growth && counters_follow_memory()) {
    // Creation, on every rank alike: this rank's reservation is what its
    // host allocation has room for.
    const std::int64_t capacity = capacity_.grown(count);
    point_at_tails(capacity);
    std::memset(&counter(me, 0), 0,
                static_cast<std::size_t>(capacity) * window_.tail_counter_stride());
    return {};
  }
  if (any_growth) {
    // Rank 0 lays the segment out for everyone: it needs every capacity.
    const std::int64_t mine = capacity_.grown(count);
    std::vector<std::int64_t> capacities;
    MPINOTIFY_TRY(allgather_records(window_.comm(), mine, capacities));
    std::unique_ptr<Segment> grown;
    MPINOTIFY_TRY(
        share_segment(capacities, counter_stride(), "growing the counter storage", grown));
    if (window_.flavor() == Flavor::dynamic && !regions_) MPINOTIFY_TRY(share_region_tables());
    // This rank's counters: on its NUMA node, touched here first, clear.
    RankEntry &entry = grown->entry(me);
    void *own = grown->counters(me);
    const std::size_t bytes = static_cast<std::size_t>(entry.capacity) * grown->header().stride;
    bind_to_local_numa_node(own, bytes);
    std::memset(own, 0, bytes);
    // Nobody touches the old segment any more (agreement above).
    segment_ = std::move(grown);
    point_at(*segment_);
    pending_.clear();  // drained by quiesce; indices may have moved on
  } else {
    clear_counters(&counter(me, 0), window_.count(me), stride_words_);
  }
  // Published once the space behind it exists and is clear (counters that
  // follow the window memory have no entry: nobody reads it).
  if (segment_)
    std::atomic_ref<std::int64_t>(segment_->entry(me).count)
        .store(count, std::memory_order_release);
  return {};
}

Status SmModule::destroy() {
  publish();
  const Status st = deferred_.finish();
  segment_.reset();
  regions_.reset();
  counters_.clear();
  return st;
}

}  // namespace mpinotify::sm
