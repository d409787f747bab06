// Making the notified exchange's channels and keeping them per
// (communicator, op id): an attribute of the communicator holds them, so
// that freeing the communicator frees their windows (collectively, in the
// order every rank made them). At MPI_Finalize the library has already
// released the windows a program left (osc_core's runtime), and an
// attribute of MPI_COMM_SELF, deleted first thing in the host's
// MPI_Finalize, lets the rest go without further MPI calls on them.
#include <mpi_notify.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "mpi_call.hpp"
#include "notified_channels.hpp"

namespace mpinotify::detail {

// The channels made on one communicator.
class ChannelPool {
 public:
  std::shared_ptr<Channels> find(int op_id) const {
    const auto it = current_.find(op_id);
    return it == current_.end() ? nullptr : it->second;
  }
  void add(const std::shared_ptr<Channels> &made) {
    made_.push_back(made);
    current_[made->op_id_] = made;
  }
  // Whether nothing but the pool (and the caller's copy) holds `channels`:
  // no exchange, no transfer in flight, no record not yet released.
  static bool unused(const std::shared_ptr<Channels> &channels) {
    return channels.use_count() <= 3;  // made_, current_, the caller's
  }
  // Frees the window of channels every rank found unused (collective, in
  // the same order everywhere: each rank retires what every rank agreed on).
  void retire(const std::shared_ptr<Channels> &channels) noexcept {
    channels->close();
    std::erase(made_, channels);
    current_.erase(channels->op_id_);
  }
  std::size_t size() const noexcept { return made_.size(); }
  // Frees every window, in the order they were made (collective).
  void close_all() noexcept {
    for (const auto &channels : made_) channels->close();
  }
  // MPI is finalizing: the windows are gone already.
  void forget_all() noexcept {
    for (const auto &channels : made_) {
      channels->closed_ = true;
      channels->routes_.forget();
    }
  }
  static ChannelPool *of(MPI_Comm comm);

 private:
  std::vector<std::shared_ptr<Channels>> made_;  // every set, kept until the pool goes
  std::map<int, std::shared_ptr<Channels>> current_;
};

namespace {

int pool_keyval = MPI_KEYVAL_INVALID;
int finalize_keyval = MPI_KEYVAL_INVALID;
// The communicators holding a pool, for MPI_Finalize.
std::vector<MPI_Comm> &pooled_comms() {
  static std::vector<MPI_Comm> comms;
  return comms;
}

int delete_pool(MPI_Comm comm, int /*keyval*/, void *value, void * /*extra*/) {
  auto *pool = static_cast<ChannelPool *>(value);
  pool->close_all();
  delete pool;
  std::erase(pooled_comms(), comm);
  return MPI_SUCCESS;
}

int finalize_pools(MPI_Comm /*self*/, int /*keyval*/, void * /*value*/, void * /*extra*/) {
  // Each deletion calls delete_pool, which finds its windows closed.
  const std::vector<MPI_Comm> comms = pooled_comms();
  for (const MPI_Comm comm : comms) {
    if (ChannelPool *pool = ChannelPool::of(comm)) pool->forget_all();
    MPI_Comm_delete_attr(comm, pool_keyval);
  }
  MPI_Comm_free_keyval(&pool_keyval);
  MPI_Comm_free_keyval(&finalize_keyval);
  return MPI_SUCCESS;
}

ChannelPool &pool_of(MPI_Comm comm) {
  if (pool_keyval == MPI_KEYVAL_INVALID) {
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_pool, &pool_keyval, nullptr),
              "MPI_Comm_create_keyval");
    check_mpi(
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_pools, &finalize_keyval, nullptr),
        "MPI_Comm_create_keyval");
    check_mpi(MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, nullptr), "MPI_Comm_set_attr");
  }
  if (ChannelPool *pool = ChannelPool::of(comm)) return *pool;
  auto pool = std::make_unique<ChannelPool>();
  check_mpi(MPI_Comm_set_attr(comm, pool_keyval, pool.get()), "MPI_Comm_set_attr");
  pooled_comms().push_back(comm);
  return *pool.release();
}

