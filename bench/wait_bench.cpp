// The ways a program waits for a notification, against each other and
// against a message, in one run, on every backend that can serve a window
// here. Ranks pair up (0-1, 2-3, ...) and ping-pong 8 bytes; rank 0's pair
// is timed. Two ranks pinned to different cores measure the latency; more
// ranks than cores measure what waiting costs a core's other ranks.
//
//   bench/run.sh --suite wait [--mpich] [--np N] [--quick] [--json]
//   (UCX_TLS=posix,cma,self MPINOTIFY_OFI_PROVIDER=shm mpirun -n 2
//    --bind-to core wait_bench [--json] [--quick] [--backends=sm,ucx])
//
// Every notified variant sends the same way (MPI_Put_notify, then
// MPI_Win_flush) and receives differently:
//   poll     MPI_Win_get_notify_value until the counter reaches the value
//   wait     MPI_Win_notify_threshold, then MPI_Wait
//   test     MPI_Win_notify_threshold, then MPI_Test until it completes
//   waitany  four threshold requests on four counters, one re-armed per
//            round trip, MPI_Waitany
// A halo step over the ring of all ranks (every rank sends 8 bytes to both
// neighbours, then waits for both of theirs; time per step, halved as the
// one-way figures are):
//   halo_poll      two MPI_Put_notify + MPI_Win_flush_all, then polling
//   halo_wait      the same, then a threshold request for both and MPI_Wait
//   halo_msg       (host) two MPI_Irecv, two MPI_Isend, MPI_Waitall
// Baselines of the same run, on the host alone:
//   sendrecv       MPI_Send / MPI_Recv
//   putflag        MPI_Put + flush, flag MPI_Accumulate + flush; the peer
//                  polls the flag (bench_variants.hpp)
//   irecv          MPI_Irecv, MPI_Send, MPI_Wait on the receive
//   irecv_pending  the same while a threshold request that never completes
//                  is pending (the library's MPI_Wait must cost the host's)
#include <mpi_notify.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench_report.hpp"
#include "bench_variants.hpp"

