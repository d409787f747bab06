#include "progress.hpp"

namespace mpinotify {
namespace {

// Lives from MPI_Grequest_start until MPI frees the request (free_fn).
struct RequestState {
  std::atomic<bool> cancelled{false};
};

int query_request(void *extra_state, MPI_Status *status) {
  const auto *state = static_cast<RequestState *>(extra_state);
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, state->cancelled.load() ? 1 : 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int free_request(void *extra_state) {
  delete static_cast<RequestState *>(extra_state);
  return MPI_SUCCESS;
}

int cancel_request(void *extra_state, int complete) {
  // Pending work is completed as cancelled by the next poll (MPI_Wait on a
  // cancelled request polls until then).
  if (complete == 0) static_cast<RequestState *>(extra_state)->cancelled.store(true);
  return MPI_SUCCESS;
}

Status start_request(RequestState *&state, MPI_Request *out) {
  state = new RequestState;
  const int rc = PMPI_Grequest_start(query_request, free_request, cancel_request, state, out);
  if (rc != MPI_SUCCESS) {
    delete state;
    state = nullptr;
  }
  return host_status(rc, "MPI_Grequest_start");
}

}  // namespace

struct Progress::Entry {
  MPI_Request request;
  RequestState *state;
  std::unique_ptr<PendingWork> work;
};

Status Progress::completed_request(MPI_Request *out) {
  RequestState *state = nullptr;
  MPI_Request request = MPI_REQUEST_NULL;
  MPINOTIFY_TRY(start_request(state, &request));
  MPINOTIFY_TRY(host_status(PMPI_Grequest_complete(request), "MPI_Grequest_complete"));
  *out = request;
  return {};
}

Status Progress::pending_request(std::unique_ptr<PendingWork> work, MPI_Request *out) {
  if (work->poll()) return completed_request(out);
  RequestState *state = nullptr;
  MPI_Request request = MPI_REQUEST_NULL;
  MPINOTIFY_TRY(start_request(state, &request));
  {
    std::lock_guard guard(mutex_);
    entries_.push_back(std::make_unique<Entry>(Entry{request, state, std::move(work)}));
    pending_.fetch_add(1, std::memory_order_acq_rel);
  }
  *out = request;
  return {};
}

void Progress::poll() {
  std::unique_lock guard(mutex_, std::try_to_lock);
  if (!guard.owns_lock()) return;
  for (std::size_t i = 0; i < entries_.size();) {
    Entry &entry = *entries_[i];
    if (entry.state->cancelled.load() || entry.work->poll()) {
      // After MPI_Grequest_complete the state may already be freed.
      PMPI_Grequest_complete(entry.request);
      entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
      pending_.fetch_sub(1, std::memory_order_acq_rel);
    } else {
      ++i;
    }
  }
}

void Progress::complete_matching(bool (*match)(const Entry &, const Window *),
                                 const Window *window) {
  std::lock_guard guard(mutex_);
  for (std::size_t i = 0; i < entries_.size();) {
    Entry &entry = *entries_[i];
    if (match(entry, window)) {
      entry.state->cancelled.store(true);
      PMPI_Grequest_complete(entry.request);
      entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
      pending_.fetch_sub(1, std::memory_order_acq_rel);
    } else {
      ++i;
    }
  }
}

void Progress::cancel_window(const Window *window) {
  complete_matching([](const Entry &e, const Window *w) { return e.work->window() == w; }, window);
}

void Progress::cancel_all() {
  complete_matching([](const Entry &, const Window *) { return true; }, nullptr);
}

Progress &progress() {
  static Progress engine;
  return engine;
}

}  // namespace mpinotify
