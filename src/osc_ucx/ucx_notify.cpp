// ucx notified operations: UCP put/get, a fence or flush, a UCP atomic add.
#include <atomic>

#include "osc_base/host_rma.hpp"
#include "osc_base/peer_deadline.hpp"
#include "osc_base/type_layout.hpp"
#include "osc_core/datatype.hpp"
#include "osc_core/progress.hpp"
#include "ucx_module.hpp"

namespace mpinotify::ucx {
namespace {

const std::int64_t kOne = 1;

// Request parameters made once: filling them per call showed in profiles.
const ucp_request_param_t kPlain{};  // puts and gets: nothing asked
const ucp_request_param_t kAddParam = [] {
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
  param.datatype = ucp_dt_make_contig(sizeof(std::int64_t));
  return param;
}();

// Releases a request whose completion a later flush will see.
Status let_go(ucs_status_ptr_t request, const char *what) {
  if (UCS_PTR_IS_ERR(request)) return ucs_result(UCS_PTR_STATUS(request), what);
  if (request != nullptr) ucp_request_free(request);
  return {};
}

// Completes when a UCP flush that covers a notified operation's add has,
// or fails when the peer deadline passes first (MPI_Wait then returns
// MPI_ERR_OTHER).
class FlushWork final : public PendingWork {
 public:
  FlushWork(Context &context, ucs_status_ptr_t request, int target)
      : context_(context), request_(request), target_(target) {}
  ~FlushWork() override {
    if (request_ != nullptr) ucp_request_free(request_);
  }
  bool poll() override {
    if (request_ == nullptr) return true;  // ended, with outcome_
    context_.progress();
    const ucs_status_t status = ucp_request_check_status(request_);
    if (status == UCS_INPROGRESS) {
      if (!deadline_.passed_after_round()) return false;
      outcome_ =
          error(Errc::other, timed_out_message("ucp_ep_flush_nbx", target_, deadline_.seconds()));
    } else {
      outcome_ = ucs_result(status, "ucp_ep_flush_nbx");
    }
    ucp_request_free(request_);  // UCX releases it if it ever completes
    request_ = nullptr;
    return true;
  }
  Status outcome() const override { return outcome_; }

