// MPINOTIFY_* parameters: the table of what exists, and the values read
// from the environment.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mpinotify {

struct ParamInfo {
  const char *name;           // environment variable
  const char *default_value;  // as a user would write it
  const char *description;
};

// Every parameter the library reads, in the order tools list them.
std::span<const ParamInfo> param_table();

struct Params {
  std::string backend;                     // MPINOTIFY_BACKEND; empty: choose per window
  int num_counters = 16;                   // MPINOTIFY_NUM_COUNTERS: default reservation (NUM_SB)
  std::uint64_t counter_memory_limit = 0;  // MPINOTIFY_COUNTER_MEMORY_LIMIT bytes/rank; 0: none
  int verbose = 0;                         // MPINOTIFY_VERBOSE
  int stats = 0;                           // MPINOTIFY_STATS (set by MPINOTIFY_STATS_FILE too)
  std::string stats_file;                  // MPINOTIFY_STATS_FILE: prefix; empty: stderr
  std::uint64_t sm_counter_stride = 0;     // MPINOTIFY_SM_COUNTER_STRIDE bytes; 0: a cache line
  int skip_idle_host_flush = 1;            // MPINOTIFY_SKIP_IDLE_HOST_FLUSH
  int peer_timeout = 60;                   // MPINOTIFY_PEER_TIMEOUT seconds; 0: none
  int wait_spin_us = -1;                   // MPINOTIFY_WAIT_SPIN microseconds; -1: auto
  std::uint64_t prefault_bytes = 1 << 26;  // MPINOTIFY_PREFAULT bytes per window, process (64 MiB)
  std::string ofi_provider;                // MPINOTIFY_OFI_PROVIDER; empty: fi_getinfo's first
  std::string ofi_notify = "auto";         // MPINOTIFY_OFI_NOTIFY: auto, data or atomic
  std::string fault;                       // MPINOTIFY_FAULT: failures tests inject
  std::vector<std::string> warnings;       // values that could not be used, with the default kept
};

// A day: longer is "forever" in all but name, and stays far from overflow.
inline constexpr int kMaxPeerTimeout = 86400;
// A second of spinning: a wait that long is waiting for a program.
inline constexpr int kMaxWaitSpinUs = 1'000'000;

using EnvLookup = std::function<std::optional<std::string>(const char *name)>;

// Pure: parses every parameter through `lookup`; bad values keep their
// default and leave a warning.
Params parse_params(const EnvLookup &lookup);

// The process's parameters, read from the environment once.
const Params &params();

// Pure: whether `faults` (MPINOTIFY_FAULT, comma-separated) names the
// failure point `point` for window rank `rank`: "<point>" fails it on
// every rank, "<point>@<rank>" on that rank only.
bool fault_listed(const std::string &faults, const std::string &point, int rank);
// The same for this process's MPINOTIFY_FAULT.
inline bool fault_injected(const std::string &point, int rank) {
  return !params().fault.empty() && fault_listed(params().fault, point, rank);
}

// Parses a non-negative decimal integer no larger than `max` (digits only,
// no sign, no spaces). Shared by parameters and info values.
std::optional<std::uint64_t> parse_unsigned(const std::string &text, std::uint64_t max);

}  // namespace mpinotify
