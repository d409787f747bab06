#include "progress.hpp"

#include <algorithm>
#include <cstdio>

#include "params.hpp"
#include "wait_policy.hpp"

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

// The status of a completed request of the library, as the host's
// MPI_Wait gives it (from query_request; the host leaves MPI_ERROR alone in
// the single-request calls).
void fill_status(MPI_Status *status, bool cancelled) {
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, cancelled ? 1 : 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
}

int query_request(void *extra_state, MPI_Status *status) {
  const auto *state = static_cast<RequestState *>(extra_state);
  fill_status(status, state->cancelled.load());
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

// Work that was complete when its request was made.
class CompletedWork final : public PendingWork {
 public:
  bool poll() override { return true; }
  bool drives_operations() const override { return false; }
};

// Host requests kept for reuse at most; past that they are freed.
constexpr int kTakenMost = 16;

}  // namespace

// One host request and the work it currently stands for. Listed in
// entries_ from its start until it is concluded (completed for MPI) or its
// host request freed; while taken it waits there to serve the next work.
struct Progress::Entry {
  Entry(MPI_Request r, StateHold s) : request(r), state(std::move(s)) {}

  // Whoever polls the work or ends the entry holds `busy`; the holder
  // never waits for mutex_ meanwhile (those who hold mutex_ may wait for
  // `busy`).
  bool try_lock() { return !busy.exchange(true, std::memory_order_acquire); }
  void lock() {
    Backoff backoff;
    while (!try_lock()) backoff.pause();
  }
  void unlock() { busy.store(false, std::memory_order_release); }

  const MPI_Request request;  // the host's, for every work this entry serves
  StateHold state;
  // The work; replaced when the entry serves the next one, released when
  // it is concluded or tidied while taken.
  std::unique_ptr<PendingWork> work;
  bool drives = false;   // work->drives_operations(); mutex_
  bool counted = false;  // in pending_ (and driving_, if it drives); mutex_
  std::atomic<bool> busy{false};
  std::atomic<bool> concluded{false};  // completed for MPI, no longer listed
  // try_complete finished it: free for the user, pending for MPI.
  std::atomic<bool> taken{false};
};

namespace {

// The entry this thread made or found last: MPI_Wait or MPI_Test on it
// usually follows.
thread_local std::shared_ptr<Progress::Entry> last
    [[gnu::tls_model("initial-exec")]];  // no lookup call: on every wait
std::shared_ptr<Progress::Entry> &last_entry() { return last; }

// Completes and frees the host request of a taken entry.
void free_host_request(Progress::Entry &entry) {
  entry.concluded.store(true, std::memory_order_release);
  MPI_Request request = entry.request;
  PMPI_Grequest_complete(request);
  PMPI_Wait(&request, MPI_STATUS_IGNORE);  // runs free_request
}

}  // namespace

Status Progress::completed_request(MPI_Request *out) {
  StateHold state;
  MPI_Request request = MPI_REQUEST_NULL;
  MPINOTIFY_TRY(start_request(state, &request));
  MPINOTIFY_TRY(host_status(PMPI_Grequest_complete(request), "MPI_Grequest_complete"));
  *out = request;
  return {};
}

void Progress::count_in(Entry &entry) {
  if (entry.counted) return;
  entry.counted = true;
  pending_.fetch_add(1, std::memory_order_acq_rel);
  if (entry.drives) driving_.fetch_add(1, std::memory_order_acq_rel);
}

void Progress::count_out(Entry &entry) {
  if (!entry.counted) return;
  entry.counted = false;
  pending_.fetch_sub(1, std::memory_order_acq_rel);
  if (entry.drives) driving_.fetch_sub(1, std::memory_order_acq_rel);
}

void Progress::arm(Entry &entry, std::unique_ptr<PendingWork> work) {
  const bool drives = work->drives_operations();
  if (entry.counted && entry.drives != drives)
    driving_.fetch_add(drives ? 1 : -1, std::memory_order_acq_rel);
  entry.drives = drives;
  entry.work = std::move(work);
  entry.state->cancelled.store(false, std::memory_order_relaxed);
  entry.state->error.store(MPI_SUCCESS, std::memory_order_relaxed);
  count_in(entry);
  entry.taken.store(false, std::memory_order_release);
}

