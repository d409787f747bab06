#include "ucx_context.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#include "osc_base/peer_deadline.hpp"
#include "osc_base/process_directory.hpp"
#include "osc_core/params.hpp"
#include "ucx_memory.hpp"

namespace mpinotify::ucx {
namespace {

// MPINOTIFY_UCX_<NAME> overrides UCX_<NAME> for this library's context
// only, so the backend's transports can be chosen apart from the host MPI's.
constexpr const char *kEnvPrefix = "MPINOTIFY";

// UCX's transports between processes it takes for one machine.
constexpr const char *kNoSharedMemoryTransports = "^posix,sysv,xpmem,knem,cma";

// What precedes a worker address in this library's address of a process.
struct AddressHeader {
  std::uint32_t worker_bytes;
  std::uint32_t key_table_rkey_bytes;
  std::uint64_t key_table_base;
};

std::mutex instance_mutex;
std::unique_ptr<Context> the_context;
bool context_shares_memory = false;

// Whether the user chose a transport setting (UCX reads those from UCX_*
// only, never with this library's prefix).
bool user_set(const char *ucx_name) {
  return std::getenv(ucx_name) != nullptr;  // NOLINT(concurrency-mt-unsafe): at context creation
}

}  // namespace

std::optional<std::string> Context::unavailable_reason() {
  static const std::optional<std::string> reason = []() -> std::optional<std::string> {
    ucp_config_t *config = nullptr;
    if (ucp_config_read(kEnvPrefix, nullptr, &config) != UCS_OK)
      return "cannot read the UCX configuration";
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64;
    ucp_context_h context = nullptr;
    const ucs_status_t status = ucp_init(&params, config, &context);
    ucp_config_release(config);
    if (status != UCS_OK) return std::string("ucp_init failed: ") + ucs_status_string(status);
    ucp_cleanup(context);
    return std::nullopt;
  }();
  return reason;
}

Context *Context::instance(Status &status, bool lookalikes_apart) {
  std::lock_guard guard(instance_mutex);
  if (!the_context) {
    std::unique_ptr<Context> made(new Context);
    status = made->start(!lookalikes_apart);
    if (!status.ok()) return nullptr;
    the_context = std::move(made);
    context_shares_memory = !lookalikes_apart;
  }
  return the_context.get();
}

bool Context::uses_shared_memory() {
  std::lock_guard guard(instance_mutex);
  return the_context && context_shares_memory;
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

Status Context::start(bool shared_memory) {
  ucp_config_t *config = nullptr;
  MPINOTIFY_TRY(ucs_result(ucp_config_read(kEnvPrefix, nullptr, &config), "ucp_config_read"));
  auto modify = [&](const char *name, const std::string &value) {
    const ucs_status_t modified = ucp_config_modify(config, name, value.c_str());
    if (modified != UCS_OK) ucp_config_release(config);
    return ucs_result(modified, "ucp_config_modify");
  };
  if (!shared_memory) MPINOTIFY_TRY(modify("TLS", kNoSharedMemoryTransports));
  // UCX 1.13 connects over tcp inside ucp_ep_create, blocking until TCP
  // gives up on a peer it cannot reach (about two minutes on Linux), where
  // no deadline of the library's reaches. Connecting in the background
  // leaves that to the flush that checks each new endpoint, which the peer
  // deadline bounds. (UCX_TCP_SYN_CNT, the other way, breaks UCX 1.13's
  // tcp transport: "Invalid memory pool parameter(s)".)
  if (params().peer_timeout != 0 && !user_set("UCX_TCP_CONN_NB"))
    MPINOTIFY_TRY(modify("CONN_NB", "y"));
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
  params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP;
  params.mt_workers_shared = 1;
  const ucs_status_t made = ucp_init(&params, config, &context_);
  ucp_config_release(config);
  MPINOTIFY_TRY(ucs_result(made, "ucp_init"));
  counter_pool_ = std::make_unique<CounterPool>(context_);
  MPINOTIFY_TRY(open_key_table());

  int level = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&level);
  ucp_worker_params_t issuing{};
  issuing.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  issuing.thread_mode = level == MPI_THREAD_MULTIPLE     ? UCS_THREAD_MODE_MULTI
                        : level == MPI_THREAD_SERIALIZED ? UCS_THREAD_MODE_SERIALIZED
                                                         : UCS_THREAD_MODE_SINGLE;
  issuing_threads_ = level == MPI_THREAD_MULTIPLE;
  MPINOTIFY_TRY(ucs_result(ucp_worker_create(context_, &issuing, &worker_), "ucp_worker_create"));
  ucp_worker_params_t serving{};
  serving.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE | UCP_WORKER_PARAM_FIELD_EVENTS;
  serving.thread_mode = UCS_THREAD_MODE_SERIALIZED;  // serving_mutex_
  serving.events = UCP_WAKEUP_RMA | UCP_WAKEUP_AMO | UCP_WAKEUP_RX;
  MPINOTIFY_TRY(ucs_result(ucp_worker_create(context_, &serving, &serving_), "ucp_worker_create"));
  if (ucp_worker_get_efd(serving_, &serving_fd_) != UCS_OK) serving_fd_ = -1;
  stop_fd_ = eventfd(0, EFD_CLOEXEC);
  if (stop_fd_ < 0) return error(Errc::other, "eventfd for the UCX progress thread failed");
  progress_thread_ = std::thread([this] { progress_loop(); });
  return {};
}

void Context::progress_loop() {
  while (!stopping_.load(std::memory_order_acquire)) {
    // Sleep until the worker has something (or, where a transport cannot
    // wake us, poll every millisecond); while callers progress it, just
    // check every millisecond that they still do.
    int timeout_ms = 1;
    if (serving_by_caller_.exchange(false, std::memory_order_relaxed)) {
      pollfd stop = {stop_fd_, POLLIN, 0};
      poll(&stop, 1, timeout_ms);
      continue;
    }
    {
      std::lock_guard guard(serving_mutex_);
      while (ucp_worker_progress(serving_) != 0) {
      }
      if (serving_fd_ >= 0) {
        const ucs_status_t armed = ucp_worker_arm(serving_);
        if (armed == UCS_ERR_BUSY) continue;
        if (armed == UCS_OK) timeout_ms = 100;
      }
    }
    pollfd fds[2] = {{stop_fd_, POLLIN, 0}, {serving_fd_, POLLIN, 0}};
    poll(fds, serving_fd_ >= 0 ? 2 : 1, timeout_ms);
  }
}

Status Context::open_key_table() {
  key_table_ = std::make_unique<LocalMemory>();
  MPINOTIFY_TRY(map_memory(context_, nullptr, kKeyTableSlots * sizeof(KeySlot), true, *key_table_));
  std::memset(key_table_->base, 0, key_table_->bytes);
  key_table_rkey_ = packed_key(context_, *key_table_);
  // Without a key peers cannot read the table: every window then gathers.
  key_slots_ = std::make_unique<KeySlots>(static_cast<KeySlot *>(key_table_->base),
                                          key_table_rkey_.empty() ? 0 : kKeyTableSlots);
  return {};
}

Context::~Context() {
  stopping_.store(true, std::memory_order_release);
  if (stop_fd_ >= 0) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t written = write(stop_fd_, &one, sizeof one);
  }
  if (progress_thread_.joinable()) progress_thread_.join();
  // Close without a handshake: the peers are finalizing too.
  endpoints_.clear([this](Reached &peer) {
    if (peer.key_table != nullptr) ucp_rkey_destroy(peer.key_table);
    close_endpoint(peer.ep);
  });
  if (worker_ != nullptr) ucp_worker_destroy(worker_);
  if (serving_ != nullptr) ucp_worker_destroy(serving_);
  counter_pool_.reset();
  key_slots_.reset();
  if (key_table_ && key_table_->handle != nullptr) ucp_mem_unmap(context_, key_table_->handle);
  if (context_ != nullptr) ucp_cleanup(context_);
  parked_.clear();  // nothing can complete into them any more
  if (stop_fd_ >= 0) close(stop_fd_);
}

