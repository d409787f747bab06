/*
 * The C half of the Fortran procedures that take buffers: Fortran passes
 * TS 29113 descriptors (BIND(C) interfaces in glue.F90) and MPI_VAL
 * handles; these functions make the C call through mpi_notify.h, or, for
 * the host's own RMA calls, through the interceptors of libmpinotify.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <stddef.h>

#include "f08_glue.h"

/* One entry point per kind and form: plain or _c counts, blocking or with
 * a request, notified or the host's own call. */
#define ORIGIN(C) origin->addr, (C)origin->count, origin->type
#define RESULT(C) result->addr, (C)result->count, result->type
#define TARGET(C) target->rank, target->disp, (C)target->count, target->type

static int issue_notified(int kind, int flags, const F08Buffer *origin, const F08Buffer *result,
                          const F08Target *target, MPI_Op op, int idx, MPI_Win win,
                          MPI_Request *req) {
  const int large = (flags & F08_LARGE) != 0;
  const int with_request = (flags & F08_REQUEST) != 0;
  switch (kind * 4 + large * 2 + with_request) {
    case F08_PUT * 4 + 0: return MPI_Put_notify(ORIGIN(int), TARGET(int), idx, win);
    case F08_PUT * 4 + 1: return MPI_Rput_notify(ORIGIN(int), TARGET(int), idx, win, req);
    case F08_PUT * 4 + 2: return MPI_Put_notify_c(ORIGIN(MPI_Count), TARGET(MPI_Count), idx, win);
    case F08_PUT * 4 + 3:
      return MPI_Rput_notify_c(ORIGIN(MPI_Count), TARGET(MPI_Count), idx, win, req);
    case F08_GET * 4 + 0: return MPI_Get_notify(ORIGIN(int), TARGET(int), idx, win);
    case F08_GET * 4 + 1: return MPI_Rget_notify(ORIGIN(int), TARGET(int), idx, win, req);
    case F08_GET * 4 + 2: return MPI_Get_notify_c(ORIGIN(MPI_Count), TARGET(MPI_Count), idx, win);
    case F08_GET * 4 + 3:
      return MPI_Rget_notify_c(ORIGIN(MPI_Count), TARGET(MPI_Count), idx, win, req);
    case F08_ACCUMULATE * 4 + 0:
      return MPI_Accumulate_notify(ORIGIN(int), TARGET(int), op, idx, win);
    case F08_ACCUMULATE * 4 + 1:
      return MPI_Raccumulate_notify(ORIGIN(int), TARGET(int), op, idx, win, req);
    case F08_ACCUMULATE * 4 + 2:
      return MPI_Accumulate_notify_c(ORIGIN(MPI_Count), TARGET(MPI_Count), op, idx, win);
    case F08_ACCUMULATE * 4 + 3:
      return MPI_Raccumulate_notify_c(ORIGIN(MPI_Count), TARGET(MPI_Count), op, idx, win, req);
    case F08_GET_ACCUMULATE * 4 + 0:
      return MPI_Get_accumulate_notify(ORIGIN(int), RESULT(int), TARGET(int), op, idx, win);
    case F08_GET_ACCUMULATE * 4 + 1:
      return MPI_Rget_accumulate_notify(ORIGIN(int), RESULT(int), TARGET(int), op, idx, win, req);
    case F08_GET_ACCUMULATE * 4 + 2:
      return MPI_Get_accumulate_notify_c(ORIGIN(MPI_Count), RESULT(MPI_Count), TARGET(MPI_Count),
                                         op, idx, win);
    case F08_GET_ACCUMULATE * 4 + 3:
      return MPI_Rget_accumulate_notify_c(ORIGIN(MPI_Count), RESULT(MPI_Count), TARGET(MPI_Count),
                                          op, idx, win, req);
    default: return MPI_ERR_INTERN;
  }
}

