#include "stats.hpp"

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>

#include "params.hpp"
#include "registry.hpp"

namespace mpinotify {
namespace {

constexpr std::array<const char *, kStatCount> kNames = {"put_notify",
                                                         "get_notify",
                                                         "accumulate_notify",
                                                         "get_accumulate_notify",
                                                         "request_forms",
                                                         "bytes",
                                                         "host_path",
                                                         "counter_reads",
                                                         "counter_resets",
                                                         "threshold_requests",
                                                         "num_notify_calls",
                                                         "growths",
                                                         "windows"};

// Backend name -> its counts; entries are never removed, so references
// handed out stay valid.
struct ProcessStats {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<Stats>> by_backend;
};

ProcessStats &process() {
  static ProcessStats instance;
  return instance;
}

void print_line(std::FILE *out, int rank, const std::string &what, const StatValues &values) {
  std::fprintf(out, "mpinotify stats: rank %d %s:", rank, what.c_str());
  for (std::size_t i = 0; i < kStatCount; ++i)
    std::fprintf(out, " %s=%llu", kNames[i], static_cast<unsigned long long>(values[i]));
  std::fputc('\n', out);
}

}  // namespace

const char *stat_name(Stat stat) { return kNames[static_cast<std::size_t>(stat)]; }

StatValues Stats::snapshot() const noexcept {
  StatValues out{};
  for (std::size_t i = 0; i < kStatCount; ++i) out[i] = values_[i].load(std::memory_order_relaxed);
  return out;
}

Stats &process_stats(const std::string &backend) {
  ProcessStats &all = process();
  const std::lock_guard lock(all.mutex);
  std::unique_ptr<Stats> &entry = all.by_backend[backend];
  if (!entry) entry = std::make_unique<Stats>();
  return *entry;
}

namespace {
void add_to(StatValues &sum, const StatValues &values) {
  for (std::size_t i = 0; i < kStatCount; ++i) sum[i] += values[i];
}
}  // namespace

StatValues process_totals(const std::string &backend) {
  StatValues sum{};
  // Under the registry's lock no window folds its counts meanwhile.
  windows().for_each([&](const Window &window) {
    if (backend.empty() || backend == window.backend_name()) add_to(sum, window.stats().snapshot());
  });
  ProcessStats &all = process();
  const std::lock_guard lock(all.mutex);
  for (const auto &[name, stats] : all.by_backend) {
    if (backend.empty() || name == backend) add_to(sum, stats->snapshot());
  }
  return sum;
}

void report_stats(int rank) {
  if (!stats_enabled) return;
  std::FILE *out = stderr;
  const std::string &prefix = params().stats_file;
  if (!prefix.empty()) {
    const std::string path = prefix + "." + std::to_string(rank);
    out = std::fopen(path.c_str(), "w");
    if (out == nullptr) {
      std::fprintf(stderr, "mpinotify: MPINOTIFY_STATS_FILE: cannot write %s; counts follow\n",
                   path.c_str());
      out = stderr;
    }
  }
  // At MPI_Finalize every window left the registry: all counts are folded.
  std::map<std::string, StatValues> lines;
  {
    ProcessStats &all = process();
    const std::lock_guard lock(all.mutex);
    for (const auto &[name, stats] : all.by_backend) lines[name] = stats->snapshot();
  }
  for (const auto &[name, values] : lines) print_line(out, rank, "backend " + name, values);
  print_line(out, rank, "total", process_totals(""));
  if (out != stderr) std::fclose(out);
}

}  // namespace mpinotify
