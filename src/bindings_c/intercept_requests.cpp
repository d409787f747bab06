// MPI_Wait/MPI_Test and their any/all/some forms, and MPI_Request_free.
// While the library has requests of its own pending (threshold requests,
// backends that advance only when polled), waiting on them becomes polling,
// paced by the library's wait policy (osc_core/wait_policy.hpp):
// - MPI_Wait and MPI_Test on one of them poll its work alone and free it
//   themselves once it completed (osc_core/progress.hpp);
// - a wait on requests that are not the library's is the host's own call
//   unless some pending work must be driven meanwhile;
// - every other wait advances the library, tests the host, and pauses.
#include "osc_core/progress.hpp"
#include "osc_core/wait_policy.hpp"

namespace {

using mpinotify::Backoff;
using mpinotify::Progress;
using mpinotify::progress;

// `test(done)` runs the host's test form and says whether the wait is over.
template <class Test>
int poll_until_done(Test &&test) {
  Backoff backoff;
  for (;;) {
    progress().poll(true);
    bool done = false;
    const int rc = test(done);
    if (rc != MPI_SUCCESS || done) return rc;
    backoff.pause();
  }
}

void advance_library() {
  if (progress().must_poll()) progress().poll();
}

// Whether a wait on `requests` needs the library polled meanwhile: some of
// them are its own, or some of its work must be driven.
bool library_involved(const MPI_Request requests[], int count) {
  if (!progress().must_poll()) return false;
  return progress().must_drive() || progress().holds_any(requests, count);
}

// The library's entries behind an array of requests, for the waits below;
// released when the wait returns.
class ArrayEntries {
 public:
  // False unless every request but MPI_REQUEST_NULL is the library's own.
  bool find(const MPI_Request requests[], int count) {
    return progress().find_all(requests, count, entries_);
  }
  ~ArrayEntries() { entries_.clear(); }
  ArrayEntries() = default;
  ArrayEntries(const ArrayEntries &) = delete;
  ArrayEntries &operator=(const ArrayEntries &) = delete;

  template <class Each>
  void for_each(Each &&each) {
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i] && !each(static_cast<int>(i), *entries_[i])) return;
    }
  }
  // How many of them are complete for MPI.
  int concluded() {
    int n = 0;
    for_each([&](int, const auto &entry) {
      n += Progress::concluded(entry) ? 1 : 0;
      return true;
    });
    return n;
  }
  int listed() {
    int n = 0;
    for_each([&](int, const auto &) {
      ++n;
      return true;
    });
    return n;
  }

 private:
  thread_local static std::vector<std::shared_ptr<Progress::Entry>> entries_;
};

thread_local std::vector<std::shared_ptr<Progress::Entry>> ArrayEntries::entries_;

}  // namespace

extern "C" int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  if (!progress().must_poll() || request == nullptr) return PMPI_Wait(request, status);
  const auto &entry = progress().find(*request);
  if (!entry) {
    progress().notice_taken();
    if (!progress().must_drive()) return PMPI_Wait(request, status);
    return poll_until_done([&](bool &done) {
      int flag = 0;
      const int rc = PMPI_Test(request, &flag, status);
      done = flag != 0;
      return rc;
    });
  }
  Backoff backoff;
  for (;;) {
    switch (progress().try_complete(*entry, request, status)) {
      case Progress::Try::done: return MPI_SUCCESS;
      case Progress::Try::concluded: return PMPI_Wait(request, status);
      case Progress::Try::pending: break;
    }
    if (progress().must_drive()) progress().poll();
    progress().nudge_host();
    backoff.pause();
  }
}

extern "C" int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (!library_involved(requests, count)) return PMPI_Waitall(count, requests, statuses);
  ArrayEntries mine;
  if (mine.find(requests, count)) {
    // Only the library's requests: its passes complete them for MPI, then
    // the host's call returns them all.
    const int all = mine.listed();
    Backoff backoff;
    for (;;) {
      progress().poll(true);
      if (mine.concluded() == all) return PMPI_Waitall(count, requests, statuses);
      progress().nudge_host();
      backoff.pause();
    }
  }
  return poll_until_done([&](bool &done) {
    int flag = 0;
    const int rc = PMPI_Testall(count, requests, &flag, statuses);
    done = flag != 0;
    return rc;
  });
}

extern "C" int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
  if (!library_involved(requests, count)) return PMPI_Waitany(count, requests, index, status);
  ArrayEntries mine;
  if (mine.find(requests, count)) {
    // Only the library's requests: as MPI_Wait, on each in turn.
    Backoff backoff;
    for (;;) {
      Progress::Try outcome = Progress::Try::pending;
      mine.for_each([&](int i, auto &entry) {
        outcome = progress().try_complete(entry, &requests[i], status);
        if (outcome == Progress::Try::done) *index = i;
        return outcome == Progress::Try::pending;
      });
      if (outcome == Progress::Try::done) return MPI_SUCCESS;
      if (outcome == Progress::Try::concluded) return PMPI_Waitany(count, requests, index, status);
      if (progress().must_drive()) progress().poll();
      progress().nudge_host();
      backoff.pause();
    }
  }
  return poll_until_done([&](bool &done) {
    int flag = 0;
    const int rc = PMPI_Testany(count, requests, index, &flag, status);
    done = flag != 0;
    return rc;
  });
}

extern "C" int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                            MPI_Status statuses[]) {
  if (!library_involved(requests, incount))
    return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  ArrayEntries mine;
  if (mine.find(requests, incount)) {
    Backoff backoff;
    for (;;) {
      progress().poll(true);
      if (mine.concluded() > 0)
        return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
      progress().nudge_host();
      backoff.pause();
    }
  }
  return poll_until_done([&](bool &done) {
    const int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
    done = *outcount != 0;  // MPI_UNDEFINED when no request is active
    return rc;
  });
}

extern "C" int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  if (!progress().must_poll() || request == nullptr || flag == nullptr)
    return PMPI_Test(request, flag, status);
  const auto &entry = progress().find(*request);
  if (progress().must_drive()) {
    progress().poll();
  } else if (!entry) {
    progress().notice_taken();
  }
  if (entry) {
    switch (progress().try_complete(*entry, request, status)) {
      case Progress::Try::done: *flag = 1; return MPI_SUCCESS;
      case Progress::Try::pending:
        progress().nudge_host();
        *flag = 0;
        return MPI_SUCCESS;
      case Progress::Try::concluded: break;
    }
  }
  return PMPI_Test(request, flag, status);
}

extern "C" int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
  advance_library();
  return PMPI_Testall(count, requests, flag, statuses);
}

extern "C" int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
                           MPI_Status *status) {
  advance_library();
  return PMPI_Testany(count, requests, index, flag, status);
}

extern "C" int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                            MPI_Status statuses[]) {
  advance_library();
  return PMPI_Testsome(incount, requests, outcount, indices, statuses);
}

// SEMANTICS 2.9: freeing the handle of a pending threshold request
// withdraws it (it never completes observably and costs nothing more); the
// host then frees the request as it frees any other.
extern "C" int MPI_Request_free(MPI_Request *request) {
  if (request != nullptr && *request != MPI_REQUEST_NULL) progress().withdraw(*request);
  return PMPI_Request_free(request);
}

extern "C" int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
  advance_library();
  return PMPI_Request_get_status(request, flag, status);
}