static int issue_plain(int kind, int flags, const F08Buffer *origin, const F08Buffer *result,
                       const F08Target *target, MPI_Op op, MPI_Win win, MPI_Request *req) {
  const int large = (flags & F08_LARGE) != 0;
  const int with_request = (flags & F08_REQUEST) != 0;
  switch (kind * 4 + large * 2 + with_request) {
    case F08_PUT * 4 + 0: return MPI_Put(ORIGIN(int), TARGET(int), win);
    case F08_PUT * 4 + 1: return MPI_Rput(ORIGIN(int), TARGET(int), win, req);
    case F08_GET * 4 + 0: return MPI_Get(ORIGIN(int), TARGET(int), win);
    case F08_GET * 4 + 1: return MPI_Rget(ORIGIN(int), TARGET(int), win, req);
    case F08_ACCUMULATE * 4 + 0: return MPI_Accumulate(ORIGIN(int), TARGET(int), op, win);
    case F08_ACCUMULATE * 4 + 1: return MPI_Raccumulate(ORIGIN(int), TARGET(int), op, win, req);
    case F08_GET_ACCUMULATE * 4 + 0:
      return MPI_Get_accumulate(ORIGIN(int), RESULT(int), TARGET(int), op, win);
    case F08_GET_ACCUMULATE * 4 + 1:
      return MPI_Rget_accumulate(ORIGIN(int), RESULT(int), TARGET(int), op, win, req);
#if MPI_VERSION >= 4
    case F08_PUT * 4 + 2: return MPI_Put_c(ORIGIN(MPI_Count), TARGET(MPI_Count), win);
    case F08_PUT * 4 + 3: return MPI_Rput_c(ORIGIN(MPI_Count), TARGET(MPI_Count), win, req);
    case F08_GET * 4 + 2: return MPI_Get_c(ORIGIN(MPI_Count), TARGET(MPI_Count), win);
    case F08_GET * 4 + 3: return MPI_Rget_c(ORIGIN(MPI_Count), TARGET(MPI_Count), win, req);
    case F08_ACCUMULATE * 4 + 2:
      return MPI_Accumulate_c(ORIGIN(MPI_Count), TARGET(MPI_Count), op, win);
    case F08_ACCUMULATE * 4 + 3:
      return MPI_Raccumulate_c(ORIGIN(MPI_Count), TARGET(MPI_Count), op, win, req);
    case F08_GET_ACCUMULATE * 4 + 2:
      return MPI_Get_accumulate_c(ORIGIN(MPI_Count), RESULT(MPI_Count), TARGET(MPI_Count), op, win);
    case F08_GET_ACCUMULATE * 4 + 3:
      return MPI_Rget_accumulate_c(ORIGIN(MPI_Count), RESULT(MPI_Count), TARGET(MPI_Count), op, win,
                                   req);
#endif
    default: return MPI_ERR_INTERN;
  }
}

int mpinotify_f08_issue(int kind, int flags, const F08Buffer *origin, const F08Buffer *result,
                        const F08Target *target, MPI_Op op, int idx, MPI_Win win,
                        MPI_Fint *request) {
  MPI_Request req = MPI_REQUEST_NULL;
  const int rc = (flags & F08_NOTIFIED) != 0
                     ? issue_notified(kind, flags, origin, result, target, op, idx, win, &req)
                     : issue_plain(kind, flags, origin, result, target, op, win, &req);
  if (rc == MPI_SUCCESS && (flags & F08_REQUEST) != 0) *request = MPI_Request_c2f(req);
  return rc;
}

/* ---- entry points of the Fortran procedures (glue.F90) ------------------ */

int mpinotify_f08_rma(int kind, int flags, const CFI_cdesc_t *origin, MPI_Count origin_count,
                      MPI_Fint origin_type, const CFI_cdesc_t *result, MPI_Count result_count,
                      MPI_Fint result_type, int target_rank, MPI_Aint target_disp,
                      MPI_Count target_count, MPI_Fint target_type, MPI_Fint op, int idx,
                      MPI_Fint win, MPI_Fint *request);
