#include "progress.hpp"

#include <cstdio>

#include "params.hpp"

namespace mpinotify {
namespace {

// What a threshold (or other library) request keeps between the progress
// engine and MPI. Both hold it: the engine while the work is pending, MPI
// until it runs free_fn, which MPICH does inside MPI_Request_free even
// before the request completed and Open MPI once it has. Whoever lets go
// last deletes it, so no order of completion, cancellation, freeing the
// handle or freeing the window touches freed memory.
struct RequestState {
  std::atomic<bool> cancelled{false};
  std::atomic<int> holders{2};          // the engine and MPI
  std::atomic<int> error{MPI_SUCCESS};  // the work's failure, set before completion

  void release() {
    if (holders.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
};

int query_request(void *extra_state, MPI_Status *status) {
  const auto *state = static_cast<RequestState *>(extra_state);
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, state->cancelled.load() ? 1 : 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  const int failure = state->error.load();
  status->MPI_ERROR = failure;
  return failure;
}

int free_request(void *extra_state) {
  static_cast<RequestState *>(extra_state)->release();
  return MPI_SUCCESS;
}

int cancel_request(void *extra_state, int complete) {
  // Pending work is completed as cancelled by the next poll (MPI_Wait on a
  // cancelled request polls until then).
  if (complete == 0) static_cast<RequestState *>(extra_state)->cancelled.store(true);
  return MPI_SUCCESS;
}

// The engine's hold on a request's state.
struct Release {
  void operator()(RequestState *state) const { state->release(); }
};
using StateHold = std::unique_ptr<RequestState, Release>;

Status start_request(StateHold &state, MPI_Request *out) {
  auto *made = new RequestState;
  const int rc = PMPI_Grequest_start(query_request, free_request, cancel_request, made, out);
  if (rc != MPI_SUCCESS) {
    delete made;  // MPI never saw it
    return host_status(rc, "MPI_Grequest_start");
  }
  state.reset(made);
  return {};
}

}  // namespace

struct Progress::Entry {
  MPI_Request request;
  StateHold state;
  std::unique_ptr<PendingWork> work;
};

Status Progress::completed_request(MPI_Request *out) {
  StateHold state;
  MPI_Request request = MPI_REQUEST_NULL;
  MPINOTIFY_TRY(start_request(state, &request));
  MPINOTIFY_TRY(host_status(PMPI_Grequest_complete(request), "MPI_Grequest_complete"));
  *out = request;
  return {};
}

Status Progress::pending_request(std::unique_ptr<PendingWork> work, MPI_Request *out) {
  if (work->poll()) {
    MPINOTIFY_TRY(work->outcome());  // failed at once: the call itself fails
    return completed_request(out);
  }
  StateHold state;
  MPI_Request request = MPI_REQUEST_NULL;
  MPINOTIFY_TRY(start_request(state, &request));
  {
    std::lock_guard guard(mutex_);
    entries_.push_back(std::make_unique<Entry>(Entry{request, std::move(state), std::move(work)}));
    pending_.fetch_add(1, std::memory_order_acq_rel);
  }
  *out = request;
  return {};
}

void Progress::note_outcome(Entry &entry) {
  const Status outcome = entry.work->outcome();
  if (outcome.ok()) return;
  entry.state->error.store(to_mpi_error(outcome));
  // The waiter gets only the code; the text is here, on the polling thread.
  if (params().verbose != 0)
    std::fprintf(stderr, "mpinotify: a request failed: %s\n", outcome.message().c_str());
}

void Progress::remove(std::size_t i) {
  // The handle may be freed already; MPI keeps the request until this
  // completion.
  PMPI_Grequest_complete(entries_[i]->request);
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
  pending_.fetch_sub(1, std::memory_order_acq_rel);
}

void Progress::poll() {
  std::unique_lock guard(mutex_, std::try_to_lock);
  if (!guard.owns_lock()) return;
  for (std::size_t i = 0; i < entries_.size();) {
    Entry &entry = *entries_[i];
    if (entry.state->cancelled.load()) {
      remove(i);
    } else if (entry.work->poll()) {
      note_outcome(entry);
      remove(i);
    } else {
      ++i;
    }
  }
}

void Progress::complete_matching(bool (*match)(const Entry &, const void *), const void *what) {
  std::lock_guard guard(mutex_);
  for (std::size_t i = 0; i < entries_.size();) {
    Entry &entry = *entries_[i];
    if (match(entry, what)) {
      entry.state->cancelled.store(true);
      remove(i);
    } else {
      ++i;
    }
  }
}

void Progress::cancel_window(const Window *window) {
  complete_matching([](const Entry &e, const void *w) { return e.work->window() == w; }, window);
}

void Progress::cancel_all() {
  complete_matching([](const Entry &, const void *) { return true; }, nullptr);
}

void Progress::withdraw(MPI_Request request) {
  if (pending_.load(std::memory_order_acquire) == 0) return;
  complete_matching([](const Entry &e,
                       const void *r) { return e.request == *static_cast<const MPI_Request *>(r); },
                    &request);
}

Progress &progress() {
  static Progress engine;
  return engine;
}

}  // namespace mpinotify
