// The ucx backend against its baselines, in one run, on two ranks. Every
// figure is the median over repetitions; ratios are printed against the raw
// UCP floor and against each baseline. Run it once per transport setting:
//
//   UCX_TLS=posix,cma,self mpirun -n 2 --bind-to core ucx_bench [--json] [--quick]
//   UCX_TLS=tcp,self       mpirun -n 2 --bind-to core ucx_bench ...
//
// (bench/run.sh --suite ucx-posix|ucx-tcp sets the host MPI's transport to
// match.)
//
// Variants:
//   floor     raw UCP, no MPI in the loop: its own context and worker with
//             the same UCX settings as the library (MPINOTIFY_UCX_* over
//             UCX_*), data and counter in one UCP_MEM_MAP_ALLOCATE
//             registration; ucp_put_nbx, ucp_worker_fence, ucp_atomic_op_nbx
//             (add); the peer progresses its worker and loads the counter.
//   ucx       MPI_Put_notify on a window of the ucx backend, no flush per
//             message (the counter says the data is there); the peer waits
//             with MPI_Win_get_notify_value. A blocking form's add is
//             gathered until the origin's next poll or synchronisation call
//             (SEMANTICS 3.6): in the ping-pong each side's poll publishes
//             it, in the stream the final flush publishes all of them as
//             one add, where the floor sends an atomic per message.
//   ucx_flush the same with MPI_Win_flush after each put: the backend
//             completes its own operations, and the host's flush is
//             skipped (no plain RMA is owed; MPINOTIFY_SKIP_IDLE_HOST_FLUSH=0
//             shows what it costs, across hosts a round trip to a target
//             busy in the library's poll).
//   pmpi      the same on the pmpi backend, with MPI_Win_flush after each put
//             (its notifications complete at a flush).
//   putflag   host MPI_Put + flush + flag MPI_Accumulate + flush.
//   sendrecv  host MPI_Send / MPI_Recv.
// Rates stream 8-byte messages with one flush (or worker flush) at the end,
// pmpi and putflag with a flush every 64 or every message as they need.
#include <mpi_notify.h>
#include <ucp/api/ucp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_report.hpp"
#include "bench_variants.hpp"

namespace {

using bench::kMaxBytes;
using bench::peer;
using bench::rank;
using bench::swap_with_peer;

// The raw floor's stream counts here, after the latency lanes.
constexpr int kRateCounter = bench::kLanes;

void check(ucs_status_t status, const char *what) {
  if (status != UCS_OK)
    throw std::runtime_error(std::string(what) + ": " + ucs_status_string(status));
}

// Raw UCP between the two ranks (collective to make and to destroy).
class RawUcp {
 public:
  RawUcp() {
    ucp_config_t *config = nullptr;
    check(ucp_config_read("MPINOTIFY", nullptr, &config), "ucp_config_read");
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64;
    const ucs_status_t made = ucp_init(&params, config, &context_);
    ucp_config_release(config);
    check(made, "ucp_init");
    ucp_worker_params_t worker_params{};
    worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    worker_params.thread_mode = UCS_THREAD_MODE_SINGLE;
    check(ucp_worker_create(context_, &worker_params, &worker_), "ucp_worker_create");

    ucp_address_t *address = nullptr;
    std::size_t address_length = 0;
    check(ucp_worker_get_address(worker_, &address, &address_length), "ucp_worker_get_address");
    const std::string their_address =
        swap_with_peer(std::string(reinterpret_cast<char *>(address), address_length));
    ucp_worker_release_address(worker_, address);
    ucp_ep_params_t ep_params{};
    ep_params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    ep_params.address = reinterpret_cast<const ucp_address_t *>(their_address.data());
    check(ucp_ep_create(worker_, &ep_params, &ep_), "ucp_ep_create");

    ucp_mem_map_params_t map{};
    map.field_mask = UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    map.length = kMaxBytes + (bench::kLanes + 1) * kLine;
    map.flags = UCP_MEM_MAP_ALLOCATE;
    check(ucp_mem_map(context_, &map, &memory_), "ucp_mem_map");
    ucp_mem_attr_t attributes{};
    attributes.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS;
    check(ucp_mem_query(memory_, &attributes), "ucp_mem_query");
    base_ = static_cast<char *>(attributes.address);
    std::memset(base_, 0, map.length);
    void *packed = nullptr;
    std::size_t packed_length = 0;
    check(ucp_rkey_pack(context_, memory_, &packed, &packed_length), "ucp_rkey_pack");
    auto mine_base = reinterpret_cast<std::uint64_t>(base_);
    std::string mine(reinterpret_cast<char *>(&mine_base), sizeof mine_base);
    mine.append(static_cast<char *>(packed), packed_length);
    ucp_rkey_buffer_release(packed);
    const std::string theirs = swap_with_peer(mine);
    std::memcpy(&peer_base_, theirs.data(), sizeof peer_base_);
    check(ucp_ep_rkey_unpack(ep_, theirs.data() + sizeof peer_base_, &rkey_), "ucp_ep_rkey_unpack");
    MPI_Barrier(MPI_COMM_WORLD);
  }

