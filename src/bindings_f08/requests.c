/*
 * mpi_f08's MPI_Wait and MPI_Test families, MPI_Request_free and
 * MPI_Request_get_status, through the C functions libmpinotify intercepts:
 * while its own requests are pending (a threshold request, a backend that
 * advances only when polled) a wait there polls the library as well as
 * the host. Statuses come back in the host's TYPE(MPI_Status); indices
 * are 1-based in Fortran.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <stdlib.h>

#include "f08_glue.h"

/* C copies of a Fortran request array, and room for the statuses. */
typedef struct Requests {
  int count;
  MPI_Request *requests;
  MPI_Status *statuses; /* NULL when the caller ignores the statuses */
} Requests;

static int take_requests(int count, const MPI_Fint *f_requests, const void *f_statuses,
                         Requests *out) {
  out->count = 0;
  out->statuses = NULL;
  out->requests = malloc(sizeof(MPI_Request) * (size_t)(count > 0 ? count : 1));
  if (f_statuses != NULL && !mpinotify_f08_is_statuses_ignore(f_statuses))
    out->statuses = malloc(sizeof(MPI_Status) * (size_t)(count > 0 ? count : 1));
  const int missing_statuses =
      out->statuses == NULL && f_statuses != NULL && !mpinotify_f08_is_statuses_ignore(f_statuses);
  if (out->requests == NULL || missing_statuses) return MPI_ERR_NO_MEM;
  out->count = count > 0 ? count : 0;
  for (int i = 0; i < out->count; ++i) out->requests[i] = MPI_Request_f2c(f_requests[i]);
  return MPI_SUCCESS;
}

static MPI_Status *statuses_of(const Requests *taken) {
  return taken->statuses != NULL ? taken->statuses : MPI_STATUSES_IGNORE;
}

/* Hands back the requests (completed ones are MPI_REQUEST_NULL now) and
 * the first `statuses` statuses. */
static void give_back(Requests *taken, MPI_Fint *f_requests, void *f_statuses, int statuses) {
  for (int i = 0; i < taken->count; ++i) f_requests[i] = MPI_Request_c2f(taken->requests[i]);
  if (taken->statuses != NULL) {
    const size_t bytes = mpinotify_f08_status_bytes();
    for (int i = 0; i < statuses; ++i)
      mpinotify_f08_status_c2f(&taken->statuses[i], (char *)f_statuses + (size_t)i * bytes);
  }
  free(taken->statuses);
  free(taken->requests);
}

static int statuses_filled(int rc) { return rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS; }

static MPI_Fint fortran_index(int index) { return index == MPI_UNDEFINED ? index : index + 1; }

F08_PROCEDURE(mpi_wait_f08_, (MPI_Fint * request, void *status, MPI_Fint *ierror)) {
  MPI_Request c_request = MPI_Request_f2c(*request);
  MPI_Status c_status;
  const int ignore = mpinotify_f08_is_status_ignore(status);
  const int rc = MPI_Wait(&c_request, ignore ? MPI_STATUS_IGNORE : &c_status);
  if (rc == MPI_SUCCESS) {
    *request = MPI_Request_c2f(c_request);
    if (!ignore) mpinotify_f08_status_c2f(&c_status, status);
  }
  mpinotify_f08_finish(ierror, rc);
}

F08_PROCEDURE(mpi_test_f08_, (MPI_Fint * request, MPI_Fint *flag, void *status, MPI_Fint *ierror)) {
  MPI_Request c_request = MPI_Request_f2c(*request);
  MPI_Status c_status;
  const int ignore = mpinotify_f08_is_status_ignore(status);
  int done = 0;
  const int rc = MPI_Test(&c_request, &done, ignore ? MPI_STATUS_IGNORE : &c_status);
  if (rc == MPI_SUCCESS) {
    *request = MPI_Request_c2f(c_request);
    *flag = done != 0;
    if (done && !ignore) mpinotify_f08_status_c2f(&c_status, status);
  }
  mpinotify_f08_finish(ierror, rc);
}

F08_PROCEDURE(mpi_request_free_f08_, (MPI_Fint * request, MPI_Fint *ierror)) {
  MPI_Request c_request = MPI_Request_f2c(*request);
  const int rc = MPI_Request_free(&c_request);
  if (rc == MPI_SUCCESS) *request = MPI_Request_c2f(c_request);
  mpinotify_f08_finish(ierror, rc);
}

F08_PROCEDURE(mpi_request_get_status_f08_,
              (const MPI_Fint *request, MPI_Fint *flag, void *status, MPI_Fint *ierror)) {
  MPI_Status c_status;
  const int ignore = mpinotify_f08_is_status_ignore(status);
  int done = 0;
  const int rc = MPI_Request_get_status(MPI_Request_f2c(*request), &done,
                                        ignore ? MPI_STATUS_IGNORE : &c_status);
  if (rc == MPI_SUCCESS) {
    *flag = done != 0;
    if (done && !ignore) mpinotify_f08_status_c2f(&c_status, status);
  }
  mpinotify_f08_finish(ierror, rc);
}