Status Progress::pending_request(std::unique_ptr<PendingWork> work, MPI_Request *out) {
  if (work->poll_at_start() && work->poll()) {
    MPINOTIFY_TRY(work->outcome());  // failed at once: the call itself fails
    // Complete already (a halo's notifications often are): the request
    // still takes the short way, and its first test completes it.
    work = std::make_unique<CompletedWork>();
  }
  bool reused = false;
  {
    std::lock_guard guard(mutex_);
    // A host request a waiter finished serves again: no host call, and
    // nothing allocated (a program waits, then makes its next request).
    const auto found = std::find_if(entries_.begin(), entries_.end(), [](const auto &e) {
      return e->taken.load(std::memory_order_acquire);
    });
    if (found != entries_.end()) {
      arm(**found, std::move(work));
      reused = true;
      *out = (*found)->request;
      std::shared_ptr<Entry> &last = last_entry();
      if (last != *found) last = *found;
    }
  }
  if (reused) return {};
  StateHold state;
  MPI_Request request = MPI_REQUEST_NULL;
  MPINOTIFY_TRY(start_request(state, &request));
  auto entry = std::make_shared<Entry>(request, std::move(state));
  {
    std::lock_guard guard(mutex_);
    arm(*entry, std::move(work));
    entries_.push_back(entry);
  }
  *out = request;
  last_entry() = std::move(entry);
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
  const std::shared_ptr<Entry> entry = entries_[i];
  entry->concluded.store(true, std::memory_order_release);
  entry->work.reset();  // and with it whatever it refers to
  // The handle may be freed already; MPI keeps the request until this
  // completion.
  PMPI_Grequest_complete(entry->request);
  count_out(*entry);
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
}

void Progress::tidy() {
  int kept = 0;
  std::erase_if(entries_, [&](const std::shared_ptr<Entry> &entry) {
    if (!entry->taken.load(std::memory_order_acquire)) return false;
    if (entry->counted) {
      entry->lock();  // its taker may not have let go yet
      entry->work.reset();
      entry->unlock();
      count_out(*entry);
    }
    if (++kept <= kTakenMost) return false;
    free_host_request(*entry);
    return true;
  });
}

void Progress::poll(bool waiting) {
  std::unique_lock guard(mutex_, std::try_to_lock);
  if (!guard.owns_lock()) return;
  std::vector<std::shared_ptr<Entry>> due;  // checks to run once mutex_ is let go
  tidy();
  for (std::size_t i = 0; i < entries_.size();) {
    Entry &entry = *entries_[i];
    if (entry.taken.load(std::memory_order_acquire) || !entry.try_lock()) {
      ++i;  // taken, or a waiter has it
      continue;
    }
    if (entry.taken.load(std::memory_order_acquire)) {
      entry.unlock();  // a waiter took it meanwhile: the next tidy counts it out
      ++i;
      continue;
    }
    const std::shared_ptr<Entry> hold = entries_[i];
    const bool done = entry.work->poll();  // cancelled or not, as try_complete
    const bool ended = done || entry.state->cancelled.load();
    if (done) {
      entry.state->cancelled.store(false);
      note_outcome(entry);
    }
    if (ended) remove(i);
    if (!ended && waiting && entry.work->check_due()) due.push_back(hold);
    entry.unlock();
    if (!ended) ++i;
  }
  guard.unlock();
  for (const auto &entry : due) {
    if (!entry->try_lock()) continue;  // its waiter checks it
    // Taken or concluded since, its work is another's or gone.
    if (entry->taken.load(std::memory_order_acquire) ||
        entry->concluded.load(std::memory_order_acquire) || !entry->work->check_alive()) {
      entry->unlock();
      continue;
    }
    entry->state->cancelled.store(false);
    note_outcome(*entry);
    entry->unlock();
    conclude(*entry);
  }
}

void Progress::notice_taken() {
  std::unique_lock guard(mutex_, std::try_to_lock);
  if (guard.owns_lock()) tidy();
}

const std::shared_ptr<Progress::Entry> &Progress::find(MPI_Request request) {
  // A waiter or tester asks for the request just made, or for the same
  // request again and again.
  std::shared_ptr<Entry> &last = last_entry();
  if (last && last->request == request && !last->concluded.load(std::memory_order_acquire) &&
      !last->taken.load(std::memory_order_acquire))
    return last;
  last.reset();
  if (request == MPI_REQUEST_NULL || !must_poll()) return last;
  std::lock_guard guard(mutex_);
  for (const auto &entry : entries_) {
    if (entry->request == request && !entry->taken.load(std::memory_order_acquire)) {
      last = entry;
      break;
    }
  }
  return last;
}

