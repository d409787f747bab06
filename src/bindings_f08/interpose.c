/*
 * The mpi_f08 procedures whose C functions libmpinotify intercepts, under
 * their Fortran specific names (MPI-3.1, 17.1.5). The host's own mpi_f08
 * wrappers call the PMPI_ C functions (both Open MPI 4.1 and MPICH 4.0),
 * so without these a Fortran program's windows, synchronisation and waits
 * would never reach the library. Linked before the host's Fortran library,
 * each converts its arguments and calls the C MPI_ function.
 *
 * Procedures without buffers take the same arguments on every host; those with buffers are here in
 * the form of hosts whose mpi_f08 passes buffers by address (the _f08 names, Open MPI); the TS
 * 29113 form (_f08ts, MPICH) is in host_procedures.F90.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "f08_glue.h"

static MPI_Fint fortran_logical(int flag) { return flag != 0 ? 1 : 0; }

/* ---- initialisation and windows --------------------------------------- */

F08_PROCEDURE(mpi_init_f08_, (MPI_Fint * ierror)) {
  mpinotify_f08_finish(ierror, MPI_Init(NULL, NULL));
}

F08_PROCEDURE(mpi_init_thread_f08_,
              (const MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)) {
  int level = MPI_THREAD_SINGLE;
  const int rc = MPI_Init_thread(NULL, NULL, *required, &level);
  *provided = level;
  mpinotify_f08_finish(ierror, rc);
}

F08_PROCEDURE(mpi_finalize_f08_, (MPI_Fint * ierror)) {
  mpinotify_f08_finish(ierror, MPI_Finalize());
}

static void allocate(int shared, const MPI_Aint *size, const MPI_Fint *disp_unit,
                     const MPI_Fint *info, const MPI_Fint *comm, void **baseptr, MPI_Fint *win,
                     MPI_Fint *ierror) {
  const MPI_Info c_info = MPI_Info_f2c(*info);
  const MPI_Comm c_comm = MPI_Comm_f2c(*comm);
  MPI_Win c_win = MPI_WIN_NULL;
  const int rc = shared
                     ? MPI_Win_allocate_shared(*size, *disp_unit, c_info, c_comm, baseptr, &c_win)
                     : MPI_Win_allocate(*size, *disp_unit, c_info, c_comm, baseptr, &c_win);
  if (rc == MPI_SUCCESS) *win = MPI_Win_c2f(c_win);
  mpinotify_f08_finish(ierror, rc);
}

F08_PROCEDURE(mpi_win_allocate_f08_,
              (const MPI_Aint *size, const MPI_Fint *disp_unit, const MPI_Fint *info,
               const MPI_Fint *comm, void **baseptr, MPI_Fint *win, MPI_Fint *ierror)) {
  allocate(0, size, disp_unit, info, comm, baseptr, win, ierror);
}

F08_PROCEDURE(mpi_win_allocate_shared_f08_,
              (const MPI_Aint *size, const MPI_Fint *disp_unit, const MPI_Fint *info,
               const MPI_Fint *comm, void **baseptr, MPI_Fint *win, MPI_Fint *ierror)) {
  allocate(1, size, disp_unit, info, comm, baseptr, win, ierror);
}

F08_PROCEDURE(mpi_win_create_dynamic_f08_,
              (const MPI_Fint *info, const MPI_Fint *comm, MPI_Fint *win, MPI_Fint *ierror)) {
  MPI_Win c_win = MPI_WIN_NULL;
  const int rc = MPI_Win_create_dynamic(MPI_Info_f2c(*info), MPI_Comm_f2c(*comm), &c_win);
  if (rc == MPI_SUCCESS) *win = MPI_Win_c2f(c_win);
  mpinotify_f08_finish(ierror, rc);
}

F08_PROCEDURE(mpi_win_free_f08_, (MPI_Fint * win, MPI_Fint *ierror)) {
  MPI_Win c_win = MPI_Win_f2c(*win);
  const int rc = MPI_Win_free(&c_win);
  *win = MPI_Win_c2f(c_win);
  mpinotify_f08_finish(ierror, rc);
}