bool same_options(const NotifiedOptions &a, const NotifiedOptions &b) {
  return a.ring_bytes == b.ring_bytes && a.ring_budget_bytes == b.ring_budget_bytes &&
         a.min_ring_bytes == b.min_ring_bytes && a.slot_bytes == b.slot_bytes &&
         a.inline_payload_bytes == b.inline_payload_bytes && a.batching == b.batching &&
         a.routes == b.routes;
}

// The backend that serves `win` (the library names it in the window's info).
std::string backend_of(MPI_Win win) {
  MPI_Info info = MPI_INFO_NULL;
  check_mpi(MPI_Win_get_info(win, &info), "MPI_Win_get_info");
  std::string value(MPI_MAX_INFO_VAL, '\0');
  int found = 0;
  const int rc =
      MPI_Info_get(info, MPINOTIFY_INFO_KEY_BACKEND, MPI_MAX_INFO_VAL, value.data(), &found);
  MPI_Info_free(&info);
  check_mpi(rc, "MPI_Info_get");
  if (found == 0) return {};
  value.resize(value.find('\0'));
  return value;
}

}  // namespace

std::size_t pooled_channel_sets(MPI_Comm comm) {
  const ChannelPool *pool = ChannelPool::of(comm);
  return pool != nullptr ? pool->size() : 0;
}

ChannelPool *ChannelPool::of(MPI_Comm comm) {
  if (pool_keyval == MPI_KEYVAL_INVALID) return nullptr;
  void *value = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, pool_keyval, &value, &found), "MPI_Comm_get_attr");
  return found != 0 ? static_cast<ChannelPool *>(value) : nullptr;
}

std::size_t ring_budget_from_environment() {
  const char *value =
      std::getenv("MPINOTIFY_EXCHANGE_RING_BUDGET");  // NOLINT(concurrency-mt-unsafe)
  std::size_t budget = NotifiedOptions{}.ring_budget_bytes;
  if (value == nullptr || *value == '\0') return budget;
  char *end = nullptr;
  const unsigned long long parsed = std::strtoull(value, &end, 10);
  if (end != nullptr && *end == '\0' && value[0] != '-') return static_cast<std::size_t>(parsed);
  static std::once_flag warned;
  std::call_once(warned, [&] {
    std::fprintf(stderr,
                 "mpinotify exchange: MPINOTIFY_EXCHANGE_RING_BUDGET=\"%s\" is not a number of "
                 "bytes; using %zu\n",
                 value, budget);
  });
  return budget;
}

std::size_t ring_bytes_for(const NotifiedOptions &options, std::size_t most_peers) {
  if (options.ring_budget_bytes == 0 || most_peers == 0) return options.ring_bytes;
  const std::size_t fitted =
      options.ring_budget_bytes / most_peers / options.slot_bytes * options.slot_bytes;
  const std::size_t floor = std::min(options.min_ring_bytes, options.ring_bytes) /
                            options.slot_bytes * options.slot_bytes;
  return std::clamp(fitted, floor, options.ring_bytes);
}

Channels::Channels(const ExchangeSetup &setup, const NotifiedOptions &requested,
                   std::size_t ring_bytes)
    : requested_(requested),
      options_(requested),
      comm_(setup.comm),
      op_id_(setup.op_id),
      peers_(setup.peers),
      slots_(ring_bytes / requested.slot_bytes),
      batch_(std::max<std::uint64_t>(1, slots_ / 8)),
      max_entry_slots_(slots_ / 4),
      out_(setup.peers.size()),
      in_(setup.peers.size()),
      is_undriven_(setup.peers.size(), false) {
  options_.ring_bytes = ring_bytes;
  for (Inbound &in : in_) in.starts.assign(slots_, 0);
}

Channels::~Channels() = default;