void Context::close_endpoint(ucp_ep_h ep) {
  // Forced: completes locally, whatever became of the peer.
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  param.flags = UCP_EP_CLOSE_FLAG_FORCE;
  ucs_status_ptr_t request = ucp_ep_close_nbx(ep, &param);
  if (UCS_PTR_IS_PTR(request)) {
    while (ucp_request_check_status(request) == UCS_INPROGRESS) ucp_worker_progress(worker_);
    ucp_request_free(request);
  }
}

Status Context::wait(ucs_status_ptr_t request, const char *what, int peer, PeerDeadline *shared) {
  if (request == nullptr) return {};
  if (UCS_PTR_IS_ERR(request)) return ucs_result(UCS_PTR_STATUS(request), what);
  ucs_status_t status = UCS_INPROGRESS;
  PeerDeadline own;
  PeerDeadline &deadline = shared != nullptr ? *shared : own;
  // Both workers: the request may need this process's own serving worker
  // (an operation on its own memory over a transport that emulates it).
  if (!progress_until(
          deadline, [&] { return (status = ucp_request_check_status(request)) != UCS_INPROGRESS; },
          [this] { progress(); })) {
    ucp_request_free(request);  // UCX releases it if it ever completes
    return error(Errc::other, timed_out_message(what, peer, deadline.seconds()));
  }
  ucp_request_free(request);
  return ucs_result(status, what);
}