F08_PROCEDURE(mpi_win_shared_query_f08_, (const MPI_Fint *win, const MPI_Fint *rank, MPI_Aint *size,
                                          MPI_Fint *disp_unit, void **baseptr, MPI_Fint *ierror)) {
  int unit = 0;
  const int rc = MPI_Win_shared_query(MPI_Win_f2c(*win), *rank, size, &unit, baseptr);
  *disp_unit = unit;
  mpinotify_f08_finish(ierror, rc);
}

/* The host's Fortran MPI_Win_get_attr (mpif.h's, whose ierror is not
 * optional), for attributes the library does not touch: it knows how
 * each keyval was set, from C or from Fortran. */
void pmpi_win_get_attr_(const MPI_Fint *win, const MPI_Fint *keyval, MPI_Aint *value,
                        MPI_Fint *flag, MPI_Fint *ierror);

/* Predefined attributes are values in Fortran where C yields pointers to
 * them. The library answers MPI_WIN_SIZE and MPI_WIN_CREATE_FLAVOR (its
 * own changes to the host window stay hidden) and the notification
 * attributes. */
F08_PROCEDURE(mpi_win_get_attr_f08_, (const MPI_Fint *win, const MPI_Fint *keyval, MPI_Aint *value,
                                      MPI_Fint *flag, MPI_Fint *ierror)) {
  const int key = mpinotify_f08_c_keyval(*keyval);
  const int is_int = key == MPI_WIN_CREATE_FLAVOR || key == MPI_WIN_NOTIFICATION_NUM_SB ||
                     key == MPI_WIN_NOTIFICATION_NUM_UB;
  const int is_wide = key == MPI_WIN_SIZE || key == MPI_WIN_NOTIFICATION_VALUE_UB;
  if (key == MPI_KEYVAL_INVALID || (!is_int && !is_wide)) {
    MPI_Fint rc = MPI_SUCCESS;
    pmpi_win_get_attr_(win, keyval, value, flag, &rc);
    mpinotify_f08_finish(ierror, rc);
    return;
  }
  void *pointer = NULL;
  int found = 0;
  const int rc = MPI_Win_get_attr(MPI_Win_f2c(*win), key, &pointer, &found);
  *flag = fortran_logical(rc == MPI_SUCCESS && found);
  if (rc == MPI_SUCCESS && found) {
    if (is_int) {
      *value = *(const int *)pointer;
    } else if (key == MPI_WIN_SIZE) {
      *value = *(const MPI_Aint *)pointer;
    } else {
      *value = (MPI_Aint) * (const MPI_Count *)pointer;
    }
  }
  mpinotify_f08_finish(ierror, rc);
}

F08_PROCEDURE(mpi_win_get_info_f08_, (const MPI_Fint *win, MPI_Fint *info_used, MPI_Fint *ierror)) {
  MPI_Info info = MPI_INFO_NULL;
  const int rc = MPI_Win_get_info(MPI_Win_f2c(*win), &info);
  if (rc == MPI_SUCCESS) *info_used = MPI_Info_c2f(info);
  mpinotify_f08_finish(ierror, rc);
}

F08_PROCEDURE(mpi_win_set_info_f08_,
              (const MPI_Fint *win, const MPI_Fint *info, MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror, MPI_Win_set_info(MPI_Win_f2c(*win), MPI_Info_f2c(*info)));
}

/* ---- synchronisation ---------------------------------------------------- */

F08_PROCEDURE(mpi_win_lock_f08_, (const MPI_Fint *lock_type, const MPI_Fint *rank,
                                  const MPI_Fint *assert, const MPI_Fint *win, MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror, MPI_Win_lock(*lock_type, *rank, *assert, MPI_Win_f2c(*win)));
}

F08_PROCEDURE(mpi_win_unlock_f08_, (const MPI_Fint *rank, const MPI_Fint *win, MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror, MPI_Win_unlock(*rank, MPI_Win_f2c(*win)));
}