  ~RawUcp() {
    flush();
    MPI_Barrier(MPI_COMM_WORLD);  // the peer is done with this memory
    ucp_rkey_destroy(rkey_);
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = UCP_EP_CLOSE_FLAG_FORCE;
    const ucs_status_ptr_t closing = ucp_ep_close_nbx(ep_, &param);
    if (UCS_PTR_IS_PTR(closing)) {
      while (ucp_request_check_status(closing) == UCS_INPROGRESS) ucp_worker_progress(worker_);
      ucp_request_free(closing);
    }
    ucp_mem_unmap(context_, memory_);
    ucp_worker_destroy(worker_);
    ucp_cleanup(context_);
  }
  RawUcp(const RawUcp &) = delete;
  RawUcp &operator=(const RawUcp &) = delete;

  // Put `bytes` at the peer's `offset`, fence, add one to its counter
  // (a latency lane, or kRateCounter; each on a cache line of its own).
  void put_notify(const void *data, std::size_t bytes, std::size_t offset, int counter) {
    ucp_request_param_t param{};
    let_go(ucp_put_nbx(ep_, data, bytes, peer_base_ + offset, rkey_, &param));
    check(ucp_worker_fence(worker_), "ucp_worker_fence");
    param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
    param.datatype = ucp_dt_make_contig(sizeof(std::int64_t));
    let_go(ucp_atomic_op_nbx(ep_, UCP_ATOMIC_OP_ADD, &kOne, 1, peer_base_ + counter_at(counter),
                             rkey_, &param));
    ucp_worker_progress(worker_);
  }

  void wait_counter(int counter, std::int64_t at_least) {
    auto *value = reinterpret_cast<std::int64_t *>(base_ + counter_at(counter));
    while (std::atomic_ref<std::int64_t>(*value).load(std::memory_order_acquire) < at_least)
      ucp_worker_progress(worker_);
  }

  void flush() {
    ucp_request_param_t param{};
    wait(ucp_worker_flush_nbx(worker_, &param));
  }

 private:
  static constexpr std::int64_t kOne = 1;
  static constexpr std::size_t kLine = 64;
  static std::size_t counter_at(int counter) {
    return kMaxBytes + static_cast<std::size_t>(counter) * kLine;
  }

  static void let_go(ucs_status_ptr_t request) {
    if (UCS_PTR_IS_ERR(request)) check(UCS_PTR_STATUS(request), "ucp operation");
    if (request != nullptr) ucp_request_free(request);
  }