F08_PROCEDURE(mpi_waitall_f08_,
              (const MPI_Fint *count, MPI_Fint *requests, void *statuses, MPI_Fint *ierror)) {
  Requests taken;
  int rc = take_requests(*count, requests, statuses, &taken);
  if (rc == MPI_SUCCESS) rc = MPI_Waitall(taken.count, taken.requests, statuses_of(&taken));
  give_back(&taken, requests, statuses, statuses_filled(rc) ? taken.count : 0);
  mpinotify_f08_finish(ierror, rc);
}

F08_PROCEDURE(mpi_testall_f08_, (const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag,
                                 void *statuses, MPI_Fint *ierror)) {
  Requests taken;
  int done = 0;
  int rc = take_requests(*count, requests, statuses, &taken);
  if (rc == MPI_SUCCESS) rc = MPI_Testall(taken.count, taken.requests, &done, statuses_of(&taken));
  if (statuses_filled(rc)) *flag = done != 0;
  give_back(&taken, requests, statuses, statuses_filled(rc) && done ? taken.count : 0);
  mpinotify_f08_finish(ierror, rc);
}

/* MPI_Waitany and MPI_Testany: one status, for the request at index. */
static void any(int testing, const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,
                MPI_Fint *flag, void *status, MPI_Fint *ierror) {
  Requests taken;
  MPI_Status c_status;
  const int ignore = mpinotify_f08_is_status_ignore(status);
  int c_index = MPI_UNDEFINED;
  int done = 1;
  int rc = take_requests(*count, requests, NULL, &taken);
  if (rc == MPI_SUCCESS) {
    MPI_Status *into = ignore ? MPI_STATUS_IGNORE : &c_status;
    rc = testing ? MPI_Testany(taken.count, taken.requests, &c_index, &done, into)
                 : MPI_Waitany(taken.count, taken.requests, &c_index, into);
  }
  give_back(&taken, requests, NULL, 0);
  if (rc == MPI_SUCCESS) {
    *index = fortran_index(c_index);
    if (flag != NULL) *flag = done != 0;
    if (done && c_index != MPI_UNDEFINED && !ignore) mpinotify_f08_status_c2f(&c_status, status);
  }
  mpinotify_f08_finish(ierror, rc);
}

F08_PROCEDURE(mpi_waitany_f08_, (const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,
                                 void *status, MPI_Fint *ierror)) {
  any(0, count, requests, index, NULL, status, ierror);
}

F08_PROCEDURE(mpi_testany_f08_, (const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,
                                 MPI_Fint *flag, void *status, MPI_Fint *ierror)) {
  any(1, count, requests, index, flag, status, ierror);
}

/* MPI_Waitsome and MPI_Testsome: outcount statuses, in the order of the
 * indices. */
static void some(int testing, const MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                 MPI_Fint *indices, void *statuses, MPI_Fint *ierror) {
  Requests taken;
  int c_outcount = MPI_UNDEFINED;
  int *c_indices = NULL;
  int rc = take_requests(*incount, requests, statuses, &taken);
  if (rc == MPI_SUCCESS) {
    c_indices = malloc(sizeof(int) * (size_t)(taken.count + 1));
    if (c_indices == NULL) rc = MPI_ERR_NO_MEM;
  }
  if (rc == MPI_SUCCESS) {
    rc = testing ? MPI_Testsome(taken.count, taken.requests, &c_outcount, c_indices,
                                statuses_of(&taken))
                 : MPI_Waitsome(taken.count, taken.requests, &c_outcount, c_indices,
                                statuses_of(&taken));
  }
  const int filled = statuses_filled(rc) && c_outcount != MPI_UNDEFINED ? c_outcount : 0;
  if (statuses_filled(rc)) {
    *outcount = c_outcount;
    for (int i = 0; i < filled; ++i) indices[i] = fortran_index(c_indices[i]);
  }
  give_back(&taken, requests, statuses, filled);
  free(c_indices);
  mpinotify_f08_finish(ierror, rc);
}

F08_PROCEDURE(mpi_waitsome_f08_, (const MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                                  MPI_Fint *indices, void *statuses, MPI_Fint *ierror)) {
  some(0, incount, requests, outcount, indices, statuses, ierror);
}

F08_PROCEDURE(mpi_testsome_f08_, (const MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                                  MPI_Fint *indices, void *statuses, MPI_Fint *ierror)) {
  some(1, incount, requests, outcount, indices, statuses, ierror);
}
