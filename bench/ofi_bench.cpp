// The ofi backend against raw libfabric, ucx and pmpi, in one run, on two
// ranks. Every figure is the median over repetitions; ratios are printed
// against the raw floor and against each baseline. Run it once per
// provider (bench/run.sh --suite ofi-shm|ofi-tcp sets the provider, UCX's
// transports and the host MPI's to match):
//
//   MPINOTIFY_OFI_PROVIDER=tcp mpirun -n 2 --bind-to core ofi_bench [--json] [--quick]
//
// Variants:
//   floor        raw libfabric, no MPI in the loop: its own fabric, domain,
//                endpoint and queue on the same provider, FI_DELIVERY_COMPLETE
//                as the backend asks; fi_writedata with the count in its
//                remote CQ data, the peer reads its queue until the entry
//                is there. One fabric message per notification.
//   floor_atomic raw fi_write, then fi_atomic (sum) on a counter with
//                FI_FENCE, the peer loads its counter while reading its
//                queue (the other notification path; skipped where the
//                provider lacks atomics or fences).
//   ofi          MPI_Put_notify on a window of the ofi backend, no flush per
//                message; the peer waits with MPI_Win_get_notify_value.
//   ofi_flush    the same with MPI_Win_flush after each put.
//   ucx, pmpi    the same on those backends (ucx without, pmpi with a flush
//                per put).
//   putflag      host MPI_Put + flush + flag MPI_Accumulate + flush.
//   sendrecv     host MPI_Send / MPI_Recv.
// Rates stream 8-byte messages, one completion wait at the end. The floors
// run first, alone (see measure_floors); the others interleave.
#include <mpi_notify.h>
#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

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

void check(long code, const char *what) {
  if (code < 0)
    throw std::runtime_error(std::string(what) + ": " + fi_strerror(static_cast<int>(-code)));
}

// The provider named as the backend reads it.
std::string provider_name() {
  const char *name = std::getenv("MPINOTIFY_OFI_PROVIDER");
  return name != nullptr ? name : "";
}

