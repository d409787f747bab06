#include "params.hpp"

#include <array>
#include <climits>
#include <cstdlib>
#include <type_traits>

namespace mpinotify {
namespace {

constexpr std::array kParams{
    ParamInfo{"MPINOTIFY_BACKEND", "",
              "Force one backend for every window (sm, ucx, ofi, pmpi); empty: the "
              "highest-priority backend that accepts each window"},
    ParamInfo{"MPINOTIFY_NUM_COUNTERS", "16",
              "Counters reserved per rank at window creation when the window gives no "
              "mpi_assert_max_num_notify (the MPI_WIN_NOTIFICATION_NUM_SB attribute)"},
    ParamInfo{"MPINOTIFY_COUNTER_MEMORY_LIMIT", "0",
              "Most bytes of counter storage one rank may hold per window; a larger "
              "MPI_Win_set_num_notify fails with MPI_ERR_NO_MEM on every rank (0: no limit)"},
    ParamInfo{"MPINOTIFY_SM_COUNTER_STRIDE", "0",
              "sm backend: bytes between two counters in shared memory, a multiple of 8; "
              "0: one cache line, so that counters of different origins never share one"},
    ParamInfo{"MPINOTIFY_VERBOSE", "0",
              "1: print every error the library reports (not only fatal ones) and the "
              "backend chosen for each window, on stderr"},
    ParamInfo{"MPINOTIFY_SKIP_IDLE_HOST_FLUSH", "1",
              "1: MPI_Win_flush and its forms skip the host MPI's call for targets the "
              "program issued no plain RMA call to since the last flush (the library's own "
              "operations are flushed by the backend); 0: always call the host, for "
              "programs whose plain RMA reaches the host without passing the library's "
              "MPI_Put and its siblings (e.g. through PMPI_ names)"},
    ParamInfo{"MPINOTIFY_PEER_TIMEOUT", "60",
              "Seconds a backend that moves data over a network (ucx, ofi) waits for an operation "
              "to a peer to complete before the call fails with MPI_ERR_OTHER through the "
              "window's error handler (a peer or the link to it is gone); 0: wait forever"},
    ParamInfo{"MPINOTIFY_WAIT_SPIN", "auto",
              "Microseconds a wait of the library (MPI_Wait and its kin while the library's "
              "requests are pending, a backend's wait for its operations) spins before it "
              "yields the CPU between tries, at most 1000000; 0: yield after every try; auto: "
              "0 where this node's ranks outnumber its CPUs, else 50"},
    ParamInfo{"MPINOTIFY_PREFAULT", "67108864",
              "Bytes of a window's shared memory (MPI_Win_allocate_shared, and MPI_Win_allocate "
              "windows a backend places there) each process maps into its page tables when the "
              "window is made, shared evenly among the ranks' memory, so that the first store to "
              "a page in a timed loop takes no page fault; those pages become resident then. 0: "
              "map pages on first use"},
    ParamInfo{"MPINOTIFY_OFI_PROVIDER", "",
              "ofi backend: the libfabric provider to use, as fi_getinfo names it (shm; tcp, "
              "which layers ofi_rxm for RDM endpoints; ...); empty: the first usable provider "
              "fi_getinfo offers"},
    ParamInfo{"MPINOTIFY_OFI_NOTIFY", "auto",
              "ofi backend: how a notification travels; data: in the remote CQ data of an "
              "fi_writedata (providers with 8 bytes of it), atomic: an fi_atomic add on the "
              "target's registered counter once the data is delivered; auto: data where the "
              "provider has it, else atomic"},
    ParamInfo{"MPINOTIFY_STATS", "0",
              "1: count what the library does (notified operations by kind, bytes, counter "
              "reads and resets, threshold requests, counter growths, operations whose data the "
              "host MPI moved), per window and per backend, and print the process's counts on "
              "stderr at MPI_Finalize; 0: count nothing (MPINOTIFY_Win_get_stats and "
              "MPINOTIFY_Get_stats then give zeros)"},
    ParamInfo{"MPINOTIFY_STATS_FILE", "",
              "With counting on (this turns it on too): write the counts at MPI_Finalize to "
              "<value>.<rank in MPI_COMM_WORLD> instead of stderr"},
    ParamInfo{"MPINOTIFY_FAULT", "",
              "For tests: failures to inject, comma-separated; reserve:<backend> fails that "
              "backend's counter reservation at window creation, attach the library's part of "
              "MPI_Win_attach, keys:<backend> (ucx, ofi) that backend's publishing of a window's "
              "keys (the window gathers them instead), directory:<backend> (ucx, ofi) that "
              "backend's publishing of its address in the process manager's store (the group "
              "exchanges addresses instead), exchange:<backend> (ucx, ofi) that backend's exchange "
              "of a group's addresses, addresses:ucx ucx's addresses of a window's group after "
              "their collective part (the window fails over); on every rank, or with @<rank> on "
              "one window rank"},
};

}  // namespace

std::span<const ParamInfo> param_table() { return kParams; }

bool fault_listed(const std::string &faults, const std::string &point, int rank) {
  const std::string on_rank = point + "@" + std::to_string(rank);
  std::size_t start = 0;
  while (start <= faults.size()) {
    std::size_t end = faults.find(',', start);
    if (end == std::string::npos) end = faults.size();
    const std::string item = faults.substr(start, end - start);
    if (item == point || item == on_rank) return true;
    start = end + 1;
  }
  return false;
}

std::optional<std::uint64_t> parse_unsigned(const std::string &text, std::uint64_t max) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (digit > max || value > (max - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

Params parse_params(const EnvLookup &lookup) {
  Params p;
  auto read_number = [&](const char *name, std::uint64_t max, auto &field) {
    const auto text = lookup(name);
    if (!text || text->empty()) return;
    const auto value = parse_unsigned(*text, max);
    if (!value) {
      p.warnings.push_back(std::string(name) + "=\"" + *text + "\" is not an integer in [0, " +
                           std::to_string(max) + "]; using the default");
      return;
    }
    field = static_cast<std::remove_reference_t<decltype(field)>>(*value);
  };
  if (const auto b = lookup("MPINOTIFY_BACKEND")) p.backend = *b;
  if (const auto f = lookup("MPINOTIFY_FAULT")) p.fault = *f;
  if (const auto o = lookup("MPINOTIFY_OFI_PROVIDER")) p.ofi_provider = *o;
  if (const auto n = lookup("MPINOTIFY_OFI_NOTIFY"); n && !n->empty()) {
    if (*n == "auto" || *n == "data" || *n == "atomic")
      p.ofi_notify = *n;
    else
      p.warnings.push_back("MPINOTIFY_OFI_NOTIFY=\"" + *n +
                           "\" is none of auto, data, atomic; using the default");
  }
  read_number("MPINOTIFY_NUM_COUNTERS", INT_MAX, p.num_counters);
  read_number("MPINOTIFY_COUNTER_MEMORY_LIMIT", UINT64_MAX, p.counter_memory_limit);
  read_number("MPINOTIFY_VERBOSE", 1, p.verbose);
  read_number("MPINOTIFY_STATS", 1, p.stats);
  if (const auto f = lookup("MPINOTIFY_STATS_FILE"); f && !f->empty()) {
    p.stats_file = *f;
    p.stats = 1;
  }
  read_number("MPINOTIFY_SM_COUNTER_STRIDE", 4096, p.sm_counter_stride);
  read_number("MPINOTIFY_SKIP_IDLE_HOST_FLUSH", 1, p.skip_idle_host_flush);
  read_number("MPINOTIFY_PEER_TIMEOUT", kMaxPeerTimeout, p.peer_timeout);
  if (const auto w = lookup("MPINOTIFY_WAIT_SPIN"); w && !w->empty() && *w != "auto")
    read_number("MPINOTIFY_WAIT_SPIN", kMaxWaitSpinUs, p.wait_spin_us);
  read_number("MPINOTIFY_PREFAULT", UINT64_MAX, p.prefault_bytes);
  return p;
}

const Params &params() {
  static const Params p = parse_params([](const char *name) -> std::optional<std::string> {
    const char *v = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read once
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  });
  return p;
}

}  // namespace mpinotify