F08_PROCEDURE(mpi_win_lock_all_f08_,
              (const MPI_Fint *assert, const MPI_Fint *win, MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror, MPI_Win_lock_all(*assert, MPI_Win_f2c(*win)));
}

F08_PROCEDURE(mpi_win_unlock_all_f08_, (const MPI_Fint *win, MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror, MPI_Win_unlock_all(MPI_Win_f2c(*win)));
}

F08_PROCEDURE(mpi_win_flush_f08_, (const MPI_Fint *rank, const MPI_Fint *win, MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror, MPI_Win_flush(*rank, MPI_Win_f2c(*win)));
}

F08_PROCEDURE(mpi_win_flush_all_f08_, (const MPI_Fint *win, MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror, MPI_Win_flush_all(MPI_Win_f2c(*win)));
}

F08_PROCEDURE(mpi_win_flush_local_f08_,
              (const MPI_Fint *rank, const MPI_Fint *win, MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror, MPI_Win_flush_local(*rank, MPI_Win_f2c(*win)));
}

F08_PROCEDURE(mpi_win_flush_local_all_f08_, (const MPI_Fint *win, MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror, MPI_Win_flush_local_all(MPI_Win_f2c(*win)));
}

F08_PROCEDURE(mpi_win_fence_f08_, (const MPI_Fint *assert, const MPI_Fint *win, MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror, MPI_Win_fence(*assert, MPI_Win_f2c(*win)));
}

F08_PROCEDURE(mpi_win_post_f08_, (const MPI_Fint *group, const MPI_Fint *assert,
                                  const MPI_Fint *win, MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror, MPI_Win_post(MPI_Group_f2c(*group), *assert, MPI_Win_f2c(*win)));
}

F08_PROCEDURE(mpi_win_start_f08_, (const MPI_Fint *group, const MPI_Fint *assert,
                                   const MPI_Fint *win, MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror, MPI_Win_start(MPI_Group_f2c(*group), *assert, MPI_Win_f2c(*win)));
}

F08_PROCEDURE(mpi_win_complete_f08_, (const MPI_Fint *win, MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror, MPI_Win_complete(MPI_Win_f2c(*win)));
}

F08_PROCEDURE(mpi_win_wait_f08_, (const MPI_Fint *win, MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror, MPI_Win_wait(MPI_Win_f2c(*win)));
}

F08_PROCEDURE(mpi_win_test_f08_, (const MPI_Fint *win, MPI_Fint *flag, MPI_Fint *ierror)) {
  int done = 0;
  const int rc = MPI_Win_test(MPI_Win_f2c(*win), &done);
  *flag = fortran_logical(done);
  mpinotify_f08_finish(ierror, rc);
}

/* ---- errors ------------------------------------------------------------- */

F08_PROCEDURE(mpi_error_class_f08_,
              (const MPI_Fint *errorcode, MPI_Fint *errorclass, MPI_Fint *ierror)) {
  int c_class = 0;
  const int rc = MPI_Error_class(*errorcode, &c_class);
  if (rc == MPI_SUCCESS) *errorclass = c_class;
  mpinotify_f08_finish(ierror, rc);
}

/* The text blank-padded into the CHARACTER, as Fortran strings are. */
F08_PROCEDURE(mpi_error_string_f08_, (const MPI_Fint *errorcode, char *string, MPI_Fint *resultlen,
                                      MPI_Fint *ierror, size_t string_length)) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  const int rc = MPI_Error_string(*errorcode, text, &length);
  if (rc == MPI_SUCCESS) {
    size_t copied = (size_t)length < string_length ? (size_t)length : string_length;
    memcpy(string, text, copied);
    memset(string + copied, ' ', string_length - copied);
    *resultlen = (MPI_Fint)copied;
  }
  mpinotify_f08_finish(ierror, rc);
}

/* ---- buffers passed by address (the _f08 names) ------------------------- */

#define PLAIN_RMA_ARGS                                                                        \
  const MPI_Fint *origin_count, const MPI_Fint *origin_datatype, const MPI_Fint *target_rank, \
      const MPI_Aint *target_disp, const MPI_Fint *target_count, const MPI_Fint *target_datatype

