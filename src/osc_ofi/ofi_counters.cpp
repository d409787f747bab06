// ofi counters (this process's memory, fed by the completion queue, or by
// peers' atomics on the atomic path) and the exchange at creation.
#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>
#include <sys/mman.h>

#include <atomic>
#include <cstring>
#include <new>
#include <utility>

#include "ofi_module.hpp"
#include "osc_core/agreement.hpp"

namespace mpinotify::ofi {
namespace {

constexpr std::size_t kCounterBytes = sizeof(std::int64_t);

}  // namespace

CounterMemory::CounterMemory(std::int64_t count) {
  const std::size_t bytes = static_cast<std::size_t>(count) * kCounterBytes;
  void *mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return;
  words_ = static_cast<std::int64_t *>(mapped);
  bytes_ = bytes;
}

CounterMemory::~CounterMemory() {
  if (words_ != nullptr) munmap(words_, bytes_);
}

OfiModule::OfiModule(Window &window, Context &context)
    : window_(window),
      context_(context),
      published_(context.key_slots()),
      owed_(window.size()),
      deferred_(window) {}

OfiModule::~OfiModule() { release_all(); }

void OfiModule::release_all() {
  published_.withdraw();
  if (sink_added_) context_.remove_sink(window_key_);
  sink_added_ = false;
  release_dynamic();
  Context::release(memory_);
  directory_.reset();  // after its registration
  Context::release(counter_registration_);
}

Status OfiModule::reserve(int capacity, bool &grows) {
  return capacity_.reserve(capacity, !counters_.empty(), kCounterBytes, grows);
}

Status OfiModule::register_counters(const CounterMemory &counters, std::int64_t capacity,
                                    Registration &out) {
  return context_.register_memory(counters.get(),
                                  static_cast<std::size_t>(capacity) * kCounterBytes, out);
}

void OfiModule::install(CounterMemory fresh, std::int64_t capacity, Registration registration) {
  // Nothing is in flight to the old counters (quiesce, agreement).
  Registration old = std::exchange(counter_registration_, registration);
  Context::release(old);
  context_.with_sinks_quiet([&] {
    counters_ = std::move(fresh);
    sink_.counters = counters_.get();
    sink_.capacity = capacity;
  });
  capacity_.hold(capacity);
}

Status OfiModule::commit(const RankCounts &new_counts, bool any_growth) {
  const int me = window_.rank();
  if (!any_growth) {
    // Nothing is in flight (quiesce, agreement), but notifications that
    // arrived may wait in the queue: applied first, then cleared.
    context_.with_sinks_quiet([&] { clear_counters(counters_.get(), window_.count(me)); });
    return {};
  }
  const std::int64_t capacity = std::max<std::int64_t>(1, capacity_.grown(new_counts[me]));
  CounterMemory fresh(capacity);
  Status local;
  if (fresh.empty())
    local = error(Errc::no_mem, "allocating " + std::to_string(capacity) + " counters failed");
  if (counters_.empty()) return connect(std::move(fresh), capacity, local);
  Registration registration;
  if (local.ok() && atomic_path()) local = register_counters(fresh, capacity, registration);
  // With notifications in the queue, counters live here only (peers name
  // them by index): growing needs no exchange, only that every rank can.
  if (const Status agreed = agree(window_.comm(), local, "growing the counters (ofi)");
      !agreed.ok()) {
    Context::release(registration);
    return agreed;
  }
  if (atomic_path()) {
    // Peers' atomics go to the new registration.
    if (const Status exchanged = exchange_keys(registration); !exchanged.ok()) {
      Context::release(registration);
      return exchanged;
    }
  }
  install(std::move(fresh), capacity, registration);
  return {};
}

Status OfiModule::connect(CounterMemory counters, std::int64_t capacity, Status local) {
  MPI_Comm comm = window_.comm();
  const Status named = context_.addresses(comm, window_.group_known(), names_);  // collective
  if (local.ok()) local = named;
  if (local.ok()) {
    // The counters take notifications from now on: a peer may notify as
    // soon as it left the exchange below, before this rank did.
    sink_.counters = counters.get();
    sink_.capacity = capacity;
    local = context_.add_sink(&sink_, window_key_);
    sink_added_ = local.ok();
  }
  if (local.ok() && atomic_path())
    local = register_counters(counters, capacity, counter_registration_);
  if (local.ok() && window_.flavor() == Flavor::dynamic) {
    local = make_directory();  // a dynamic window's registered memory
  } else if (local.ok()) {
    void *base = nullptr;
    MPI_Aint *size = nullptr;
    int found_base = 0;
    int found_size = 0;
    PMPI_Win_get_attr(window_.handle(), MPI_WIN_BASE, &base, &found_base);
    PMPI_Win_get_attr(window_.handle(), MPI_WIN_SIZE, &size, &found_size);
    if (found_base != 0 && found_size != 0 && *size > 0)
      local = context_.register_memory(base, static_cast<std::size_t>(*size), memory_);
  }
  const Status agreed = agree(comm, local, "registering memory with libfabric");
  if (!agreed.ok()) {
    release_all();
    return agreed;
  }

  if (const Status exchanged = exchange_keys(counter_registration_); !exchanged.ok()) {
    release_all();
    return exchanged;
  }
  // No peer is reached here: each is, by the first operation to it.
  install(std::move(counters), capacity, std::exchange(counter_registration_, {}));
  place_directory();
  return {};
}

Status OfiModule::exchange_keys(const Registration &counters) {
  const KeyRecord record{window_key_, memory_.mr != nullptr ? 1U : 0U, memory_.key, counters.key};
  WindowKeys mine;
  mine.window_key = window_.key();
  mine.bases = {counters.address, memory_.address};
  mine.keys[0] = std::string_view(reinterpret_cast<const char *>(&record), sizeof record);
  std::vector<GatheredRecord> gathered;
  MPINOTIFY_TRY(published_.exchange(
      window_.comm(), mine, fault_injected("keys:ofi", window_.rank()), Status{},
      [&](const WindowKeys &) {
        return allgather_records(window_.comm(), GatheredRecord{mine.bases, record}, gathered);
      }));
  // Keys of old registrations go with them (a growth runs with nothing in
  // flight): targets are made again on their next use.
  peers_.clear([](int, Peer &) {});
  gathered_ = std::move(gathered);
  return {};
}

Status OfiModule::read_counter(int idx, MPI_Count *value) {
  // The read progresses the endpoint (notifications arrive through the
  // queue), so a loop that waits always advances (SEMANTICS 2.6).
  context_.progress_for_counters();
  // Data that moves through the host may need this process's progress too.
  polls_.tick(window_.comm());
  *value = std::atomic_ref<std::int64_t>(counters_[static_cast<std::size_t>(idx)])
               .load(std::memory_order_acquire);
  return {};
}

Status OfiModule::check_peers() {
  // A read of one word of each reached peer's sink, as when it was first
  // reached: a stopped peer or a cut link never answers it (over tcp).
  Status failure;
  peers_.for_each([&](int target, const Peer &peer) {
    if (failure.ok()) failure = context_.still_answers(peer.addr, peer.sink, target);
  });
  return failure;
}

Status OfiModule::reset_counter(int idx, MPI_Count *previous) {
  if (atomic_path() && context_.facts().fetch_write) {
    // Peers' adds are the provider's atomics, which a CPU exchange need
    // not be atomic with (a NIC may apply them): the swap is one too.
    static constexpr std::int64_t kZero = 0;
    const int me = window_.rank();
    const Peer *self = nullptr;
    MPINOTIFY_TRY(target_peer(me, self));
    const std::uint64_t counter =
        self->counter_address + static_cast<std::uint64_t>(idx) * kCounterBytes;
    return context_.read(
        previous, sizeof *previous, "fi_fetch_atomic (reset)", me, [&](std::byte *landing) {
          return context_.issue("fi_fetch_atomic (reset)", me, [&](void *context) {
            return fi_fetch_atomic(context_.endpoint(), &kZero, 1, nullptr, landing, nullptr,
                                   self->addr, counter, self->counter_key, FI_INT64,
                                   FI_ATOMIC_WRITE, context);
          });
        });
  }
  // Notifications are applied with atomic adds on this memory (by the
  // queue's reader, or by a provider that runs peers' atomics on this
  // CPU): the exchange is atomic with respect to them (SEMANTICS 2.7).
  // Those that arrived are applied first.
  context_.progress_for_counters();
  *previous = std::atomic_ref<std::int64_t>(counters_[static_cast<std::size_t>(idx)])
                  .exchange(0, std::memory_order_acq_rel);
  return {};
}

Status OfiModule::destroy() {
  Status st = complete_all();
  if (!st.ok()) {
    // Operations may still read them.
    std::lock_guard guard(bounce_mutex_);
    for (std::vector<char> &buffer : bounce_) context_.park(std::move(buffer));
    bounce_.clear();
  }
  const Status finished = deferred_.finish();
  // Peers may still notify this window until everyone is here.
  const Status met = host_status(PMPI_Barrier(window_.comm()), "MPI_Barrier");
  release_all();
  if (!st.ok()) return st;
  return finished.ok() ? met : finished;
}

}  // namespace mpinotify::ofi