// Raw libfabric between the two ranks (collective to make and to destroy).
class RawFabric {
 public:
  explicit RawFabric(bool atomics) {
    fi_info *hints = fi_allocinfo();
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_RMA | (atomics ? FI_ATOMIC | FI_FENCE : 0);
    hints->domain_attr->mr_mode =
        FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    const std::string name = provider_name();
    if (!name.empty()) hints->fabric_attr->prov_name = strdup(name.c_str());
    const int found = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), nullptr, nullptr,
                                 0, hints, &info_);
    fi_freeinfo(hints);
    // Both ranks see the same provider list: both skip, or neither.
    if (found != 0) return;
    check(fi_fabric(info_->fabric_attr, &fabric_, nullptr), "fi_fabric");
    check(fi_domain(fabric_, info_, &domain_, nullptr), "fi_domain");
    fi_av_attr av_attr{};
    av_attr.type = FI_AV_TABLE;
    check(fi_av_open(domain_, &av_attr, &av_, nullptr), "fi_av_open");
    fi_cq_attr cq_attr{};
    cq_attr.format = FI_CQ_FORMAT_DATA;
    cq_attr.size = 16384;
    check(fi_cq_open(domain_, &cq_attr, &cq_, nullptr), "fi_cq_open");
    check(fi_endpoint(domain_, info_, &ep_, nullptr), "fi_endpoint");
    check(fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind");
    check(fi_ep_bind(ep_, &av_->fid, 0), "fi_ep_bind");
    check(fi_enable(ep_), "fi_enable");
    std::string mine(256, '\0');
    std::size_t length = mine.size();
    check(fi_getname(&ep_->fid, mine.data(), &length), "fi_getname");
    mine.resize(length);
    const std::string theirs = swap_with_peer(mine);
    if (fi_av_insert(av_, theirs.data(), 1, &peer_addr_, 0, nullptr) != 1)
      throw std::runtime_error("fi_av_insert failed");

    memory_.assign(kMaxBytes + (bench::kLanes + 1) * kLine, 0);
    check(fi_mr_reg(domain_, memory_.data(), memory_.size(), FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 1,
                    0, &mr_, nullptr),
          "fi_mr_reg");
    if ((info_->domain_attr->mr_mode & FI_MR_ENDPOINT) != 0) {
      check(fi_mr_bind(mr_, &ep_->fid, 0), "fi_mr_bind");
      check(fi_mr_enable(mr_), "fi_mr_enable");
    }
    const bool virtual_addresses = (info_->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0;
    const std::uint64_t keys[2] = {
        virtual_addresses ? reinterpret_cast<std::uint64_t>(memory_.data()) : 0, fi_mr_key(mr_)};
    const std::string their_keys =
        swap_with_peer(std::string(reinterpret_cast<const char *>(keys), sizeof keys));
    std::memcpy(&peer_base_, their_keys.data(), sizeof peer_base_);
    std::memcpy(&peer_key_, their_keys.data() + sizeof peer_base_, sizeof peer_key_);
    MPI_Barrier(MPI_COMM_WORLD);
  }

  ~RawFabric() {
    if (ep_ != nullptr) {
      complete();
      MPI_Barrier(MPI_COMM_WORLD);  // the peer is done with this memory
      fi_close(&ep_->fid);
    }
    if (mr_ != nullptr) fi_close(&mr_->fid);
    if (cq_ != nullptr) fi_close(&cq_->fid);
    if (av_ != nullptr) fi_close(&av_->fid);
    if (domain_ != nullptr) fi_close(&domain_->fid);
    if (fabric_ != nullptr) fi_close(&fabric_->fid);
    if (info_ != nullptr) fi_freeinfo(info_);
  }
  RawFabric(const RawFabric &) = delete;
  RawFabric &operator=(const RawFabric &) = delete;

  bool usable() const { return ep_ != nullptr; }
  std::string provider() const { return info_->fabric_attr->prov_name; }

  // `bytes` to the peer's `offset` with one remote CQ data entry.
  void write_notify(const void *data, std::size_t bytes, std::size_t offset) {
    post([&] {
      return fi_writedata(ep_, data, bytes, nullptr, 1, peer_addr_, peer_base_ + offset, peer_key_,
                          nullptr);
    });
  }
  // `bytes` to the peer's `offset`, then, fenced, an atomic add of one to
  // its counter `counter`.
  void write_then_add(const void *data, std::size_t bytes, std::size_t offset, int counter) {
    post([&] {
      return fi_write(ep_, data, bytes, nullptr, peer_addr_, peer_base_ + offset, peer_key_,
                      nullptr);
    });
    fi_ioc ioc{const_cast<std::int64_t *>(&kOne), 1};
    fi_rma_ioc target{peer_base_ + counter_at(counter), 1, peer_key_};
    fi_msg_atomic msg{};
    msg.msg_iov = &ioc;
    msg.iov_count = 1;
    msg.addr = peer_addr_;
    msg.rma_iov = &target;
    msg.rma_iov_count = 1;
    msg.datatype = FI_INT64;
    msg.op = FI_SUM;
    post([&] { return fi_atomicmsg(ep_, &msg, FI_FENCE | FI_DELIVERY_COMPLETE); });
  }
  // Reads the queue until `at_least` remote CQ data entries arrived.
  void wait_entries(long at_least) {
    while (entries_ < at_least) drain();
  }
  // Reads the queue until counter `counter` reaches `at_least`.
  void wait_counter(int counter, std::int64_t at_least) {
    auto *value = reinterpret_cast<std::int64_t *>(memory_.data() + counter_at(counter));
    while (std::atomic_ref<std::int64_t>(*value).load(std::memory_order_acquire) < at_least)
      drain();
  }
  long entries_received() const { return entries_; }
  // Every operation issued so far completed.
  void complete() {
    while (completed_ < issued_) drain();
  }

 private:
  static constexpr std::int64_t kOne = 1;
  static constexpr std::size_t kLine = 64;
  static std::size_t counter_at(int counter) {
    return kMaxBytes + static_cast<std::size_t>(counter) * kLine;
  }

  template <class Post>
  void post(Post &&call) {
    ssize_t posted = 0;
    while ((posted = call()) == -FI_EAGAIN) drain();
    check(posted, "posting a libfabric operation");
    ++issued_;
  }

  void drain() {
    fi_cq_data_entry entries[16];
    const ssize_t n = fi_cq_read(cq_, entries, 16);
    if (n == -FI_EAGAIN) return;
    if (n == -FI_EAVAIL) {
      fi_cq_err_entry failed{};
      fi_cq_readerr(cq_, &failed, 0);
      throw std::runtime_error(std::string("libfabric operation failed: ") +
                               fi_strerror(failed.err));
    }
    check(n, "fi_cq_read");
    for (ssize_t i = 0; i < n; ++i) {
      if ((entries[i].flags & FI_REMOTE_CQ_DATA) != 0)
        entries_ += static_cast<long>(entries[i].data);
      else
        ++completed_;
    }
  }

  fi_info *info_ = nullptr;
  fid_fabric *fabric_ = nullptr;
  fid_domain *domain_ = nullptr;
  fid_av *av_ = nullptr;
  fid_cq *cq_ = nullptr;
  fid_ep *ep_ = nullptr;
  fid_mr *mr_ = nullptr;
  fi_addr_t peer_addr_ = FI_ADDR_NOTAVAIL;
  std::uint64_t peer_base_ = 0;
  std::uint64_t peer_key_ = 0;
  std::vector<char> memory_;
  long entries_ = 0;  // remote CQ data received
  long issued_ = 0;
  long completed_ = 0;
};