Status Context::addresses(MPI_Comm comm, bool known_by_all, std::shared_ptr<const Addresses> &out) {
  return groups_.get(
      comm, known_by_all,
      [this](std::string &mine) -> Status {
        ucp_address_t *address = nullptr;
        std::size_t length = 0;
        MPINOTIFY_TRY(ucs_result(ucp_worker_get_address(serving_, &address, &length),
                                 "ucp_worker_get_address"));
        const AddressHeader header{static_cast<std::uint32_t>(length),
                                   static_cast<std::uint32_t>(key_table_rkey_.size()),
                                   reinterpret_cast<std::uint64_t>(key_table_->base)};
        mine.assign(reinterpret_cast<const char *>(&header), sizeof header);
        mine.append(reinterpret_cast<const char *>(address), length);
        mine += key_table_rkey_;
        ucp_worker_release_address(serving_, address);
        return {};
      },
      out);
}

Status Context::reach(const std::string &address, int peer, Reached &out, PeerDeadline *deadline) {
  AddressHeader header{};
  if (address.size() < sizeof header)
    return error(Errc::intern, "ucx: a short address for rank " + std::to_string(peer));
  std::memcpy(&header, address.data(), sizeof header);
  if (address.size() != sizeof header + header.worker_bytes + header.key_table_rkey_bytes)
    return error(Errc::intern, "ucx: a malformed address for rank " + std::to_string(peer));
  return endpoints_.get(
      address,
      [&](Reached &made) -> Status {
        ucp_ep_h &ep = made.ep;
        ucp_ep_params_t params{};
        params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
        params.address = reinterpret_cast<const ucp_address_t *>(address.data() + sizeof header);
        MPINOTIFY_TRY(ucs_result(ucp_ep_create(worker_, &params, &ep),
                                 ("ucp_ep_create for rank " + std::to_string(peer)).c_str()));
        // A new endpoint is only known to work once a flush over it
        // completed (UCX connects and exchanges wire-up messages lazily,
        // and keys unpacked before that may miss the transports wire-up
        // picks): a peer that cannot be reached fails here, within the
        // deadline.
        ucp_request_param_t param{};
        const Status reached =
            wait(ucp_ep_flush_nbx(ep, &param), "connecting (ucp_ep_flush_nbx)", peer, deadline);
        if (!reached.ok()) {
          close_endpoint(ep);  // forgotten, so that the next use tries again
          return reached;
        }
        made.key_table_base = header.key_table_base;
        if (header.key_table_rkey_bytes == 0) return {};
        const Status unpacked =
            ucs_result(ucp_ep_rkey_unpack(ep, address.data() + sizeof header + header.worker_bytes,
                                          &made.key_table),
                       "ucp_ep_rkey_unpack (key table)");
        if (!unpacked.ok()) close_endpoint(ep);
        return unpacked;
      },
      out);
}

Status Context::read_key_slot(const Reached &peer, int rank, std::size_t slot, KeySlot &out,
                              PeerDeadline *deadline) {
  if (peer.key_table == nullptr) return error(Errc::intern, "ucx: no key table for this peer");
  return read(
      &out, sizeof out, "ucp_get_nbx (key table)", rank,
      [&](void *landing) {
        ucp_request_param_t param{};
        return ucp_get_nbx(peer.ep, landing, sizeof out,
                           peer.key_table_base + slot * sizeof(KeySlot), peer.key_table, &param);
      },
      deadline);
}

}  // namespace mpinotify::ucx