int mpinotify_f08_rma(int kind, int flags, const CFI_cdesc_t *origin, MPI_Count origin_count,
                      MPI_Fint origin_type, const CFI_cdesc_t *result, MPI_Count result_count,
                      MPI_Fint result_type, int target_rank, MPI_Aint target_disp,
                      MPI_Count target_count, MPI_Fint target_type, MPI_Fint op, int idx,
                      MPI_Fint win, MPI_Fint *request) {
  const MPI_Win c_win = MPI_Win_f2c(win);
  const F08Target target = {target_rank, target_disp, target_count, MPI_Type_f2c(target_type)};
  F08Buffer origin_buffer = mpinotify_f08_address(NULL, 0, MPI_DATATYPE_NULL);
  F08Buffer result_buffer = origin_buffer;
  int rc = mpinotify_f08_describe(origin, origin_count, MPI_Type_f2c(origin_type), &origin_buffer);
  if (rc == MPI_SUCCESS && kind == F08_GET_ACCUMULATE)
    rc = mpinotify_f08_describe(result, result_count, MPI_Type_f2c(result_type), &result_buffer);
  if (rc == MPI_SUCCESS) {
    rc = mpinotify_f08_issue(kind, flags, &origin_buffer, &result_buffer, &target, MPI_Op_f2c(op),
                             idx, c_win, request);
  } else {
    /* The section could not be described: nothing moved. */
    rc = mpinotify_f08_raise(c_win, rc);
  }
  mpinotify_f08_release(&origin_buffer);
  mpinotify_f08_release(&result_buffer);
  return rc;
}

int mpinotify_f08_fetch_and_op(const CFI_cdesc_t *origin, const CFI_cdesc_t *result,
                               MPI_Fint datatype, int target_rank, MPI_Aint target_disp,
                               MPI_Fint op, MPI_Fint win);
int mpinotify_f08_fetch_and_op(const CFI_cdesc_t *origin, const CFI_cdesc_t *result,
                               MPI_Fint datatype, int target_rank, MPI_Aint target_disp,
                               MPI_Fint op, MPI_Fint win) {
  /* One element each: the first element of any section is its base. */
  const F08Buffer from = mpinotify_f08_address(origin->base_addr, 1, MPI_DATATYPE_NULL);
  const F08Buffer into = mpinotify_f08_address(result->base_addr, 1, MPI_DATATYPE_NULL);
  return MPI_Fetch_and_op(from.addr, into.addr, MPI_Type_f2c(datatype), target_rank, target_disp,
                          MPI_Op_f2c(op), MPI_Win_f2c(win));
}

int mpinotify_f08_compare_and_swap(const CFI_cdesc_t *origin, const CFI_cdesc_t *compare,
                                   const CFI_cdesc_t *result, MPI_Fint datatype, int target_rank,
                                   MPI_Aint target_disp, MPI_Fint win);
int mpinotify_f08_compare_and_swap(const CFI_cdesc_t *origin, const CFI_cdesc_t *compare,
                                   const CFI_cdesc_t *result, MPI_Fint datatype, int target_rank,
                                   MPI_Aint target_disp, MPI_Fint win) {
  const F08Buffer from = mpinotify_f08_address(origin->base_addr, 1, MPI_DATATYPE_NULL);
  const F08Buffer with = mpinotify_f08_address(compare->base_addr, 1, MPI_DATATYPE_NULL);
  const F08Buffer into = mpinotify_f08_address(result->base_addr, 1, MPI_DATATYPE_NULL);
  return MPI_Compare_and_swap(from.addr, with.addr, into.addr, MPI_Type_f2c(datatype), target_rank,
                              target_disp, MPI_Win_f2c(win));
}

int mpinotify_f08_win_create(const CFI_cdesc_t *base, MPI_Aint size, int disp_unit, MPI_Fint info,
                             MPI_Fint comm, MPI_Fint *win);
int mpinotify_f08_win_create(const CFI_cdesc_t *base, MPI_Aint size, int disp_unit, MPI_Fint info,
                             MPI_Fint comm, MPI_Fint *win) {
  MPI_Win c_win = MPI_WIN_NULL;
  const int rc = MPI_Win_create(base->base_addr, size, disp_unit, MPI_Info_f2c(info),
                                MPI_Comm_f2c(comm), &c_win);
  if (rc == MPI_SUCCESS) *win = MPI_Win_c2f(c_win);
  return rc;
}

int mpinotify_f08_win_attach(MPI_Fint win, const CFI_cdesc_t *base, MPI_Aint size);
int mpinotify_f08_win_attach(MPI_Fint win, const CFI_cdesc_t *base, MPI_Aint size) {
  return MPI_Win_attach(MPI_Win_f2c(win), base->base_addr, size);
}

int mpinotify_f08_win_detach(MPI_Fint win, const CFI_cdesc_t *base);
int mpinotify_f08_win_detach(MPI_Fint win, const CFI_cdesc_t *base) {
  return MPI_Win_detach(MPI_Win_f2c(win), base->base_addr);
}