std::shared_ptr<Channels> Channels::obtain(const ExchangeSetup &setup,
                                           const NotifiedOptions &options) {
  if (options.slot_bytes < 64 || options.slot_bytes % 8 != 0 ||
      options.ring_bytes % options.slot_bytes != 0 ||
      options.ring_bytes / options.slot_bytes < 16 ||
      (options.ring_budget_bytes != 0 &&
       std::min(options.min_ring_bytes, options.ring_bytes) / options.slot_bytes < 16)) {
    throw std::invalid_argument(
        "mpinotify exchange: a ring needs 16 slots or more, of 64 bytes or more (a multiple of 8)");
  }
  MPI_Comm comm = setup.comm;
  int size = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  // Every rank learns its index in each rank's peer list (-1: not listed).
  std::vector<int> listed(static_cast<std::size_t>(size), -1);
  std::vector<int> index_at(static_cast<std::size_t>(size), -1);
  for (std::size_t i = 0; i < setup.peers.size(); ++i)
    listed[static_cast<std::size_t>(setup.peers[i])] = static_cast<int>(i);
  check_mpi(MPI_Alltoall(listed.data(), 1, MPI_INT, index_at.data(), 1, MPI_INT, comm),
            "MPI_Alltoall (peer lists)");
  bool symmetric = true;
  for (std::size_t q = 0; q < listed.size(); ++q)
    symmetric = symmetric && (listed[q] >= 0) == (index_at[q] >= 0);
  ChannelPool &pool = pool_of(comm);
  const std::shared_ptr<Channels> known = pool.find(setup.op_id);
  const bool reusable =
      known && known->peers_ == setup.peers && same_options(known->requested_, options);
  // Every rank agrees: all symmetric, all reuse (else all make new ones),
  // the most peers of any rank (negated, to take it as a minimum), and
  // whether the op id's channels that are not reused are unused on every
  // rank (then their window is freed).
  int verdict[4] = {symmetric ? 1 : 0, reusable ? 1 : 0, -static_cast<int>(setup.peers.size()),
                    known && ChannelPool::unused(known) ? 1 : 0};
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, verdict, 4, MPI_INT, MPI_MIN, comm),
            "MPI_Allreduce (exchange channels)");
  if (verdict[0] == 0) {
    throw std::invalid_argument("mpinotify exchange (op id " + std::to_string(setup.op_id) +
                                "): the peer lists are not symmetric (a rank lists a peer that "
                                "does not list it)");
  }
  if (verdict[1] == 1) return known;
  if (verdict[3] == 1) pool.retire(known);
  const std::size_t most_peers = static_cast<std::size_t>(-verdict[2]);
  std::shared_ptr<Channels> made(new Channels(setup, options, ring_bytes_for(options, most_peers)));
  std::vector<int> index_at_peer;
  index_at_peer.reserve(setup.peers.size());
  for (const int peer : setup.peers)
    index_at_peer.push_back(index_at[static_cast<std::size_t>(peer)]);
  made->open(index_at_peer);
  pool.add(made);
  return made;
}

void Channels::open(const std::vector<int> &index_at_peer) {
  index_at_peer_ = index_at_peer;
  int size = 0;
  check_mpi(MPI_Comm_size(comm_, &size), "MPI_Comm_size");
  if (size == 1) {
    closed_ = true;  // no peers anywhere: no windows
    routes_.forget();
    return;
  }
  const std::size_t peers = peers_.size();
  check_mpi(MPI_Win_allocate(static_cast<MPI_Aint>(peers * options_.ring_bytes), 1, MPI_INFO_NULL,
                             comm_, &ring_base_, &ring_win_),
            "MPI_Win_allocate (exchange rings)");
  check_mpi(MPI_Win_set_errhandler(ring_win_, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
  check_mpi(
      MPI_Win_set_num_notify(ring_win_, MPI_INFO_NULL, static_cast<int>(peers * (slots_ + 1))),
      "MPI_Win_set_num_notify (rings)");
  check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, ring_win_), "MPI_Win_lock_all");
  const std::string backend = backend_of(ring_win_);
  routes_.open(comm_, op_id_, peers_, index_at_peer_, options_.routes, backend);
}

ExchangeFootprint Channels::footprint() const noexcept {
  if (closed_) return {};
  return {.window_bytes = peers_.size() * options_.ring_bytes,
          .counters = peers_.size() * (slots_ + 1) + routes_.counters()};
}

void Channels::close() noexcept {
  if (closed_) return;
  closed_ = true;
  if (ring_win_ == MPI_WIN_NULL) return;
  MPI_Win_unlock_all(ring_win_);
  MPI_Win_free(&ring_win_);
  routes_.close();
}

}  // namespace mpinotify::detail
