// ofi notified operations: fi_writedata, or the data then a notification.
#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>

#include <algorithm>

#include "ofi_module.hpp"
#include "osc_base/host_rma.hpp"
#include "osc_base/type_layout.hpp"
#include "osc_core/datatype.hpp"
#include "osc_core/progress.hpp"

namespace mpinotify::ofi {
namespace {

// Completes once every operation issued before it did (data and
// notification delivered), or fails when the peer deadline passes first
// (MPI_Wait then returns MPI_ERR_OTHER).
class CompletionWork final : public PendingWork {
 public:
  CompletionWork(Context &context, std::uint64_t ticket, int target)
      : context_(context), ticket_(ticket), target_(target) {}
  bool poll() override {
    if (ended_) return true;
    context_.progress();
    if (!context_.done(ticket_, outcome_)) {
      if (!deadline_.passed_after_round()) return false;
      context_.abandon(ticket_);
      outcome_ = error(Errc::other, timed_out_message("a notified operation over libfabric",
                                                      target_, deadline_.seconds()));
    }
    ended_ = true;
    return true;
  }
  Status outcome() const override { return outcome_; }

 private:
  Context &context_;
  std::uint64_t ticket_;
  int target_;
  PeerDeadline deadline_;
  Status outcome_;
  bool ended_ = false;  // outcome_ is final
};

// Calls move(local_offset, target_offset, length) for the pieces of op's
// target buffer (`pieces` null: one contiguous piece at `lower`), each cut
// to at most `max_message` bytes.
template <class Move>
Status for_each_transfer(const TypeLayout *pieces, const NotifyOp &op, MPI_Count lower,
                         MPI_Count bytes, std::size_t max_message, Move move) {
  // (0: a provider that states no limit.)
  const auto most = static_cast<MPI_Count>(
      max_message == 0 ? std::size_t{1} << 30 : std::min<std::size_t>(max_message, 1ULL << 30));
  auto cut = [&](MPI_Count from, MPI_Count to, MPI_Count length) -> Status {
    for (MPI_Count done = 0; done < length; done += most)
      MPINOTIFY_TRY(move(from + done, to + done, std::min(most, length - done)));
    return {};
  };
  if (pieces == nullptr) return cut(0, lower, bytes);
  return for_each_piece(*pieces, op.target_count, cut);
}

}  // namespace

Status OfiModule::notify_target(int target, int idx, const std::int64_t *amount_owed) {
  const Peer *found = nullptr;
  MPINOTIFY_TRY(target_peer(target, found));
  const Peer &peer = *found;
  const fi_addr_t addr = peer.addr;
  owed_.note(target);  // a flush waits for whatever part went out
  if (atomic_path()) {
    return context_.issue("fi_atomic (notification)", target, [&](void *context) {
      return fi_atomic(
          context_.endpoint(), amount_owed, 1, nullptr, addr,
          peer.counter_address + static_cast<std::uint64_t>(idx) * sizeof(std::int64_t),
          peer.counter_key, FI_INT64, FI_SUM, context);
    });
  }
  std::int64_t amount = *amount_owed;
  while (amount > 0) {
    const std::int64_t part = std::min(amount, kMaxAmount);
    MPINOTIFY_TRY(context_.issue("fi_writedata (notification)", target, [&](void *context) {
      return fi_writedata(context_.endpoint(), context_.sink_source(), sizeof(std::uint64_t),
                          nullptr, encode_notification(peer.window_key, part, idx), addr,
                          peer.sink.address, peer.sink.key, context);
    }));
    amount -= part;
  }
  return {};
}

Status OfiModule::move_data(const NotifyOp &op, bool &done, bool &notified) {
  done = false;
  notified = false;
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
  // Before any lock: reaching a new target may wait for the peer deadline.
  const Peer *found = nullptr;
  MPINOTIFY_TRY(target_peer(op.target_rank, found));
  const Peer &peer = *found;
  const fi_addr_t addr = peer.addr;
  // Where the target buffer starts, as the provider names it, and its key.
  std::uint64_t start = 0;
  std::uint64_t key = 0;
  // A dynamic window's peer keys stay valid while the operations are issued.
  std::unique_lock<std::mutex> dynamic_lock;
  if (window_.flavor() == Flavor::dynamic) {
    dynamic_lock = std::unique_lock(dynamic_mutex_);
    // target_disp is an address there.
    const auto address = static_cast<std::uint64_t>(op.target_disp);
    const ByteSpan span = op.target_shape.span(op.target_count);
    const PeerRegion *region =
        dynamic_region(op.target_rank, address + static_cast<std::uint64_t>(span.lo),
                       static_cast<std::uint64_t>(span.hi - span.lo));
    if (region == nullptr) return {};  // not listed: through the host
    // (Without virtual addressing, an offset into the registration; the
    // sum with the pieces' offsets wraps back into it.)
    start = context_.facts().virtual_addresses ? address : address - region->base;
    key = region->key;
  } else {
    if (!peer.has_memory) return {};
    const auto unit = static_cast<std::uint64_t>(window_.span(op.target_rank).disp_unit);
    start = peer.memory_address + static_cast<std::uint64_t>(op.target_disp) * unit;
    key = peer.memory_key;
  }
  const MPI_Count lower = op.target_shape.true_lb;
  const std::size_t most = context_.facts().max_message;
  fid_ep *ep = context_.endpoint();
  if (put) {
    const char *source = static_cast<const char *>(op.origin_addr) + local.true_lb;
    // Held from packing until the operations are posted: a completion wait
    // of another thread frees bounce buffers only when nothing is in flight.
    std::unique_lock<std::mutex> bounce_lock;
    if (!local.contiguous()) {
      // Packed into a buffer that lives until the next completion wait.
      std::vector<char> packed(static_cast<std::size_t>(bytes));
      bool copied = false;
      MPINOTIFY_TRY(local_copy(op.origin_addr, op.origin_count, op.origin_type, local,
                               packed.data(), bytes, MPI_BYTE, byte_shape(), window_.comm(),
                               copied));
      if (!copied) return {};
      bounce_lock = std::unique_lock(bounce_mutex_);
      source = bounce_.emplace_back(std::move(packed)).data();
    }
    if (pieces == nullptr && static_cast<std::size_t>(bytes) <= most && !atomic_path()) {
      // The common case: data and notification in one message.
      const std::uint64_t data = encode_notification(peer.window_key, 1, op.idx);
      MPINOTIFY_TRY(context_.issue("fi_writedata", op.target_rank, [&](void *context) {
        return fi_writedata(ep, source, static_cast<std::size_t>(bytes), nullptr, data, addr,
                            start + static_cast<std::uint64_t>(lower), key, context);
      }));
      owed_.note(op.target_rank);
      done = true;
      notified = true;
      return {};
    }
    MPINOTIFY_TRY(for_each_transfer(
        pieces, op, lower, bytes, most, [&](MPI_Count from, MPI_Count to, MPI_Count length) {
          return context_.issue("fi_write", op.target_rank, [&](void *context) {
            return fi_write(ep, source + from, static_cast<std::size_t>(length), nullptr, addr,
                            start + static_cast<std::uint64_t>(to), key, context);
          });
        }));
    if (bounce_lock.owns_lock()) bounce_lock.unlock();
    // Pieces may land in any order, and nothing orders a write before an
    // atomic: all of them before the notification.
    MPINOTIFY_TRY(complete_all());
    done = true;
    return {};
  }
  // A get: the read is over at the target before the notification goes.
  std::vector<char> staging;
  char *into = static_cast<char *>(op.result_addr) + local.true_lb;
  if (!local.contiguous()) {
    staging.resize(static_cast<std::size_t>(bytes));
    into = staging.data();
  }
  MPINOTIFY_TRY(context_.read(
      into, static_cast<std::size_t>(bytes), "fi_read", op.target_rank, [&](std::byte *landing) {
        return for_each_transfer(
            pieces, op, lower, bytes, most, [&](MPI_Count to, MPI_Count from, MPI_Count length) {
              return context_.issue("fi_read", op.target_rank, [&](void *context) {
                return fi_read(ep, landing + to, static_cast<std::size_t>(length), nullptr, addr,
                               start + static_cast<std::uint64_t>(from), key, context);
              });
            });
      }));
  if (!staging.empty()) {
    bool copied = false;
    MPINOTIFY_TRY(local_copy(staging.data(), bytes, MPI_BYTE, byte_shape(), op.result_addr,
                             op.result_count, op.result_type, local, window_.comm(), copied));
    if (!copied) return error(Errc::intern, "unpacking a get's data failed");
  }
  done = true;
  return {};
}

Status OfiModule::notify(const NotifyOp &op, MPI_Request *request) {
  const int target = op.target_rank;
  bool notify_now = false;
  bool notified = false;
  MPINOTIFY_TRY(move_data(op, notify_now, notified));
  if (!notify_now) MPINOTIFY_TRY(host_data_part(op, window_, op.mode, deferred_, notify_now));
  if (!notify_now) return {};  // owed to the end of the epoch
  static constexpr std::int64_t kOne = 1;
  if (!notified) MPINOTIFY_TRY(notify_target(target, op.idx, &kOne));
  if (request == nullptr) return {};
  // The request completes once data and notification were delivered.
  const std::uint64_t ticket = context_.seal();
  Status failure;
  if (context_.done(ticket, failure)) {
    MPINOTIFY_TRY(failure);
    return mpinotify::progress().completed_request(request);
  }
  return mpinotify::progress().pending_request(
      std::make_unique<CompletionWork>(context_, ticket, target), request);
}

Status OfiModule::complete_all() {
  MPINOTIFY_TRY(context_.complete_all("completing libfabric operations"));
  // Only when nothing is in flight (another thread's operations may read
  // a buffer; bounce_mutex_ covers those about to be posted).
  std::lock_guard guard(bounce_mutex_);
  if (!bounce_.empty() && context_.idle()) bounce_.clear();
  return {};
}

Status OfiModule::before_sync(const SyncCall &call) {
  // The backend's operations complete before the host's call; where it
  // owes a target nothing, the call is the host's alone.
  switch (call.kind) {
    case SyncKind::flush:
    case SyncKind::flush_local:
    case SyncKind::unlock: return owed_.take(call.rank) ? complete_all() : Status{};
    case SyncKind::flush_all:
    case SyncKind::flush_local_all:
    case SyncKind::unlock_all:
    case SyncKind::fence:
    case SyncKind::complete: return owed_.take_all() ? complete_all() : Status{};
    default: return {};
  }
}

Status OfiModule::after_sync(const SyncCall &call) {
  // Epoch ends: notifications owed by data the host moved.
  return deferred_.settle_epoch_end(
      call,
      [this](int target, int idx, const std::int64_t *amount) {
        return notify_target(target, idx, amount);
      },
      [this] { return complete_all(); });
}

}  // namespace mpinotify::ofi
