#include "module.hpp"

#include "params.hpp"

namespace mpinotify {
namespace {
Status unsupported(const char *what) {
  return error(Errc::unsupported, std::string(what) + " is not supported on this window");
}
}  // namespace

const char *op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::put: return "put";
    case OpKind::get: return "get";
    case OpKind::accumulate: return "accumulate";
    case OpKind::get_accumulate: return "get_accumulate";
  }
  return "unknown";
}

Status check_counter_memory(int capacity, std::uint64_t bytes_per_counter, const char *kind) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(capacity) * bytes_per_counter;
  const std::uint64_t limit = params().counter_memory_limit;
  if (limit == 0 || bytes <= limit) return {};
  return error(Errc::no_mem, std::to_string(capacity) + " counters need " + std::to_string(bytes) +
                                 " bytes" + kind +
                                 ", above MPINOTIFY_COUNTER_MEMORY_LIMIT=" + std::to_string(limit));
}

Status Module::notify(const NotifyOp & /*op*/, MPI_Request * /*request*/) {
  return unsupported("notified RMA");
}
Status Module::read_counter(int /*idx*/, MPI_Count * /*value*/) {
  return unsupported("reading a notification counter");
}
Status Module::reset_counter(int /*idx*/, MPI_Count * /*previous*/) {
  return unsupported("resetting a notification counter");
}
Status Module::quiesce() { return unsupported("notification counters"); }
Status Module::reserve(int /*capacity*/, bool & /*grows*/) {
  return unsupported("notification counters");
}
Status Module::commit(const RankCounts & /*new_counts*/, bool /*any_growth*/) {
  return unsupported("notification counters");
}
Status Module::fetch_regions(int /*target*/, RegionTable & /*copy*/) {
  return unsupported("checking the target range on a dynamic window");
}

}  // namespace mpinotify