bool Progress::holds_any(const MPI_Request requests[], int count) {
  if (!must_poll()) return false;
  std::lock_guard guard(mutex_);
  for (const auto &entry : entries_) {
    if (entry->taken.load(std::memory_order_acquire)) continue;
    if (std::find(requests, requests + count, entry->request) != requests + count) return true;
  }
  return false;
}

bool Progress::find_all(const MPI_Request requests[], int count,
                        std::vector<std::shared_ptr<Entry>> &out) {
  out.assign(static_cast<std::size_t>(count), nullptr);
  if (!must_poll()) return false;
  bool any = false;
  std::lock_guard guard(mutex_);
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    const auto found = std::find_if(entries_.begin(), entries_.end(), [&](const auto &e) {
      return e->request == requests[i] && !e->taken.load(std::memory_order_acquire);
    });
    if (found == entries_.end()) return false;
    out[static_cast<std::size_t>(i)] = *found;
    any = true;
  }
  return any;
}

bool Progress::concluded(const Entry &entry) {
  return entry.concluded.load(std::memory_order_acquire);
}

Progress::Try Progress::try_complete(Entry &entry, MPI_Request *request, MPI_Status *status) {
  if (!entry.try_lock()) return Try::pending;
  if (entry.concluded.load(std::memory_order_acquire)) {
    entry.unlock();
    return Try::concluded;
  }
  // Polled even when cancelled: a work complete before the cancel took
  // effect completes as it is (MPI_Cancel of a completed request).
  bool done = entry.work->poll();
  if (!done && entry.work->check_due()) done = entry.work->check_alive();
  if (!done && !entry.state->cancelled.load()) {
    entry.unlock();
    return Try::pending;
  }
  if (done) entry.state->cancelled.store(false);
  if (!done || !entry.work->outcome().ok()) {
    if (done) note_outcome(entry);  // while no one else polls the work
    entry.unlock();
    conclude(entry);
    return Try::concluded;
  }
  // Complete. The host request stays pending, unseen by anyone, for the
  // next request made here; the counts follow when it is noticed (tidy).
  // Nothing else on the waiter's path.
  entry.taken.store(true, std::memory_order_release);
  entry.unlock();
  if (status != MPI_STATUS_IGNORE) fill_status(status, false);
  *request = MPI_REQUEST_NULL;
  return Try::done;
}

void Progress::conclude(Entry &entry) {
  std::lock_guard guard(mutex_);
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].get() != &entry) continue;
    entry.lock();
    if (!entry.concluded.load(std::memory_order_acquire)) remove(i);
    entry.unlock();
    return;
  }
}

void Progress::complete_matching(bool (*match)(const Entry &, const void *), const void *what,
                                 bool poll_first) {
  std::lock_guard guard(mutex_);
  tidy();  // and with that, no taken entry holds a work any more
  for (std::size_t i = 0; i < entries_.size();) {
    Entry &entry = *entries_[i];
    if (entry.taken.load(std::memory_order_acquire) || !match(entry, what)) {
      ++i;
      continue;
    }
    const std::shared_ptr<Entry> hold = entries_[i];
    entry.lock();  // no poll of its work runs, and none starts: it may be destroyed
    if (entry.taken.load(std::memory_order_acquire)) {
      // A waiter took it meanwhile: its handle is the user's no more.
      entry.work.reset();
      count_out(entry);
      entry.unlock();
      ++i;
      continue;
    }
    if (poll_first && !entry.state->cancelled.load() && entry.work->poll()) {
      note_outcome(entry);
    } else {
      entry.state->cancelled.store(true);
    }
    remove(i);
    entry.unlock();
  }
}

void Progress::cancel_window(const Window *window) {
  // What completed before the window went completes as it would have.
  complete_matching(
      [](const Entry &e, const void *w) { return e.work != nullptr && e.work->window() == w; },
      window, true);
}

void Progress::cancel_all() {
  complete_matching([](const Entry &, const void *) { return true; }, nullptr, false);
  std::lock_guard guard(mutex_);
  for (const auto &entry : entries_) free_host_request(*entry);  // all taken now
  entries_.clear();
  last_entry().reset();
}

void Progress::withdraw(MPI_Request request) {
  if (!must_poll()) return;
  complete_matching([](const Entry &e,
                       const void *r) { return e.request == *static_cast<const MPI_Request *>(r); },
                    &request, false);
}

Progress &progress() {
  static Progress engine;
  return engine;
}

}  // namespace mpinotify
