// MPI_Wait/MPI_Test and their any/all/some forms, and MPI_Request_free.
// While the library has requests of its own pending (threshold requests,
// backends that advance only when polled), waiting becomes polling:
// advance the library, test the host, yield the core, repeat. Otherwise the
// host's call runs as is.
#include <sched.h>

#include "osc_core/progress.hpp"

namespace {

using mpinotify::progress;

// `test(done)` runs the host's test form and says whether the wait is over.
template <class Test>
int poll_until_done(Test &&test) {
  for (;;) {
    progress().poll();
    bool done = false;
    const int rc = test(done);
    if (rc != MPI_SUCCESS || done) return rc;
    // Ranks often outnumber cores: give the one holding the answer a turn.
    sched_yield();
  }
}

void advance_library() {
  if (progress().must_poll()) progress().poll();
}

}  // namespace

extern "C" int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  if (!progress().must_poll()) return PMPI_Wait(request, status);
  return poll_until_done([&](bool &done) {
    int flag = 0;
    const int rc = PMPI_Test(request, &flag, status);
    done = flag != 0;
    return rc;
  });
}

extern "C" int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (!progress().must_poll()) return PMPI_Waitall(count, requests, statuses);
  return poll_until_done([&](bool &done) {
    int flag = 0;
    const int rc = PMPI_Testall(count, requests, &flag, statuses);
    done = flag != 0;
    return rc;
  });
}

extern "C" int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
  if (!progress().must_poll()) return PMPI_Waitany(count, requests, index, status);
  return poll_until_done([&](bool &done) {
    int flag = 0;
    const int rc = PMPI_Testany(count, requests, index, &flag, status);
    done = flag != 0;
    return rc;
  });
}

extern "C" int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                            MPI_Status statuses[]) {
  if (!progress().must_poll()) return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  return poll_until_done([&](bool &done) {
    const int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
    done = *outcount != 0;  // MPI_UNDEFINED when no request is active
    return rc;
  });
}

extern "C" int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  advance_library();
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
