/*
 * What the C side of the mpi_f08 bindings shares: how a Fortran buffer
 * becomes an (address, count, datatype) triple for the C calls, and the
 * addresses of the mpi_f08 module's special variables.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef MPINOTIFY_F08_GLUE_H
#define MPINOTIFY_F08_GLUE_H

#include <ISO_Fortran_binding.h>
#include <mpi_notify.h>
#include <stddef.h>

/* Declares a procedure Fortran calls by its specific name, with gfortran's
 * conventions: every argument by reference, an absent OPTIONAL as a null
 * pointer, LOGICAL as a C int, a CHARACTER's length as a trailing size_t. */
#define F08_PROCEDURE(name, params) \
  void name params;                 \
  void name params

/* The C return code into the OPTIONAL ierror. */
static inline void mpinotify_f08_finish(MPI_Fint *ierror, int rc) {
  if (ierror != NULL) *ierror = (MPI_Fint)rc;
}

/* A buffer as a C call takes it. `made` is a datatype built for a
 * non-contiguous array section (then count is 1 and type is made), to be
 * freed once the call has returned; MPI_DATATYPE_NULL otherwise. */
typedef struct F08Buffer {
  void *addr;
  MPI_Count count;
  MPI_Datatype type;
  MPI_Datatype made;
} F08Buffer;

/* Contiguous arrays and scalars pass through; a non-contiguous section gets
 * a datatype of its first `count` elements when one element of `type` is
 * one array element (MPI_ERR_BUFFER otherwise). MPI_BOTTOM becomes the C
 * MPI_BOTTOM. */
int mpinotify_f08_describe(const CFI_cdesc_t *buffer, MPI_Count count, MPI_Datatype type,
                           F08Buffer *out);
/* The same for a buffer the MPI's own interface passed by address. */
F08Buffer mpinotify_f08_address(void *addr, MPI_Count count, MPI_Datatype type);
void mpinotify_f08_release(F08Buffer *buffer);

/* Raises `code` through the window's error handler (MPI_COMM_WORLD's for
 * MPI_WIN_NULL) and returns it, as the C functions do for their errors. */
int mpinotify_f08_raise(MPI_Win win, int code);

/* Addresses of mpi_f08's MPI_BOTTOM, MPI_STATUS_IGNORE and
 * MPI_STATUSES_IGNORE, which arrive as ordinary arguments. */
int mpinotify_f08_is_bottom(const void *addr);
int mpinotify_f08_is_status_ignore(const void *status);
int mpinotify_f08_is_statuses_ignore(const void *statuses);
/* The size of TYPE(MPI_Status), to step through arrays of them. */
size_t mpinotify_f08_status_bytes(void);
/* The C keyval of a predefined window attribute the library answers
 * (MPI_WIN_SIZE, MPI_WIN_CREATE_FLAVOR), whose Fortran keyval may differ
 * (MPICH); any other keyval unchanged. */
int mpinotify_f08_c_keyval(int fortran_keyval);

/* The target side of an RMA call, in C handles. */
typedef struct F08Target {
  int rank;
  MPI_Aint disp;
  MPI_Count count;
  MPI_Datatype type;
} F08Target;

/* Which call mpinotify_f08_issue makes: the operation, and flags for the
 * large-count (_c) form, the request form and the notified form. The
 * values are those of rma_procedure.inc. */
enum { F08_PUT = 0, F08_GET = 1, F08_ACCUMULATE = 2, F08_GET_ACCUMULATE = 3 };
enum { F08_LARGE = 1, F08_REQUEST = 2, F08_NOTIFIED = 4 };

/* Makes the C call; `result` only for F08_GET_ACCUMULATE, `op` for the
 * accumulates, `idx` for the notified forms, `request` for request forms
 * (set only when the call succeeds). */
int mpinotify_f08_issue(int kind, int flags, const F08Buffer *origin, const F08Buffer *result,
                        const F08Target *target, MPI_Op op, int idx, MPI_Win win,
                        MPI_Fint *request);

/* What the host MPI's mpi_f08 module does with MPI_Status (the C struct's
 * fields in the Fortran type's order). */
void mpinotify_f08_status_c2f(const MPI_Status *c_status, void *f_status);

#endif /* MPINOTIFY_F08_GLUE_H */