static void plain_rma(int kind, int flags, void *origin_addr, const MPI_Fint *origin_count,
                      const MPI_Fint *origin_datatype, void *result_addr,
                      const MPI_Fint *result_count, const MPI_Fint *result_datatype,
                      const MPI_Fint *target_rank, const MPI_Aint *target_disp,
                      const MPI_Fint *target_count, const MPI_Fint *target_datatype,
                      const MPI_Fint *op, const MPI_Fint *win, MPI_Fint *request,
                      MPI_Fint *ierror) {
  const F08Buffer origin =
      mpinotify_f08_address(origin_addr, *origin_count, MPI_Type_f2c(*origin_datatype));
  const F08Buffer result =
      result_addr == NULL
          ? origin
          : mpinotify_f08_address(result_addr, *result_count, MPI_Type_f2c(*result_datatype));
  const F08Target target = {*target_rank, *target_disp, *target_count,
                            MPI_Type_f2c(*target_datatype)};
  mpinotify_f08_finish(ierror, mpinotify_f08_issue(kind, flags, &origin, &result, &target,
                                                   op == NULL ? MPI_OP_NULL : MPI_Op_f2c(*op), 0,
                                                   MPI_Win_f2c(*win), request));
}

F08_PROCEDURE(mpi_put_f08_,
              (const void *origin_addr, PLAIN_RMA_ARGS, const MPI_Fint *win, MPI_Fint *ierror)) {
  plain_rma(F08_PUT, 0, (void *)origin_addr, origin_count, origin_datatype, NULL, NULL, NULL,
            target_rank, target_disp, target_count, target_datatype, NULL, win, NULL, ierror);
}

F08_PROCEDURE(mpi_rput_f08_, (const void *origin_addr, PLAIN_RMA_ARGS, const MPI_Fint *win,
                              MPI_Fint *request, MPI_Fint *ierror)) {
  plain_rma(F08_PUT, F08_REQUEST, (void *)origin_addr, origin_count, origin_datatype, NULL, NULL,
            NULL, target_rank, target_disp, target_count, target_datatype, NULL, win, request,
            ierror);
}

F08_PROCEDURE(mpi_get_f08_,
              (void *origin_addr, PLAIN_RMA_ARGS, const MPI_Fint *win, MPI_Fint *ierror)) {
  plain_rma(F08_GET, 0, origin_addr, origin_count, origin_datatype, NULL, NULL, NULL, target_rank,
            target_disp, target_count, target_datatype, NULL, win, NULL, ierror);
}

F08_PROCEDURE(mpi_rget_f08_, (void *origin_addr, PLAIN_RMA_ARGS, const MPI_Fint *win,
                              MPI_Fint *request, MPI_Fint *ierror)) {
  plain_rma(F08_GET, F08_REQUEST, origin_addr, origin_count, origin_datatype, NULL, NULL, NULL,
            target_rank, target_disp, target_count, target_datatype, NULL, win, request, ierror);
}

F08_PROCEDURE(mpi_accumulate_f08_, (const void *origin_addr, PLAIN_RMA_ARGS, const MPI_Fint *op,
                                    const MPI_Fint *win, MPI_Fint *ierror)) {
  plain_rma(F08_ACCUMULATE, 0, (void *)origin_addr, origin_count, origin_datatype, NULL, NULL, NULL,
            target_rank, target_disp, target_count, target_datatype, op, win, NULL, ierror);
}

F08_PROCEDURE(mpi_raccumulate_f08_, (const void *origin_addr, PLAIN_RMA_ARGS, const MPI_Fint *op,
                                     const MPI_Fint *win, MPI_Fint *request, MPI_Fint *ierror)) {
  plain_rma(F08_ACCUMULATE, F08_REQUEST, (void *)origin_addr, origin_count, origin_datatype, NULL,
            NULL, NULL, target_rank, target_disp, target_count, target_datatype, op, win, request,
            ierror);
}

