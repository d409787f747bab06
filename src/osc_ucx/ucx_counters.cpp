// ucx counters: their registration and its growth, reads and resets.
#include <algorithm>
#include <atomic>
#include <cstring>

#include "osc_core/agreement.hpp"
#include "osc_core/params.hpp"
#include "ucx_module.hpp"

namespace mpinotify::ucx {
namespace {

constexpr std::size_t kCounterBytes = sizeof(std::int64_t);
// What a rank's keys usually fit in (its header, 25 + 12 bytes of keys with
// shared-memory transports) when they are gathered: one collective
// exchanges them.
constexpr std::size_t kKeysSlotBytes = 128;

// What one rank tells the others about its registrations.
struct KeysHeader {
  std::uint64_t counters_base;
  std::uint64_t memory_base;
  std::uint32_t counters_key_bytes;
  std::uint32_t memory_key_bytes;
};

}  // namespace

bool mapped_here(ucp_rkey_h rkey, std::uint64_t address) {
  void *pointer = nullptr;
  return rkey != nullptr && ucp_rkey_ptr(rkey, address, &pointer) == UCS_OK;
}

UcxModule::UcxModule(Window &window, Context &context)
    : window_(window),
      context_(context),
      owed_(window.size()),
      deferred_(window),
      published_(context.key_slots()),
      pending_(window.thread_multiple()) {
  shared_.map(window);
}

UcxModule::~UcxModule() {
  published_.withdraw();
  release_reservation();
  release_dynamic();
  forget_peers();
  release(counters_);
  release(memory_);
}

void UcxModule::release(LocalMemory &local) {
  if (local.pooled) {
    context_.counter_pool().give_back(local);
    return;
  }
  if (local.handle != nullptr) ucp_mem_unmap(context_.context(), local.handle);
  local = {};
}

Status UcxModule::reserve(int capacity, bool &grows) {
  MPINOTIFY_TRY(capacity_.reserve(capacity, counters_.handle != nullptr, kCounterBytes, grows));
  if (!grows) return {};
  // Registered here, where a failure is still this rank's to report
  // through the caller's agreement; the commit only exchanges keys.
  const Status registered = register_storage(std::max<std::int64_t>(capacity, capacity_.held()));
  if (!registered.ok()) release_reservation();
  return registered;
}

Status UcxModule::register_storage(std::int64_t capacity) {
  reserved_.first = counters_.handle == nullptr;
  MPINOTIFY_TRY(context_.counter_pool().take(
      std::max<std::size_t>(1, static_cast<std::size_t>(capacity)) * kCounterBytes,
      reserved_.counters, reserved_.counters_key));
  // The window memory too, the first time, for the flavors whose memory
  // exists at creation.
  if (reserved_.first && window_.flavor() == Flavor::dynamic) {
    // A dynamic window's registered memory is its directory of attached
    // regions (ucx_dynamic.cpp).
    MPINOTIFY_TRY(
        map_memory(context_.context(), nullptr, directory_bytes(), true, reserved_.memory));
    std::memset(reserved_.memory.base, 0, reserved_.memory.bytes);
  } else if (reserved_.first) {
    void *base = nullptr;
    MPI_Aint *size = nullptr;
    int found_base = 0;
    int found_size = 0;
    PMPI_Win_get_attr(window_.handle(), MPI_WIN_BASE, &base, &found_base);
    PMPI_Win_get_attr(window_.handle(), MPI_WIN_SIZE, &size, &found_size);
    if (found_base != 0 && found_size != 0 && *size > 0)
      MPINOTIFY_TRY(map_memory(context_.context(), base, static_cast<std::size_t>(*size), false,
                               reserved_.memory));
  }
  reserved_.memory_key = packed_key(context_.context(), reserved_.memory);
  if (reserved_.memory.handle != nullptr && reserved_.memory_key.empty())
    return error(Errc::other, "ucp_rkey_pack failed for the window memory");
  return {};
}

Status UcxModule::exchange_keys() {
  MPI_Comm comm = window_.comm();
  const bool grew = reserved_.counters.handle != nullptr;
  const bool first = counters_.handle == nullptr;
  if (first && !grew) return error(Errc::intern, "ucx: a first commit without storage");
  // A rank that cannot have the group's addresses still takes part in the
  // keys' allreduce below, which then fails on every rank.
  const int me = window_.rank();
  Status addressed;
  if (first) addressed = context_.addresses(comm, window_.group_known(), addresses_);
  if (first && addressed.ok() && fault_injected("addresses:ucx", me))  // after its collective part
    addressed = error(Errc::no_mem, "ucx: learning the group's addresses failed (MPINOTIFY_FAULT)");
  // A rank that did not grow keeps its storage: it clears the counters
  // that can be non-zero (nothing is in flight: quiesce, agreement) and
  // tells its current key again.
  if (!grew) clear_counters(static_cast<std::int64_t *>(counters_.base), window_.count(me));
  const LocalMemory &counters = grew ? reserved_.counters : counters_;
  const LocalMemory &memory = first ? reserved_.memory : memory_;
  const WindowKeys current = published_.current();
  const WindowKeys mine{window_.key(),
                        0,
                        {reinterpret_cast<std::uint64_t>(counters.base),
                         reinterpret_cast<std::uint64_t>(memory.base)},
                        {grew ? std::string_view(reserved_.counters_key) : current.keys[0],
                         first ? std::string_view(reserved_.memory_key) : current.keys[1]}};
  // Published in this process's key table where every rank's fit: peers
  // read them there on first use and no rank receives every rank's keys.
  // The exchange is also the barrier after which nobody touches the old
  // counter registration.
  PeerKeys keys;
  const Status exchanged =
      published_.exchange(comm, mine, fault_injected("keys:ucx", me), addressed,
                          [&](const WindowKeys &gathered) { return gather_keys(gathered, keys); });
  if (!exchanged.ok()) {
    if (grew) release_reservation();
    return exchanged;
  }
  // Keys unpacked from the old registrations die with them (a growth runs
  // with nothing in flight); targets are made again on their next use.
  forget_peers();
  keys_ = std::move(keys);
  if (grew) {
    release(counters_);
    counters_ = reserved_.counters;
    capacity_.hold(static_cast<std::int64_t>(counters_.bytes / kCounterBytes));
    if (first) {
      memory_ = reserved_.memory;
      if (window_.flavor() == Flavor::dynamic)
        window_.local_regions().place(reinterpret_cast<RegionTable *>(
            static_cast<char *>(memory_.base) + region_table_offset()));
    }
    reserved_ = {};
  }
  capacity_.grown(0);  // the reservation is used up
  return {};
}

Status UcxModule::gather_keys(const WindowKeys &mine, PeerKeys &out) {
  const KeysHeader header{mine.bases[0], mine.bases[1],
                          static_cast<std::uint32_t>(mine.keys[0].size()),
                          static_cast<std::uint32_t>(mine.keys[1].size())};
  std::string packed(reinterpret_cast<const char *>(&header), sizeof header);
  packed += mine.keys[0];
  packed += mine.keys[1];
  std::vector<std::string> all;
  MPINOTIFY_TRY(allgather_bytes(window_.comm(), packed, all, kKeysSlotBytes));
  // Kept packed: a target's keys are unpacked when it is first used.
  std::size_t key_bytes = 0;
  for (const std::string &theirs : all) key_bytes += theirs.size() - sizeof(KeysHeader);
  out.reserve(all.size(), key_bytes);
  for (const std::string &bytes : all) {
    KeysHeader theirs{};
    std::memcpy(&theirs, bytes.data(), sizeof theirs);
    const std::string_view keys = std::string_view(bytes).substr(sizeof theirs);
    out.add({theirs.counters_base, theirs.memory_base}, keys.substr(0, theirs.counters_key_bytes),
            keys.substr(theirs.counters_key_bytes, theirs.memory_key_bytes));
  }
  return {};
}

Status UcxModule::commit(const RankCounts & /*new_counts*/, bool any_growth) {
  const int me = window_.rank();
  if (!any_growth) {
    // Nothing is in flight (quiesce, agreement): every counter that can be
    // non-zero lies below the old attached count.
    clear_counters(static_cast<std::int64_t *>(counters_.base), window_.count(me));
    return {};
  }
  return exchange_keys();
}

Status UcxModule::read_counter(int idx, MPI_Count *value) {
  // A process that notified others (or itself) and now polls publishes.
  MPINOTIFY_TRY(publish());
  std::atomic_ref<std::int64_t> counter(static_cast<std::int64_t *>(counters_.base)[idx]);
  // A value this poller has not seen yet is returned at once: the poll
  // that sees an increment (which load/store transports deliver without
  // us) skips the progress it needs only while nothing changes. A loop
  // that waits therefore still progresses on every call (SEMANTICS 2.6).
  // Never twice in a row, though: a program polling several counters in
  // turn can find a new value on every poll (or counters sharing a slot
  // of seen_ can look new), and peers whose emulated puts need this
  // process's progress would wait for the progress thread (a millisecond
  // or more each time, which cut the message exchange over posix to a
  // twentieth).
  std::atomic<std::int64_t> &seen = seen_[static_cast<std::size_t>(idx) % seen_.size()];
  std::int64_t now = counter.load(std::memory_order_acquire);
  const bool fresh = now != seen.load(std::memory_order_relaxed);
  if (!fresh || skipped_progress_.exchange(true, std::memory_order_relaxed)) {
    skipped_progress_.store(false, std::memory_order_relaxed);
    // Over tcp, peers' adds arrive through progress.
    context_.poll_counters();
    // Data that moves through the host may need this process's progress
    // too.
    polls_.tick(window_.comm());
    now = counter.load(std::memory_order_acquire);
  }
  seen.store(now, std::memory_order_relaxed);
  *value = now;
  return {};
}

Status UcxModule::check_peers() {
  // A read of one word of each reached peer's counters: where the
  // transport needs the target's progress (tcp), a stopped peer or a cut
  // link never answers it.
  // The read lands in a buffer the context keeps if the wait fails: the
  // peer that did not answer in time may still answer later.
  Status failure;
  std::int64_t word = 0;
  peers_.for_each([&](int target, const Peer &peer) {
    if (!failure.ok() || peer.counters.rkey == nullptr) return;
    failure = context_.read(&word, sizeof word, "ucp_get_nbx (does the peer answer?)", target,
                            [&](void *landing) {
                              ucp_request_param_t param{};
                              return ucp_get_nbx(peer.ep, landing, sizeof word, peer.counters.base,
                                                 peer.counters.rkey, &param);
                            });
  });
  return failure;
}

Status UcxModule::reset_counter(int idx, MPI_Count *previous) {
  // A UCP swap on this process's own counter: atomic with respect to the
  // network's adds, whichever device performs them.
  MPINOTIFY_TRY(publish());  // its own gathered increments land before the swap
  const int me = window_.rank();
  static const std::int64_t zero = 0;  // read whenever UCX sends the swap
  std::int64_t before = 0;
  const Peer *own = nullptr;
  MPINOTIFY_TRY(peer(me, own));
  MPINOTIFY_TRY(
      context_.read(&before, sizeof before, "ucp_atomic_op_nbx (swap)", me, [&](void *landing) {
        ucp_request_param_t param{};
        param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        param.datatype = ucp_dt_make_contig(kCounterBytes);
        param.reply_buffer = landing;
        return ucp_atomic_op_nbx(
            own->ep, UCP_ATOMIC_OP_SWAP, &zero, 1,
            own->counters.base + static_cast<std::uint64_t>(idx) * kCounterBytes,
            own->counters.rkey, &param);
      }));
  *previous = before;
  return {};
}

Status UcxModule::destroy() {
  Status st = flush_all();
  const Status finished = deferred_.finish();
  // Peers may still flush towards this registration until everyone is here.
  const Status met = host_status(PMPI_Barrier(window_.comm()), "MPI_Barrier");
  published_.withdraw();
  release_dynamic();
  forget_peers();
  release(counters_);
  release(memory_);
  if (!st.ok()) return st;
  return finished.ok() ? met : finished;
}

}  // namespace mpinotify::ucx