  void wait(ucs_status_ptr_t request) {
    if (UCS_PTR_IS_ERR(request)) check(UCS_PTR_STATUS(request), "ucp request");
    if (request == nullptr) return;
    while (ucp_request_check_status(request) == UCS_INPROGRESS) ucp_worker_progress(worker_);
    ucp_request_free(request);
  }

  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  ucp_ep_h ep_ = nullptr;
  ucp_mem_h memory_ = nullptr;
  char *base_ = nullptr;
  std::uint64_t peer_base_ = 0;
  ucp_rkey_h rkey_ = nullptr;
};

void latency(bench::Report &report, bool quick, RawUcp &raw) {
  std::vector<char> buffer(kMaxBytes, 'x');
  const bench::NotifyWindow ucx("ucx");
  const bench::NotifyWindow pmpi("pmpi");
  const bench::PlainWindow plain(false);
  const int rounds = quick ? 3 : 9;
  // `ucx` and `ucx_flush` count on one counter of one window: one round
  // trip number for both, or one would find its answer there already.
  long floor_next = 0, ucx_next = 0, pmpi_next = 0, putflag_next = 0, sendrecv_next = 0;
  const std::pair<std::size_t, long> sizes[] = {
      {8, 10000}, {512, 5000}, {4096, 2000}, {65536, 500}, {1048576, 40}};
  for (const auto &[bytes, full] : sizes) {
    const long iterations = quick ? std::max(10L, full / 10) : full;
    // The slow variants run fewer round trips.
    const long fewer = iterations / 4 + 1;
    const bench::RoundTrip floor = [&raw, &buffer, bytes = bytes](long i) {
      const bench::Lane lane = bench::lane_of(i);
      bench::ping_pong([&] { raw.put_notify(buffer.data(), bytes, 0, lane.index); },
                       [&] { raw.wait_counter(lane.index, lane.value); });
    };
    using bench::one_way_us;
    report.add(
        "latency_us", bytes,
        bench::interleaved(
            {{"floor", one_way_us(floor, iterations, floor_next)},
             // No flush per message: each side's poll for the answer
             // publishes its add; the last one, polled by nobody, is flushed.
             {"ucx", one_way_us(bench::notified_round_trip(ucx, bytes, buffer, false), iterations,
                                ucx_next, [&ucx] { MPI_Win_flush(peer, ucx.win); })},
             {"ucx_flush",
              one_way_us(bench::notified_round_trip(ucx, bytes, buffer, true), fewer, ucx_next)},
             {"pmpi",
              one_way_us(bench::notified_round_trip(pmpi, bytes, buffer, true), fewer, pmpi_next)},
             {"putflag",
              one_way_us(bench::putflag_round_trip(plain, bytes, buffer), fewer, putflag_next)},
             {"sendrecv",
              one_way_us(bench::sendrecv_round_trip(bytes, buffer), iterations, sendrecv_next)}},
            rounds));
  }
  raw.flush();  // the puts from `buffer` are over before it goes
}

void message_rate(bench::Report &report, bool quick, RawUcp &raw) {
  const int rounds = quick ? 3 : 7;
  const long n = quick ? 10000 : 100000;
  static const std::int64_t payload = 42;
  const bench::Sample floor = bench::rate(
      n,
      [&raw](long i) {
        raw.put_notify(&payload, 8, static_cast<std::size_t>(i % 32) * 8, kRateCounter);
      },
      // No flush at the end: over transports that emulate RMA it would need
      // the peer's progress, which raw UCP has nobody to make (the peer's
      // acknowledgement already says everything arrived).
      [&raw](long total) { raw.wait_counter(kRateCounter, total); });
  report.add("rate_Mmsg_s", 8,
             bench::interleaved({{"floor", floor},
                                 {"ucx", bench::notified_rate("ucx", n, n + 1)},
                                 {"pmpi", bench::notified_rate("pmpi", n / 20, 64)},
                                 {"putflag", bench::putflag_rate(n / 20)}},
                                rounds));
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const auto [json, quick] = bench::parse_options(argc, argv);
  if (!bench::two_ranks("ucx_bench")) {
    MPI_Finalize();
    return 1;
  }
  bench::Report report(json, rank == 0, "ucx");
  const char *tls = std::getenv("MPINOTIFY_UCX_TLS");
  if (tls == nullptr) tls = std::getenv("UCX_TLS");
  report.note(std::string("UCX transports: ") + (tls != nullptr ? tls : "(UCX default)"));
  int code = 0;
  try {
    RawUcp raw;
    latency(report, quick, raw);
    message_rate(report, quick, raw);
  } catch (const std::exception &failure) {
    std::fprintf(stderr, "ucx_bench: rank %d: %s\n", rank, failure.what());
    code = 1;
  }
  report.finish();
  if (code != 0) MPI_Abort(MPI_COMM_WORLD, code);
  MPI_Finalize();
  return 0;
}