#define GET_ACCUMULATE_ARGS                                                                   \
  const void *origin_addr, const MPI_Fint *origin_count, const MPI_Fint *origin_datatype,     \
      void *result_addr, const MPI_Fint *result_count, const MPI_Fint *result_datatype,       \
      const MPI_Fint *target_rank, const MPI_Aint *target_disp, const MPI_Fint *target_count, \
      const MPI_Fint *target_datatype, const MPI_Fint *op, const MPI_Fint *win

F08_PROCEDURE(mpi_get_accumulate_f08_, (GET_ACCUMULATE_ARGS, MPI_Fint *ierror)) {
  plain_rma(F08_GET_ACCUMULATE, 0, (void *)origin_addr, origin_count, origin_datatype, result_addr,
            result_count, result_datatype, target_rank, target_disp, target_count, target_datatype,
            op, win, NULL, ierror);
}

F08_PROCEDURE(mpi_rget_accumulate_f08_,
              (GET_ACCUMULATE_ARGS, MPI_Fint *request, MPI_Fint *ierror)) {
  plain_rma(F08_GET_ACCUMULATE, F08_REQUEST, (void *)origin_addr, origin_count, origin_datatype,
            result_addr, result_count, result_datatype, target_rank, target_disp, target_count,
            target_datatype, op, win, request, ierror);
}

F08_PROCEDURE(mpi_fetch_and_op_f08_,
              (const void *origin_addr, void *result_addr, const MPI_Fint *datatype,
               const MPI_Fint *target_rank, const MPI_Aint *target_disp, const MPI_Fint *op,
               const MPI_Fint *win, MPI_Fint *ierror)) {
  const F08Buffer from = mpinotify_f08_address((void *)origin_addr, 1, MPI_DATATYPE_NULL);
  const F08Buffer into = mpinotify_f08_address(result_addr, 1, MPI_DATATYPE_NULL);
  mpinotify_f08_finish(ierror,
                       MPI_Fetch_and_op(from.addr, into.addr, MPI_Type_f2c(*datatype), *target_rank,
                                        *target_disp, MPI_Op_f2c(*op), MPI_Win_f2c(*win)));
}

F08_PROCEDURE(mpi_compare_and_swap_f08_,
              (const void *origin_addr, const void *compare_addr, void *result_addr,
               const MPI_Fint *datatype, const MPI_Fint *target_rank, const MPI_Aint *target_disp,
               const MPI_Fint *win, MPI_Fint *ierror)) {
  const F08Buffer from = mpinotify_f08_address((void *)origin_addr, 1, MPI_DATATYPE_NULL);
  const F08Buffer with = mpinotify_f08_address((void *)compare_addr, 1, MPI_DATATYPE_NULL);
  const F08Buffer into = mpinotify_f08_address(result_addr, 1, MPI_DATATYPE_NULL);
  mpinotify_f08_finish(
      ierror, MPI_Compare_and_swap(from.addr, with.addr, into.addr, MPI_Type_f2c(*datatype),
                                   *target_rank, *target_disp, MPI_Win_f2c(*win)));
}

F08_PROCEDURE(mpi_win_create_f08_,
              (void *base, const MPI_Aint *size, const MPI_Fint *disp_unit, const MPI_Fint *info,
               const MPI_Fint *comm, MPI_Fint *win, MPI_Fint *ierror)) {
  MPI_Win c_win = MPI_WIN_NULL;
  const int rc =
      MPI_Win_create(base, *size, *disp_unit, MPI_Info_f2c(*info), MPI_Comm_f2c(*comm), &c_win);
  if (rc == MPI_SUCCESS) *win = MPI_Win_c2f(c_win);
  mpinotify_f08_finish(ierror, rc);
}

F08_PROCEDURE(mpi_win_attach_f08_,
              (const MPI_Fint *win, void *base, const MPI_Aint *size, MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror, MPI_Win_attach(MPI_Win_f2c(*win), base, *size));
}

F08_PROCEDURE(mpi_win_detach_f08_, (const MPI_Fint *win, const void *base, MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror, MPI_Win_detach(MPI_Win_f2c(*win), base));
}
