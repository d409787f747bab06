#include "ofi_context.hpp"

#include <poll.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <new>

#include "osc_base/process_directory.hpp"
#include "osc_core/params.hpp"

namespace mpinotify::ofi {
namespace {

constexpr std::uint32_t kApiVersion = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION);

// What precedes an endpoint name in this library's address of a process.
struct AddressHeader {
  std::uint64_t name_bytes;
  std::uint64_t sink_address;
  std::uint64_t sink_key;
  std::uint64_t key_table_address;
  std::uint64_t key_table_key;
};

std::mutex instance_mutex;
std::unique_ptr<Context> the_context;

// MPINOTIFY_OFI_PROVIDER, or empty.
const std::string &provider_wanted() { return params().ofi_provider; }

// What the backend asks of a provider. The memory registration modes it
// can follow are offered; FI_MR_LOCAL is not (origin buffers are the
// program's, unregistered), nor FI_CONTEXT (operation contexts are ours).
fi_info *make_hints(const std::string &provider, bool atomics) {
  fi_info *hints = fi_allocinfo();
  if (hints == nullptr) return nullptr;
  hints->ep_attr->type = FI_EP_RDM;
  hints->caps = FI_RMA | (atomics ? FI_ATOMIC : 0);
  hints->mode = 0;
  hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
  hints->domain_attr->threading = FI_THREAD_SAFE;
  // A completion means the data is in the target's memory: a flush needs
  // no more.
  hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
  if (!provider.empty()) hints->fabric_attr->prov_name = strdup(provider.c_str());
  return hints;
}

ProviderFacts facts_of(const fi_info &info) {
  ProviderFacts f;
  f.name = info.fabric_attr->prov_name != nullptr ? info.fabric_attr->prov_name : "?";
  f.domain = info.domain_attr->name != nullptr ? info.domain_attr->name : "?";
  f.rma = (info.caps & FI_RMA) != 0;
  f.atomics = (info.caps & FI_ATOMIC) != 0;
  f.rma_event = (info.caps & FI_RMA_EVENT) != 0;
  f.cq_data_size = info.domain_attr->cq_data_size;
  f.write_after_write = (info.tx_attr->msg_order & FI_ORDER_RMA_WAW) != 0 &&
                        (info.rx_attr->msg_order & FI_ORDER_RMA_WAW) != 0;
  const int mr_mode = info.domain_attr->mr_mode;
  f.virtual_addresses = (mr_mode & FI_MR_VIRT_ADDR) != 0;
  f.provider_keys = (mr_mode & FI_MR_PROV_KEY) != 0;
  f.endpoint_keys = (mr_mode & FI_MR_ENDPOINT) != 0;
  f.local_only = f.name == "shm";
  f.max_message = info.ep_attr->max_msg_size;
  return f;
}

// The notification path MPINOTIFY_OFI_NOTIFY and the provider's
// capabilities (atomics included) allow.
void choose_path(ProviderFacts &f) {
  const std::string &wanted = params().ofi_notify;
  const bool data = f.cq_data_size >= 8;
  const bool data_wanted = wanted == "data" || (wanted == "auto" && data);
  f.notify = data_wanted ? NotifyPath::data : NotifyPath::atomic;
  f.usable = data_wanted ? data : f.atomics;
  // libfabric 1.17's shm: after one window's notified operations, a
  // counter of the next one read a pointer-sized foreign value plus its
  // true count (docs/usage.md); its remote CQ data path is sound.
  if (!data_wanted && f.name == "shm") {
    f.usable = false;
    f.path =
        "none: libfabric 1.17's shm corrupted registered counters under fi_atomic "
        "notifications (docs/usage.md); its remote CQ data path serves";
    return;
  }
  if (f.usable) {
    f.path = data_wanted ? "remote CQ data: a notified put is one fi_writedata"
                         : "fi_atomic add on the target's counter once the data is delivered";
  } else {
    f.path = data_wanted ? "none: fewer than 8 bytes of remote CQ data"
                         : "none: no atomics for the notification's add";
  }
}

}  // namespace