using Results = std::map<std::string, double>;

// Message sizes of the latency runs, with their full iteration counts.
constexpr std::pair<std::size_t, long> kSizes[] = {
    {8, 10000}, {512, 5000}, {4096, 2000}, {65536, 500}, {1048576, 40}};

long iterations_for(long full, bool quick) { return quick ? std::max(10L, full / 10) : full; }

// The raw floors, measured before the library's variants with their own
// endpoints torn down after: with libfabric 1.17's shm, an idle second
// endpoint in the process slows the library's one by up to 100x, so the
// floors cannot stay open while the others run.
struct Floors {
  std::map<std::size_t, Results> latency;  // by message size
  Results rate;
  std::string provider;
  bool atomic_path = false;
};

Floors measure_floors(bool quick) {
  Floors floors;
  RawFabric raw(false);
  RawFabric raw_atomic(true);
  if (!raw.usable()) throw std::runtime_error("no libfabric provider with RMA here");
  floors.provider = raw.provider();
  floors.atomic_path = raw_atomic.usable();
  std::vector<char> buffer(kMaxBytes, 'x');
  const int rounds = quick ? 3 : 9;
  long floor_next = 0, atomic_next = 0;
  for (const auto &[bytes, full] : kSizes) {
    const long iterations = iterations_for(full, quick);
    const bench::RoundTrip floor = [&raw, &buffer, bytes = bytes](long i) {
      bench::ping_pong([&] { raw.write_notify(buffer.data(), bytes, 0); },
                       [&] { raw.wait_entries(i); });
    };
    const bench::RoundTrip floor_atomic = [&raw_atomic, &buffer, bytes = bytes](long i) {
      const bench::Lane lane = bench::lane_of(i);
      bench::ping_pong([&] { raw_atomic.write_then_add(buffer.data(), bytes, 0, lane.index); },
                       [&] { raw_atomic.wait_counter(lane.index, lane.value); });
    };
    std::vector<std::pair<std::string, bench::Sample>> variants = {
        {"floor", bench::one_way_us(floor, iterations, floor_next)}};
    if (raw_atomic.usable())
      variants.emplace_back("floor_atomic",
                            bench::one_way_us(floor_atomic, iterations, atomic_next));
    floors.latency[bytes] = bench::interleaved(variants, rounds);
  }
  raw.complete();  // the writes from `buffer` are over before it goes
  if (raw_atomic.usable()) raw_atomic.complete();
  static const std::int64_t payload = 42;
  const long n = quick ? 10000 : 100000;
  // The totals count on from the entries the latency runs left.
  const long before = raw.entries_received();
  floors.rate = bench::interleaved(
      {{"floor",
        bench::rate(
            n,
            [&raw](long i) { raw.write_notify(&payload, 8, static_cast<std::size_t>(i % 32) * 8); },
            [&raw, before](long total) { raw.wait_entries(before + total); },
            [&raw] { raw.complete(); })}},
      quick ? 3 : 7);
  return floors;
}