 private:
  Context &context_;
  ucs_status_ptr_t request_;
  int target_;
  PeerDeadline deadline_;
  Status outcome_;
};

}  // namespace

Status UcxModule::post_add(int target, ucp_ep_h ep, std::uint64_t address, ucp_rkey_h rkey,
                           const std::int64_t *amount) {
  MPINOTIFY_TRY(
      let_go(ucp_atomic_op_nbx(ep, UCP_ATOMIC_OP_ADD, amount, 1, address, rkey, &kAddParam),
             "ucp_atomic_op_nbx (add)"));
  owed_.note(target);
  return {};
}

Status UcxModule::add(int target, int idx, const std::int64_t *amount) {
  const Peer *to = nullptr;
  MPINOTIFY_TRY(peer(target, to));
  // Every notification ends here: this covers its data movement too.
  context_.note_issued();
  return post_add(target, to->ep,
                  to->counters.base + static_cast<std::uint64_t>(idx) * sizeof(std::int64_t),
                  to->counters.rkey, amount);
}

inline bool UcxModule::locate(const NotifyOp &op, const Peer &peer, ByteSpan span,
                              TargetBytes &out) {
  if (window_.flavor() == Flavor::dynamic) {
    // target_disp is an address there.
    const auto start = static_cast<std::uint64_t>(op.target_disp);
    const PeerRegion *region =
        dynamic_region(op.target_rank, start + static_cast<std::uint64_t>(span.lo),
                       static_cast<std::uint64_t>(span.hi - span.lo));
    if (region == nullptr) return false;
    out = {start, region->rkey, region->mapped == peer.counters.mapped};
    return true;
  }
  if (peer.memory.rkey == nullptr) return false;
  const auto unit = static_cast<std::uint64_t>(window_.span(op.target_rank).disp_unit);
  out = {peer.memory.base + static_cast<std::uint64_t>(op.target_disp) * unit, peer.memory.rkey,
         peer.fence_orders};
  return true;
}

Status UcxModule::move_data(const NotifyOp &op, bool &done, Ordering &order) {
  done = false;
  order = Ordering::none;
  if (op.kind != OpKind::put && op.kind != OpKind::get) return {};
  const TypeLayout *pieces = nullptr;
  bool usable = false;
  MPINOTIFY_TRY(target_pieces(op, pieces, usable));
  if (!usable) return {};
  const MPI_Count bytes = op.target_shape.size * op.target_count;
  const bool put = op.kind == OpKind::put;
  const MPI_Count local_count = put ? op.origin_count : op.result_count;
  const TypeShape &local = put ? op.origin_shape : op.result_shape;
  if (local.size * local_count != bytes)
    return error(Errc::type, "origin and target describe different amounts of data");
  if (bytes == 0) {
    done = true;
    return {};
  }
  const Peer *target = nullptr;
  MPINOTIFY_TRY(peer(op.target_rank, target));
  if (target->by_load_store) {
    MPINOTIFY_TRY(shared_.copy(op, window_.comm(), done));
    if (done) {
      // The copy is over: the add, whichever way UCX sends it, comes after.
      std::atomic_thread_fence(std::memory_order_release);
      return {};
    }
  }
  // A dynamic window's peer keys stay valid while the operation is issued.
  std::unique_lock<std::mutex> dynamic_lock;
  if (window_.flavor() == Flavor::dynamic) dynamic_lock = std::unique_lock(dynamic_mutex_);
  TargetBytes where;
  if (!locate(op, *target, op.target_shape.span(op.target_count), where)) return {};
  ucp_ep_h ep = target->ep;
  ucp_rkey_h rkey = where.rkey;
  const MPI_Count lower = op.target_shape.true_lb;
  if (put) {
    const char *source = static_cast<const char *>(op.origin_addr) + local.true_lb;
    if (!local.contiguous()) {
      // Packed into a buffer that lives until the next flush completes it.
      std::vector<char> packed(static_cast<std::size_t>(bytes));
      bool copied = false;
      MPINOTIFY_TRY(local_copy(op.origin_addr, op.origin_count, op.origin_type, local,
                               packed.data(), bytes, MPI_BYTE, byte_shape(), window_.comm(),
                               copied));
      if (!copied) return {};
      std::lock_guard guard(bounce_mutex_);
      source = bounce_.emplace_back(std::move(packed)).data();
    }
    auto put_piece = [&](MPI_Count from, MPI_Count to, MPI_Count length) {
      return let_go(ucp_put_nbx(ep, source + from, static_cast<std::size_t>(length),
                                where.address + static_cast<std::uint64_t>(to), rkey, &kPlain),
                    "ucp_put_nbx");
    };
    MPINOTIFY_TRY(pieces == nullptr ? put_piece(0, lower, bytes)
                                    : for_each_piece(*pieces, op.target_count, put_piece));
    owed_.note(op.target_rank);
    done = true;
    // The add lands after the put: no round trip, where a fence orders
    // them; a flush where it does not. A dynamic window's regions differ
    // in that, so its puts are flushed here rather than when published.
    if (where.fence_orders) {
      order = Ordering::fence;
      return {};
    }
    if (window_.flavor() == Flavor::dynamic || target->by_load_store)
      return flush_target(op.target_rank);
    order = Ordering::flush;
    return {};
  }
  // A get: the read must be over at the target before its count moves.
  std::vector<char> landing;
  char *into = static_cast<char *>(op.result_addr) + local.true_lb;
  if (!local.contiguous()) {
    landing.resize(static_cast<std::size_t>(bytes));
    into = landing.data();
  }
  auto get_piece = [&](MPI_Count to, MPI_Count from, MPI_Count length) {
    return let_go(ucp_get_nbx(ep, into + to, static_cast<std::size_t>(length),
                              where.address + static_cast<std::uint64_t>(from), rkey, &kPlain),
                  "ucp_get_nbx");
  };
  MPINOTIFY_TRY(pieces == nullptr ? get_piece(0, lower, bytes)
                                  : for_each_piece(*pieces, op.target_count, get_piece));
  MPINOTIFY_TRY(flush_target(op.target_rank));
  if (!landing.empty()) {
    bool copied = false;
    MPINOTIFY_TRY(local_copy(landing.data(), bytes, MPI_BYTE, byte_shape(), op.result_addr,
                             op.result_count, op.result_type, local, window_.comm(), copied));
    if (!copied) return error(Errc::intern, "unpacking a get's data failed");
  }
  done = true;
  return {};
}

Status UcxModule::notify(const NotifyOp &op, MPI_Request *request) {
  const int target = op.target_rank;
  const EpochMode mode = op.mode;
  bool add_now = false;
  Ordering order = Ordering::none;
  MPINOTIFY_TRY(move_data(op, add_now, order));
  if (!add_now) MPINOTIFY_TRY(host_data_part(op, window_, mode, deferred_, add_now));
  if (!add_now) return {};  // owed to the end of the epoch
  // A blocking form's add waits for the next synchronisation call or
  // counter poll, with the others to the same counter, unless it is the
  // first since the last of those: a lone put (a ping-pong) goes out whole
  // at once, a burst sends its first add now and the rest as one.
  if (request == nullptr) {
    if (!burst_.load(std::memory_order_relaxed))
      burst_.store(true, std::memory_order_relaxed);
    else if (pending_.add(target, op.idx))
      return {};
  }
  MPINOTIFY_TRY(order_now(target, order));
  MPINOTIFY_TRY(add(target, op.idx, &kOne));
  if (request == nullptr) return {};
  // The request rides a flush that covers the add: once it completes, the
  // target sees the increment without this process doing anything more.
  ucp_ep_h ep = nullptr;
  MPINOTIFY_TRY(endpoint(target, ep));
  ucp_request_param_t param{};
  const ucs_status_ptr_t flush = ucp_ep_flush_nbx(ep, &param);
  if (UCS_PTR_IS_ERR(flush)) return ucs_result(UCS_PTR_STATUS(flush), "ucp_ep_flush_nbx");
  if (flush == nullptr) return mpinotify::progress().completed_request(request);
  return mpinotify::progress().pending_request(std::make_unique<FlushWork>(context_, flush, target),
                                               request);
}

bool UcxModule::put_contiguous(int target, MPI_Aint disp, const void *origin, std::size_t bytes,
                               int idx, Status &status) {
  NotifyOp op;
  op.kind = OpKind::put;
  op.origin_addr = origin;
  op.origin_count = op.target_count = static_cast<MPI_Count>(bytes);
  op.origin_type = op.target_type = MPI_BYTE;
  op.origin_shape = op.target_shape = byte_shape();
  op.target_rank = target;
  op.target_disp = disp;
  op.idx = idx;
  op.mode = EpochMode::passive;
  status = notify(op, nullptr);
  return true;
}

Status UcxModule::flush_target(int target) {
  const Peer *known = peers_.find(target);
  if (known == nullptr) return {};
  ucp_request_param_t param{};
  return context_.wait(ucp_ep_flush_nbx(known->ep, &param), "ucp_ep_flush_nbx", target);
}

Status UcxModule::order_now(int target, Ordering order) {
  switch (order) {
    case Ordering::fence:
      return ucs_result(ucp_worker_fence(context_.worker()), "ucp_worker_fence");
    case Ordering::flush: return flush_target(target);
    case Ordering::none: break;
  }
  return {};
}

Status UcxModule::publish() {
  if (burst_.load(std::memory_order_relaxed)) burst_.store(false, std::memory_order_relaxed);
  if (!pending_.any()) return {};
  std::lock_guard guard(publish_mutex_);
  return publish_locked();
}

Status UcxModule::publish_locked() {
  struct Owed {
    int target;
    int idx;
    std::int64_t amount;
  };
  std::array<Owed, PendingIncrements::kSlots> owed{};
  std::size_t count = 0;
  bool flush_first = false;
  pending_.drain([&](int target, int idx, std::int64_t amount) {
    owed[count++] = {target, idx, amount};
    flush_first = flush_first || needs_flush(target);
  });
  if (count == 0) return {};
  // Every gathered put before any of the adds.
  if (flush_first || amounts_used_ + count > amounts_.size()) {
    MPINOTIFY_TRY(complete_all());
  } else {
    MPINOTIFY_TRY(ucs_result(ucp_worker_fence(context_.worker()), "ucp_worker_fence"));
  }
  for (std::size_t i = 0; i < count; ++i) {
    const Owed &o = owed[i];
    const std::int64_t *amount = &kOne;
    if (o.amount != 1) {
      amounts_[amounts_used_] = o.amount;
      amount = &amounts_[amounts_used_++];
    }
    MPINOTIFY_TRY(add(o.target, o.idx, amount));
  }
  return {};
}

Status UcxModule::flush_all() {
  // A module that reached no one has issued nothing (gathered adds included).
  if (peers_.count() == 0) return {};
  std::lock_guard guard(publish_mutex_);
  MPINOTIFY_TRY(publish_locked());
  return complete_all();
}

Status UcxModule::complete_all() {
  const std::uint64_t issued = context_.issue_count();
  ucp_request_param_t param{};
  // Every endpoint this module used first, all at once: UCX 1.13's worker
  // flush can return while puts it emulates over shared memory (posix,
  // sysv) still wait in a transport's pending queue, to read their source
  // later (seen: a crash in a later call after MPI_Win_flush_all and
  // free() of the buffers, 4 ranks on 2 cores over posix). Endpoint
  // flushes wait for those. Targets never used have nothing to flush.
  struct Flush {
    int target;
    ucs_status_ptr_t request;
  };
  std::vector<Flush> flushes;
  flushes.reserve(peers_.count());
  peers_.for_each([&](int target, const Peer &peer) {
    flushes.push_back({target, ucp_ep_flush_nbx(peer.ep, &param)});
  });
  Status failure;
  for (const Flush &flush : flushes) {
    // Each waited for (and so released) even after one failed.
    Status status = context_.wait(flush.request, "ucp_ep_flush_nbx", flush.target);
    if (failure.ok() && !status.ok()) failure = std::move(status);
  }
  MPINOTIFY_TRY(failure);
  MPINOTIFY_TRY(
      context_.wait(ucp_worker_flush_nbx(context_.worker(), &param), "ucp_worker_flush_nbx"));
  // Every operation issued before is complete only if every endpoint was
  // flushed: the process's others may hold operations of other windows
  // (then counter polls keep progressing the issuing worker until a flush
  // that covers them all).
  if (flushes.size() == context_.endpoint_count()) context_.note_flushed(issued);
  amounts_used_ = 0;
  std::lock_guard guard(bounce_mutex_);
  bounce_.clear();
  return {};
}

Status UcxModule::before_sync(const SyncCall &call) {
  // Every synchronisation call publishes gathered adds (as sm does), and
  // the backend's operations complete before the host's; where it owes a
  // target nothing, the call is the host's alone (no round trip).
  MPINOTIFY_TRY(publish());
  switch (call.kind) {
    case SyncKind::flush:
    case SyncKind::flush_local:
    case SyncKind::unlock: return owed_.take(call.rank) ? flush_target(call.rank) : Status{};
    case SyncKind::flush_all:
    case SyncKind::flush_local_all:
    case SyncKind::unlock_all:
    case SyncKind::fence:
    case SyncKind::complete: return owed_.take_all() ? flush_all() : Status{};
    default: return {};
  }
}

Status UcxModule::after_sync(const SyncCall &call) {
  // Epoch ends: increments owed by data the host moved.
  return deferred_.settle_epoch_end(
      call,
      [this](int target, int idx, const std::int64_t *amount) { return add(target, idx, amount); },
      [this] { return flush_all(); });
}

}  // namespace mpinotify::ucx