Status fabric_result(ssize_t code, const std::string &what) {
  if (code >= 0) return {};
  return error(Errc::other, what + " failed: " + fi_strerror(static_cast<int>(-code)));
}

namespace {

// The providers fi_getinfo offers for `hints`, each under its first
// (preferred) domain.
std::vector<ProviderFacts> providers_for(fi_info *hints) {
  std::vector<ProviderFacts> seen;
  if (hints == nullptr) return seen;
  fi_info *list = nullptr;
  const int found = fi_getinfo(kApiVersion, nullptr, nullptr, 0, hints, &list);
  fi_freeinfo(hints);
  if (found != 0) return seen;
  for (const fi_info *info = list; info != nullptr; info = info->next) {
    ProviderFacts f = facts_of(*info);
    bool known = false;
    for (const ProviderFacts &s : seen) known = known || s.name == f.name;
    if (!known) seen.push_back(std::move(f));
  }
  fi_freeinfo(list);
  return seen;
}

}  // namespace

std::vector<ProviderFacts> providers_seen() {
  std::vector<ProviderFacts> seen = providers_for(make_hints(provider_wanted(), false));
  // Atomics are a capability a provider reports only when asked for.
  for (const ProviderFacts &a : providers_for(make_hints(provider_wanted(), true))) {
    for (ProviderFacts &f : seen) f.atomics = f.atomics || f.name == a.name;
  }
  for (ProviderFacts &f : seen) choose_path(f);
  return seen;
}

const ProviderFacts *Context::chosen() {
  static const std::optional<ProviderFacts> choice = []() -> std::optional<ProviderFacts> {
    for (const ProviderFacts &f : providers_seen()) {
      if (f.usable) return f;
    }
    return std::nullopt;
  }();
  return choice ? &*choice : nullptr;
}

std::optional<std::string> Context::unavailable_reason() {
  if (chosen() != nullptr) return std::nullopt;
  const std::string wanted = provider_wanted();
  const std::vector<ProviderFacts> seen = providers_seen();
  if (seen.empty())
    return "libfabric offers no provider with RDM endpoints and RMA" +
           (wanted.empty() ? std::string() : " named \"" + wanted + "\" (MPINOTIFY_OFI_PROVIDER)");
  std::string names;
  for (const ProviderFacts &f : seen)
    names += (names.empty() ? "" : ", ") + f.name + " (" + f.path + ")";
  return "no libfabric provider with RMA can carry notifications as MPINOTIFY_OFI_NOTIFY=" +
         params().ofi_notify + " asks (seen: " + names + ")";
}

Context *Context::instance(Status &status) {
  std::lock_guard guard(instance_mutex);
  if (!the_context) {
    const ProviderFacts *facts = chosen();
    if (facts == nullptr) {
      status = error(Errc::other, unavailable_reason().value_or("no libfabric provider"));
      return nullptr;
    }
    std::unique_ptr<Context> made(new Context);
    status = made->start(*facts);
    if (!status.ok()) return nullptr;
    the_context = std::move(made);
  }
  return the_context.get();
}

void Context::shutdown() {
  std::lock_guard guard(instance_mutex);
  the_context.reset();
  ProcessDirectory::release();
}

bool Context::knows_group(MPI_Comm comm) {
  std::lock_guard guard(instance_mutex);
  return the_context && the_context->groups_.known(comm);
}

