// sm notified operations: load/store where the target's memory is mapped
// here, the host's RMA otherwise, and a CPU atomic for the counter.
#include <cstdint>
#include <cstring>

#include "osc_base/host_rma.hpp"
#include "osc_core/datatype.hpp"
#include "osc_core/progress.hpp"
#include "sm_module.hpp"

namespace mpinotify::sm {
namespace {

// memmove for a put's bytes, inline up to 16: the call into libc and its
// size dispatch were on every small one-way message's path (with the
// out-of-line increment, 3 ns of it: docs/performance.md). All loads come
// before any store, so overlapping ranges copy as memmove copies them.
template <class Word>
void copy_two_words(char *to, const char *from, std::size_t bytes) {
  Word head;
  Word tail;
  std::memcpy(&head, from, sizeof(Word));
  std::memcpy(&tail, from + bytes - sizeof(Word), sizeof(Word));
  std::memcpy(to, &head, sizeof(Word));
  std::memcpy(to + bytes - sizeof(Word), &tail, sizeof(Word));
}

void copy_bytes(char *to, const char *from, std::size_t bytes) {
  if (bytes > 16) {
    std::memmove(to, from, bytes);
  } else if (bytes >= 8) {
    copy_two_words<std::uint64_t>(to, from, bytes);
  } else if (bytes >= 4) {
    copy_two_words<std::uint32_t>(to, from, bytes);
  } else if (bytes >= 2) {
    copy_two_words<std::uint16_t>(to, from, bytes);
  } else if (bytes == 1) {
    *to = *from;
  }
}

}  // namespace

Status SmModule::notify(const NotifyOp &op, MPI_Request *request) {
  const int target = op.target_rank;
  const EpochMode mode = op.mode;
  // Load/store completes here and now, whatever the epoch.
  bool increment_now = false;
  MPINOTIFY_TRY(memory_.copy(op, window_.comm(), increment_now));
  if (!increment_now) MPINOTIFY_TRY(host_data_part(op, window_, mode, deferred_, increment_now));
  if (!increment_now) return {};  // owed to the end of the epoch
  if (request == nullptr) {
    // Visible at the latest when the operation completes: the next flush,
    // unlock or epoch end publishes it.
    count_blocking(target, op.idx);
    return {};
  }
  // The increment is in the target's memory already: the request is done.
  increment(target, op.idx, 1);
  return mpinotify::progress().completed_request(request);
}

bool SmModule::put_contiguous(int target, MPI_Aint disp, const void *origin, std::size_t bytes,
                              int idx, Status & /*status: stores do not fail*/) {
  if (memory_.empty()) return false;
  // A zero-byte put may name any displacement: nothing to address.
  if (bytes > 0) copy_bytes(memory_.at(target, disp), static_cast<const char *>(origin), bytes);
  count_blocking(target, idx);
  return true;
}

Status SmModule::after_sync(const SyncCall &call) {
  // Only epoch ends matter: increments owed by host-moved data. Stores to
  // shared memory need no flush.
  return deferred_.settle_epoch_end(
      call,
      [this](int target, int idx, const std::int64_t *amount) {
        increment(target, idx, *amount);
        return Status{};
      },
      [] { return Status{}; });
}

}  // namespace mpinotify::sm