void latency(bench::Report &report, bool quick, const Floors &floors) {
  std::vector<char> buffer(kMaxBytes, 'x');
  const bench::NotifyWindow ofi("ofi");
  const bench::NotifyWindow ucx("ucx");
  const bench::NotifyWindow pmpi("pmpi");
  const bench::PlainWindow plain(false);
  const int rounds = quick ? 3 : 9;
  // `ofi` and `ofi_flush` count on one counter of one window: one round
  // trip number for both, or one would find its answer there already.
  long ofi_next = 0, ucx_next = 0, pmpi_next = 0, putflag_next = 0, sendrecv_next = 0;
  for (const auto &[bytes, full] : kSizes) {
    const long iterations = iterations_for(full, quick);
    const long fewer = iterations / 4 + 1;  // the slow variants
    using bench::one_way_us;
    Results results = bench::interleaved(
        {{"ofi", one_way_us(bench::notified_round_trip(ofi, bytes, buffer, false), iterations,
                            ofi_next, [&ofi] { MPI_Win_flush(peer, ofi.win); })},
         {"ofi_flush",
          one_way_us(bench::notified_round_trip(ofi, bytes, buffer, true), fewer, ofi_next)},
         {"ucx", one_way_us(bench::notified_round_trip(ucx, bytes, buffer, false), iterations,
                            ucx_next, [&ucx] { MPI_Win_flush(peer, ucx.win); })},
         {"pmpi",
          one_way_us(bench::notified_round_trip(pmpi, bytes, buffer, true), fewer, pmpi_next)},
         {"putflag",
          one_way_us(bench::putflag_round_trip(plain, bytes, buffer), fewer, putflag_next)},
         {"sendrecv",
          one_way_us(bench::sendrecv_round_trip(bytes, buffer), iterations, sendrecv_next)}},
        rounds);
    const Results &floor = floors.latency.at(bytes);
    results.insert(floor.begin(), floor.end());
    report.add("latency_us", bytes, results);
  }
}

void message_rate(bench::Report &report, bool quick, const Floors &floors) {
  const int rounds = quick ? 3 : 7;
  const long n = quick ? 10000 : 100000;
  Results results = bench::interleaved({{"ofi", bench::notified_rate("ofi", n, n + 1)},
                                        {"ucx", bench::notified_rate("ucx", n, n + 1)},
                                        {"pmpi", bench::notified_rate("pmpi", n / 20, 64)},
                                        {"putflag", bench::putflag_rate(n / 20)}},
                                       rounds);
  results.insert(floors.rate.begin(), floors.rate.end());
  report.add("rate_Mmsg_s", 8, results);
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const auto [json, quick] = bench::parse_options(argc, argv);
  if (!bench::two_ranks("ofi_bench")) {
    MPI_Finalize();
    return 1;
  }
  bench::Report report(json, rank == 0, "ofi");
  int code = 0;
  try {
    const Floors floors = measure_floors(quick);
    const char *tls = std::getenv("UCX_TLS");
    report.note("libfabric provider: " + floors.provider +
                (floors.atomic_path ? "" : " (no atomics with fences: floor_atomic skipped)") +
                "; floors measured first, alone; UCX transports: " +
                (tls != nullptr ? tls : "(UCX default)"));
    latency(report, quick, floors);
    message_rate(report, quick, floors);
  } catch (const std::exception &failure) {
    std::fprintf(stderr, "ofi_bench: rank %d: %s\n", rank, failure.what());
    code = 1;
  }
  report.finish();
  if (code != 0) MPI_Abort(MPI_COMM_WORLD, code);
  MPI_Finalize();
  return 0;
}