Status Context::start(const ProviderFacts &facts) {
  const bool atomic = facts.notify == NotifyPath::atomic;
  fi_info *hints = make_hints(facts.name, atomic);
  if (hints == nullptr) return error(Errc::no_mem, "fi_allocinfo failed");
  const int found = fi_getinfo(kApiVersion, nullptr, nullptr, 0, hints, &info_);
  fi_freeinfo(hints);
  MPINOTIFY_TRY(fabric_result(found, "fi_getinfo (" + facts.name + ")"));
  // What this info says (its registration mode above all), not the list's.
  facts_ = facts_of(*info_);
  facts_.atomics = facts_.atomics || facts.atomics;
  choose_path(facts_);
  if (!facts_.usable) return error(Errc::other, facts_.name + ": " + facts_.path);
  MPINOTIFY_TRY(fabric_result(fi_fabric(info_->fabric_attr, &fabric_, nullptr), "fi_fabric"));
  MPINOTIFY_TRY(fabric_result(fi_domain(fabric_, info_, &domain_, nullptr), "fi_domain"));
  fi_av_attr av_attr{};
  av_attr.type = FI_AV_TABLE;
  MPINOTIFY_TRY(fabric_result(fi_av_open(domain_, &av_attr, &av_, nullptr), "fi_av_open"));
  fi_cq_attr cq_attr{};
  cq_attr.format = FI_CQ_FORMAT_DATA;
  cq_attr.wait_obj = FI_WAIT_NONE;
  // Room for bursts of notifications between two reads of the queue.
  cq_attr.size = 16384;
  MPINOTIFY_TRY(fabric_result(fi_cq_open(domain_, &cq_attr, &cq_, nullptr), "fi_cq_open"));
  MPINOTIFY_TRY(fabric_result(fi_endpoint(domain_, info_, &ep_, nullptr), "fi_endpoint"));
  MPINOTIFY_TRY(
      fabric_result(fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind (queue)"));
  MPINOTIFY_TRY(fabric_result(fi_ep_bind(ep_, &av_->fid, 0), "fi_ep_bind (addresses)"));
  MPINOTIFY_TRY(fabric_result(fi_enable(ep_), "fi_enable"));
  if (facts_.notify == NotifyPath::atomic) {
    std::size_t count = 0;
    if (fi_atomicvalid(ep_, FI_INT64, FI_SUM, &count) != 0 || count == 0)
      return error(Errc::other, facts_.name + " cannot add 64-bit integers atomically");
    facts_.fetch_write =
        fi_fetch_atomicvalid(ep_, FI_INT64, FI_ATOMIC_WRITE, &count) == 0 && count > 0;
  }
  MPINOTIFY_TRY(register_memory(&sink_word_, sizeof sink_word_, sink_));
  key_table_.reset(new (std::nothrow) KeySlot[kKeyTableSlots]());
  if (!key_table_) return error(Errc::no_mem, "allocating the key table failed");
  MPINOTIFY_TRY(register_memory(key_table_.get(), kKeyTableSlots * sizeof(KeySlot),
                                key_table_registration_,
                                FI_REMOTE_READ));  // peers only read it
  key_slots_ = std::make_unique<KeySlots>(key_table_.get(), kKeyTableSlots);
  generations_.push_back(make_generation());
  stop_fd_ = eventfd(0, EFD_CLOEXEC);
  if (stop_fd_ < 0) return error(Errc::other, "eventfd for the libfabric progress thread failed");
  progress_thread_ = std::thread([this] { progress_loop(); });
  return {};
}

Context::~Context() {
  stopping_.store(true, std::memory_order_release);
  if (stop_fd_ >= 0) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t written = write(stop_fd_, &one, sizeof one);
  }
  if (progress_thread_.joinable()) progress_thread_.join();
  release(sink_);  // before the endpoint they may be bound to
  release(key_table_registration_);
  if (ep_ != nullptr) fi_close(&ep_->fid);
  if (cq_ != nullptr) fi_close(&cq_->fid);
  if (av_ != nullptr) fi_close(&av_->fid);
  if (domain_ != nullptr) fi_close(&domain_->fid);
  if (fabric_ != nullptr) fi_close(&fabric_->fid);
  if (info_ != nullptr) fi_freeinfo(info_);
  parked_.clear();  // nothing can complete into them any more
  parked_generations_.clear();
  if (stop_fd_ >= 0) close(stop_fd_);
}

void Context::progress_loop() {
  while (!stopping_.load(std::memory_order_acquire)) {
    // While callers read the queue, only check every millisecond that they
    // still do (on two cores the thread would take the CPU a poller needs).
    if (!read_by_caller_.exchange(false, std::memory_order_relaxed)) {
      std::lock_guard guard(queue_mutex_);
      if (drain_locked()) continue;  // more waiting: no sleep
    }
    pollfd stop = {stop_fd_, POLLIN, 0};
    poll(&stop, 1, 1);
  }
}

Status Context::register_memory(void *base, std::size_t bytes, Registration &out,
                                std::uint64_t access) {
  std::uint64_t requested = 0;
  if (!facts_.provider_keys) {
    std::lock_guard guard(keys_mutex_);
    requested = next_key_++;
  }
  fid_mr *mr = nullptr;
  MPINOTIFY_TRY(
      fabric_result(fi_mr_reg(domain_, base, bytes, access, 0, requested, 0, &mr, nullptr),
                    "fi_mr_reg (" + std::to_string(bytes) + " bytes)"));
  if (facts_.endpoint_keys) {
    Status bound = fabric_result(fi_mr_bind(mr, &ep_->fid, 0), "fi_mr_bind");
    if (bound.ok()) bound = fabric_result(fi_mr_enable(mr), "fi_mr_enable");
    if (!bound.ok()) {
      fi_close(&mr->fid);
      return bound;
    }
  }
  out.mr = mr;
  out.key = fi_mr_key(mr);
  out.address = facts_.virtual_addresses ? reinterpret_cast<std::uint64_t>(base) : 0;
  return {};
}

void Context::release(Registration &registration) {
  if (registration.mr != nullptr) fi_close(&registration.mr->fid);
  registration = {};
}

Status Context::add_sink(CounterSink *sink, std::uint32_t &key) {
  std::lock_guard guard(queue_mutex_);
  for (std::size_t k = 1; k < sinks_.size(); ++k) {
    if (sinks_[k] == nullptr) {
      sinks_[k] = sink;
      key = static_cast<std::uint32_t>(k);
      return {};
    }
  }
  if (sinks_.empty()) sinks_.push_back(nullptr);  // key 0 names no window
  if (sinks_.size() >= kMaxWindowKeys)
    return error(Errc::no_mem, "this process has " + std::to_string(kMaxWindowKeys - 1) +
                                   " windows served by ofi, the most it can tell apart");
  key = static_cast<std::uint32_t>(sinks_.size());
  sinks_.push_back(sink);
  return {};
}

void Context::remove_sink(std::uint32_t key) {
  std::lock_guard guard(queue_mutex_);
  drain_all_locked();
  if (key < sinks_.size()) sinks_[key] = nullptr;
}

Context::Generation *Context::enter() {
  std::lock_guard guard(generations_mutex_);
  Generation *open = generations_.back().get();
  ++open->outstanding;
  return open;
}

void Context::leave(Generation *generation) {
  std::lock_guard guard(generations_mutex_);
  --generation->outstanding;
}

std::uint64_t Context::seal() {
  std::lock_guard guard(generations_mutex_);
  Generation &open = *generations_.back();
  // Nothing older is unfinished and nothing is in this one: no wait.
  if (generations_.size() == 1 && open.outstanding == 0 && failures_.empty()) return 0;
  const std::uint64_t ticket = open.ticket;
  generations_.push_back(make_generation());
  return ticket;
}

bool Context::done(std::uint64_t ticket, Status &failure) {
  std::lock_guard guard(generations_mutex_);
  while (generations_.size() > 1 && generations_.front()->outstanding == 0) {
    if (!generations_.front()->failure.ok())
      failures_.emplace_back(generations_.front()->ticket, generations_.front()->failure);
    generations_.pop_front();
  }
  for (const auto &generation : generations_) {
    if (generation->ticket > ticket) break;
    if (generation->outstanding > 0 && !generation->abandoned) return false;
  }
  for (auto it = failures_.begin(); it != failures_.end(); ++it) {
    if (it->first <= ticket) {
      failure = it->second;
      failures_.erase(it);
      break;
    }
  }
  return true;
}

void Context::abandon(std::uint64_t ticket) {
  std::lock_guard guard(generations_mutex_);
  for (const auto &generation : generations_) {
    if (generation->ticket > ticket) break;
    generation->abandoned = true;
  }
}

bool Context::idle() {
  std::lock_guard guard(generations_mutex_);
  for (const auto &generation : generations_) {
    if (generation->outstanding > 0) return false;
  }
  return true;
}

Status Context::complete_all(const char *what, int peer) {
  const std::uint64_t ticket = seal();
  PeerDeadline deadline;
  Status failure;
  if (progress_until(
          deadline, [&] { return done(ticket, failure); }, [this] { progress(); }))
    return failure;
  abandon(ticket);
  return error(Errc::other, timed_out_message(what, peer, deadline.seconds()));
}

void Context::complete(void *context, const Status &failure) {
  auto *generation = static_cast<Generation *>(context);
  --generation->outstanding;
  if (!failure.ok() && generation->failure.ok()) generation->failure = failure;
}

bool Context::drain_locked() {
  constexpr std::size_t kBatch = 32;
  fi_cq_data_entry entries[kBatch];
  for (int round = 0; round < 64; ++round) {
    const ssize_t n = fi_cq_read(cq_, entries, kBatch);
    if (n == -FI_EAGAIN) return false;
    if (n == -FI_EAVAIL) {
      fi_cq_err_entry failed{};
      if (fi_cq_readerr(cq_, &failed, 0) <= 0) return false;
      if ((failed.flags & FI_REMOTE_CQ_DATA) != 0 || failed.op_context == nullptr) continue;
      const Status failure =
          error(Errc::other,
                std::string("a libfabric operation failed: ") + fi_strerror(failed.err) + " (" +
                    fi_cq_strerror(cq_, failed.prov_errno, failed.err_data, nullptr, 0) + ")");
      std::lock_guard guard(generations_mutex_);
      complete(failed.op_context, failure);
      continue;
    }
    if (n <= 0) return false;
    bool completions = false;
    for (ssize_t i = 0; i < n; ++i) {
      if ((entries[i].flags & FI_REMOTE_CQ_DATA) != 0)
        apply(entries[i].data);
      else
        completions = completions || entries[i].op_context != nullptr;
    }
    if (completions) {
      std::lock_guard guard(generations_mutex_);
      for (ssize_t i = 0; i < n; ++i) {
        if ((entries[i].flags & FI_REMOTE_CQ_DATA) == 0 && entries[i].op_context != nullptr)
          complete(entries[i].op_context, Status{});
      }
    }
    if (static_cast<std::size_t>(n) < kBatch) return false;
  }
  return true;
}

void Context::apply(std::uint64_t data) {
  const auto key = static_cast<std::uint32_t>(data >> 44);
  const auto amount = static_cast<std::int64_t>((data >> 32) & kMaxAmount);
  const auto idx = static_cast<std::int64_t>(data & 0xffffffffU);
  CounterSink *sink = key < sinks_.size() ? sinks_[key] : nullptr;
  if (sink == nullptr) return;  // a window already gone (or a malformed entry)
  if (idx >= sink->capacity || amount == 0) {
    ++sink->stray;
    return;
  }
  std::atomic_ref<std::int64_t>(sink->counters[idx]).fetch_add(amount, std::memory_order_release);
}

Status Context::addresses(MPI_Comm comm, bool known_by_all, std::shared_ptr<const Addresses> &out) {
  return groups_.get(
      comm, known_by_all,
      [this](std::string &mine) {
        std::string name(256, '\0');
        std::size_t length = name.size();
        ssize_t named = fi_getname(&ep_->fid, name.data(), &length);
        if (named == -FI_ETOOSMALL) {
          name.resize(length);
          named = fi_getname(&ep_->fid, name.data(), &length);
        }
        mine.clear();
        if (named != 0) return fabric_result(named, "fi_getname");
        const AddressHeader header{length, sink_.address, sink_.key,
                                   key_table_registration_.address, key_table_registration_.key};
        mine.assign(reinterpret_cast<const char *>(&header), sizeof header);
        mine.append(name.data(), length);
        return Status{};
      },
      out);
}

Status Context::read_alone(fi_addr_t addr, std::uint64_t address, std::uint64_t key, void *out,
                           std::size_t bytes, const char *what, int peer, PeerDeadline *shared) {
  // A generation of its own: the wait is for this read alone.
  auto own = std::make_unique<Generation>();
  own->outstanding = 1;
  auto landing = std::make_unique<std::byte[]>(bytes);
  MPINOTIFY_TRY(issue_into(own.get(), what, peer, [&](void *context) {
    return fi_read(ep_, landing.get(), bytes, nullptr, addr, address, key, context);
  }));
  PeerDeadline alone;
  PeerDeadline &deadline = shared != nullptr ? *shared : alone;
  const bool finished = progress_until(
      deadline,
      [&] {
        std::lock_guard guard(generations_mutex_);
        return own->outstanding == 0;
      },
      [this] { progress(); });
  if (finished) {
    std::lock_guard guard(generations_mutex_);
    if (own->failure.ok()) std::memcpy(out, landing.get(), bytes);
    return own->failure;
  }
  // A late completion still lands and counts down: both stay.
  park(std::move(landing));
  std::lock_guard guard(parked_mutex_);
  parked_generations_.push_back(std::move(own));
  return error(Errc::other, timed_out_message(what, peer, deadline.seconds()));
}

Status Context::reach(const std::string &address, int peer, Reached &out, PeerDeadline *deadline) {
  const std::string whom = "rank " + std::to_string(peer);
  AddressHeader header{};
  if (address.size() < sizeof header)
    return error(Errc::intern, "ofi: a short address for " + whom);
  std::memcpy(&header, address.data(), sizeof header);
  if (address.size() != sizeof header + header.name_bytes)
    return error(Errc::intern, "ofi: a malformed address for " + whom);
  return reached_.get(
      address,
      [&](Reached &made) -> Status {
        if (fi_av_insert(av_, address.data() + sizeof header, 1, &made.addr, 0, nullptr) != 1)
          return error(Errc::other, "fi_av_insert failed for the address of " + whom);
        made.sink = {header.sink_address, header.sink_key};
        made.key_table_address = header.key_table_address;
        made.key_table_key = header.key_table_key;
        // Providers connect lazily: a peer is only known to work once an
        // operation to it completed, so one that cannot be reached fails
        // here, within the deadline, not in some later flush.
        std::uint64_t word = 0;
        const Status reached = read_alone(made.addr, made.sink.address, made.sink.key, &word,
                                          sizeof word, "connecting (fi_read)", peer, deadline);
        if (reached.ok()) return {};
        fi_av_remove(av_, &made.addr, 1, 0);  // forgotten, so that the next use tries again
        return error(Errc::other, "ofi: " + whom + " cannot be reached: " + reached.message());
      },
      out);
}

Status Context::read_key_slot(const Reached &peer, int rank, std::size_t slot, KeySlot &out,
                              PeerDeadline *deadline) {
  return read_alone(peer.addr, peer.key_table_address + slot * sizeof(KeySlot), peer.key_table_key,
                    &out, sizeof out, "fi_read (key table)", rank, deadline);
}

}  // namespace mpinotify::ofi