namespace {

using bench::lane_of;
using bench::NotifyWindow;
using bench::one_way_us;
using bench::peer;
using bench::rank;
using bench::RoundTrip;
using bench::Sample;

constexpr int kBytes = 8;
constexpr int kAnyWidth = 4;  // requests in the waitany variant

void send_notified(const NotifyWindow &w, const char *data, int counter) {
  MPI_Put_notify(data, kBytes, MPI_BYTE, peer, 0, kBytes, MPI_BYTE, counter, w.win);
  MPI_Win_flush(peer, w.win);
}

// A round trip whose receiving side is `receive(counter, value)`.
template <class Receive>
RoundTrip notified(const NotifyWindow &w, const std::vector<char> &buffer, Receive receive) {
  return [&w, &buffer, receive](long i) {
    const bench::Lane lane = lane_of(i);
    bench::ping_pong([&] { send_notified(w, buffer.data(), lane.index); },
                     [&] { receive(lane.index, lane.value); });
  };
}

RoundTrip poll_round_trip(const NotifyWindow &w, const std::vector<char> &buffer) {
  return notified(w, buffer,
                  [&w](int counter, long value) { bench::wait_counter(w.win, counter, value); });
}

RoundTrip wait_round_trip(const NotifyWindow &w, const std::vector<char> &buffer) {
  return notified(w, buffer, [&w](int counter, long value) {
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Win_notify_threshold(w.win, counter, value, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  });
}

RoundTrip test_round_trip(const NotifyWindow &w, const std::vector<char> &buffer) {
  return notified(w, buffer, [&w](int counter, long value) {
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Win_notify_threshold(w.win, counter, value, &request);
    int done = 0;
    while (done == 0) MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  });
}

// Round trip i notifies counter (i - 1) % kAnyWidth; the receiver keeps a
// threshold request on each of the four and re-arms the one that
// completed. The requests live for one sample: none is left pending while
// other variants run.
Sample waitany_sample(const NotifyWindow &w, const std::vector<char> &buffer, long iterations,
                      long &next) {
  return [&w, &buffer, iterations, &next] {
    std::array<MPI_Request, kAnyWidth> requests{};
    auto arm = [&](int counter, long round_trip) {
      // Round trip r is counter c's ((r - 1) / kAnyWidth + 1)-th.
      MPI_Win_notify_threshold(w.win, counter, (round_trip - 1) / kAnyWidth + 1,
                               &requests[static_cast<std::size_t>(counter)]);
    };
    for (int c = 0; c < kAnyWidth; ++c) arm(static_cast<int>((next + c) % kAnyWidth), next + c + 1);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (long i = 0; i < iterations; ++i) {
      const long round_trip = ++next;
      const int counter = static_cast<int>((round_trip - 1) % kAnyWidth);
      bench::ping_pong([&] { send_notified(w, buffer.data(), counter); },
                       [&] {
                         int index = MPI_UNDEFINED;
                         MPI_Waitany(kAnyWidth, requests.data(), &index, MPI_STATUS_IGNORE);
                         if (index != counter) {
                           std::fprintf(stderr, "wait_bench: waitany completed %d, not %d\n", index,
                                        counter);
                           MPI_Abort(MPI_COMM_WORLD, 1);
                         }
                         arm(counter, round_trip + kAnyWidth);
                       });
    }
    double took = (MPI_Wtime() - start) / static_cast<double>(iterations) / 2 * 1e6;
    for (MPI_Request &request : requests) MPI_Request_free(&request);
    MPI_Bcast(&took, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return took;
  };
}

RoundTrip irecv_round_trip(std::vector<char> &buffer) {
  return [&buffer](long) {
    bench::ping_pong([&] { MPI_Send(buffer.data(), kBytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD); },
                     [&] {
                       MPI_Request request = MPI_REQUEST_NULL;
                       MPI_Irecv(buffer.data(), kBytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                                 &request);
                       MPI_Wait(&request, MPI_STATUS_IGNORE);
                     });
  };
}

// The same as irecv_round_trip, with a threshold request pending on
// counter kLanes - 1 of `w`, a waitany window (whose counters 0-3 alone
// move).
Sample irecv_pending_sample(const NotifyWindow &w, std::vector<char> &buffer, long iterations,
                            long &next) {
  Sample timed = one_way_us(irecv_round_trip(buffer), iterations, next);
  return [&w, timed] {
    MPI_Request pending = MPI_REQUEST_NULL;
    MPI_Win_notify_threshold(w.win, bench::kLanes - 1, 1L << 40, &pending);
    const double took = timed();
    MPI_Request_free(&pending);
    return took;
  };
}

// A backend's windows: one whose lane counters poll, wait and test share
// (one numbering of round trips), one for waitany's four counters.
struct Backend {
  std::string name;
  std::unique_ptr<NotifyWindow> lanes;
  std::unique_ptr<NotifyWindow> any;
  long lanes_next = 0;
  long any_next = 0;
  long halo_next = 0;  // halo steps, on the counters of `any` that waitany leaves
};

int ring_left() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return (rank + size - 1) % size;
}
int ring_right() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return (rank + 1) % size;
}

// Step i notifies counter 4 + (i - 1) % 12 at both neighbours (the
// counters waitany leaves), which reaches 2 * ((i - 1) / 12 + 1) with it:
// two notifications a step.
constexpr int kHaloLanes = bench::kLanes - kAnyWidth;
Sample halo_sample(const NotifyWindow &w, const std::vector<char> &buffer, long iterations,
                   long &next, bool wait) {
  return [&w, &buffer, iterations, &next, wait] {
    const int left = ring_left();
    const int right = ring_right();
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (long i = 0; i < iterations; ++i) {
      const long step = ++next;
      const bench::Lane lane{static_cast<int>((step - 1) % kHaloLanes),
                             (step - 1) / kHaloLanes + 1};
      const int counter = kAnyWidth + lane.index;
      MPI_Put_notify(buffer.data(), kBytes, MPI_BYTE, left, 0, kBytes, MPI_BYTE, counter, w.win);
      MPI_Put_notify(buffer.data(), kBytes, MPI_BYTE, right, 64, kBytes, MPI_BYTE, counter, w.win);
      MPI_Win_flush_all(w.win);
      if (wait) {
        MPI_Request request = MPI_REQUEST_NULL;
        MPI_Win_notify_threshold(w.win, counter, 2 * lane.value, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
      } else {
        bench::wait_counter(w.win, counter, 2 * lane.value);
      }
    }
    double took = (MPI_Wtime() - start) / static_cast<double>(iterations) / 2 * 1e6;
    MPI_Bcast(&took, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return took;
  };
}

Sample halo_message_sample(std::vector<char> &buffer, long iterations) {
  return [&buffer, iterations] {
    const int left = ring_left();
    const int right = ring_right();
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (long i = 0; i < iterations; ++i) {
      MPI_Request requests[4];
      MPI_Irecv(buffer.data(), kBytes, MPI_BYTE, left, 1, MPI_COMM_WORLD, &requests[0]);
      MPI_Irecv(buffer.data() + 64, kBytes, MPI_BYTE, right, 2, MPI_COMM_WORLD, &requests[1]);
      MPI_Isend(buffer.data() + 128, kBytes, MPI_BYTE, right, 1, MPI_COMM_WORLD, &requests[2]);
      MPI_Isend(buffer.data() + 192, kBytes, MPI_BYTE, left, 2, MPI_COMM_WORLD, &requests[3]);
      MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
    }
    double took = (MPI_Wtime() - start) / static_cast<double>(iterations) / 2 * 1e6;
    MPI_Bcast(&took, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return took;
  };
}

// --only=NAME: that variant alone (e.g. sm.wait, for a profiler).
std::string only_variant(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--only=", 7) == 0) return argv[i] + 7;
  }
  return "";
}

std::vector<std::string> requested_backends(int argc, char **argv) {
  std::string list = "sm,ucx,ofi,pmpi";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--backends=", 11) == 0) list = argv[i] + 11;
  }
  std::vector<std::string> names;
  for (std::size_t at = 0; at <= list.size();) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    if (comma > at) names.push_back(list.substr(at, comma - at));
    at = comma + 1;
  }
  return names;
}

// One row: `variants` of `backend`, each also as a ratio to the variants
// `poll` and `base` of the same run (`poll` empty: none), which are names
// in `all` ("sm.poll", "host.sendrecv").
void print_row(bool json, const std::string &backend, const std::map<std::string, double> &all,
               const std::vector<std::string> &variants, const std::string &poll,
               const std::string &base) {
  auto short_name = [](const std::string &name) { return name.substr(name.find('.') + 1); };
  const double poll_value = poll.empty() ? 0 : all.at(poll);
  const double base_value = all.at(base);
  if (json) {
    for (const std::string &variant : variants) {
      const double value = all.at(backend + "." + variant);
      std::printf(
          "{\"metric\":\"latency_us\",\"bytes\":%d,\"backend\":\"%s\",\"variant\":\"%s\","
          "\"value\":%.4f",
          kBytes, backend.c_str(), variant.c_str(), value);
      if (!poll.empty())
        std::printf(",\"x_%s\":%.3f", short_name(poll).c_str(), value / poll_value);
      std::printf(",\"x_%s\":%.3f}\n", short_name(base).c_str(), value / base_value);
    }
    return;
  }
  std::printf("%-6s", backend.c_str());
  for (const std::string &variant : variants)
    std::printf(" %14.3f", all.at(backend + "." + variant));
  std::printf("  ");
  for (const std::string &variant : variants) {
    const std::string name = backend + "." + variant;
    if (!poll.empty() && name != poll)
      std::printf(" %s/%s=%.2f", variant.c_str(), short_name(poll).c_str(),
                  all.at(name) / poll_value);
  }
  for (const std::string &variant : variants) {
    const std::string name = backend + "." + variant;
    if (name != base)
      std::printf(" %s/%s=%.2f", variant.c_str(), short_name(base).c_str(),
                  all.at(name) / base_value);
  }
  std::printf("\n");
}

// Every variant of every backend in `names` that can serve a window here,
// interleaved; rank 0 prints.
void measure(bench::Report &report, bool json, bool quick, const std::vector<std::string> &names,
             const std::string &only) {
  std::vector<Backend> backends;
  for (const std::string &name : names) {
    Backend b{name, std::make_unique<NotifyWindow>(name.c_str(), false),
              std::make_unique<NotifyWindow>(name.c_str(), false)};
    if (b.lanes->win == MPI_WIN_NULL || b.any->win == MPI_WIN_NULL) {
      report.note("backend " + name + ": no window here, left out");
      continue;
    }
    backends.push_back(std::move(b));
  }

  const long iterations = quick ? 2000 : 20000;
  const long fewer = iterations / 4;  // the slow variants
  const int rounds = quick ? 3 : 11;
  std::vector<char> buffer(bench::kMaxBytes, 'x');
  const bench::PlainWindow plain(false);
  long sendrecv_next = 0, putflag_next = 0, irecv_next = 0, pending_next = 0;
  std::vector<std::pair<std::string, Sample>> variants = {
      {"host.sendrecv",
       one_way_us(bench::sendrecv_round_trip(kBytes, buffer), iterations, sendrecv_next)},
      {"host.putflag",
       one_way_us(bench::putflag_round_trip(plain, kBytes, buffer), fewer, putflag_next)},
      {"host.irecv", one_way_us(irecv_round_trip(buffer), iterations, irecv_next)},
      {"host.halo_msg", halo_message_sample(buffer, iterations)}};
  if (!backends.empty()) {
    variants.emplace_back("host.irecv_pending", irecv_pending_sample(*backends.front().any, buffer,
                                                                     iterations, pending_next));
  }
  for (Backend &b : backends) {
    const NotifyWindow &w = *b.lanes;
    // pmpi's notifications cost microseconds.
    const long n = b.name == "pmpi" ? fewer : iterations;
    variants.emplace_back(b.name + ".poll",
                          one_way_us(poll_round_trip(w, buffer), n, b.lanes_next));
    variants.emplace_back(b.name + ".wait",
                          one_way_us(wait_round_trip(w, buffer), n, b.lanes_next));
    variants.emplace_back(b.name + ".test",
                          one_way_us(test_round_trip(w, buffer), n, b.lanes_next));
    variants.emplace_back(b.name + ".waitany", waitany_sample(*b.any, buffer, n, b.any_next));
    variants.emplace_back(b.name + ".halo_poll",
                          halo_sample(*b.any, buffer, n, b.halo_next, false));
    variants.emplace_back(b.name + ".halo_wait", halo_sample(*b.any, buffer, n, b.halo_next, true));
  }
  if (!only.empty()) {
    std::erase_if(variants, [&](const auto &v) { return v.first != only; });
    const auto medians = bench::interleaved(variants, 10 * rounds);  // long enough to profile
    if (rank == 0 && !medians.empty())
      std::printf("%s %.3f us one way\n", only.c_str(), medians.begin()->second);
    return;
  }
  const std::map<std::string, double> all = bench::interleaved(variants, rounds);

  if (rank != 0) return;
  if (!json) {
    std::printf("\n8-byte one-way latency (us), median of %d rounds; ratios to the same run's\n",
                rounds);
    std::printf("%-6s %14s %14s %14s %14s\n", "", "poll", "wait", "test", "waitany");
  }
  for (const Backend &b : backends)
    print_row(json, b.name, all, {"poll", "wait", "test", "waitany"}, b.name + ".poll",
              "host.sendrecv");
  if (!json)
    std::printf("\nhalo step (us, halved)\n%-6s %14s %14s\n", "", "halo_poll", "halo_wait");
  for (const Backend &b : backends)
    print_row(json, b.name, all, {"halo_poll", "halo_wait"}, b.name + ".halo_poll",
              "host.halo_msg");
  if (!json) {
    std::printf("\n%-6s %14s %14s %14s %14s %14s\n", "", "sendrecv", "putflag", "irecv",
                "irecv_pending", "halo_msg");
  }
  std::vector<std::string> host = {"sendrecv", "putflag", "irecv"};
  if (!backends.empty()) host.emplace_back("irecv_pending");
  host.emplace_back("halo_msg");
  print_row(json, "host", all, host, backends.empty() ? "" : "host.irecv", "host.sendrecv");
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const auto [json, quick] = bench::parse_options(argc, argv);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size % 2 != 0) {
    if (rank == 0) std::fprintf(stderr, "wait_bench: run with an even number of ranks\n");
    MPI_Finalize();
    return 1;
  }
  peer = rank ^ 1;
  const int cpu = sched_getcpu();
  std::vector<int> cpus(static_cast<std::size_t>(size));
  MPI_Gather(&cpu, 1, MPI_INT, cpus.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  bench::Report report(json, rank == 0);
  std::string placement = "ranks on cpus";
  for (const int c : cpus) placement.append(" ").append(std::to_string(c));
  if (size == 2 && cpus[0] == cpus[1]) placement.append(" (SAME CORE: pin the ranks)");
  report.note(placement);

  measure(report, json, quick, requested_backends(argc, argv), only_variant(argc, argv));
  report.finish();
  MPI_Finalize();
  return 0;
}
