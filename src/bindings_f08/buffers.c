/*
 * Fortran buffers for the C calls: contiguous data passes through, a
 * non-contiguous array section becomes an MPI datatype of its elements,
 * and the mpi_f08 module's special variables are recognised by address.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <limits.h>
#include <pthread.h>
#include <stddef.h>

#include "f08_glue.h"

/* ---- the mpi_f08 module's special values -------------------------------- */

static const void *bottom_address;
static const void *status_ignore_address;
static const void *statuses_ignore_address;
static size_t status_bytes;
static int fortran_win_size = MPI_KEYVAL_INVALID;
static int fortran_win_create_flavor = MPI_KEYVAL_INVALID;
static pthread_once_t sentinels_once = PTHREAD_ONCE_INIT;

/* Fortran (sentinels.F90) passes the module's variables to the store below. */
void mpinotify_f08_report_sentinels(void);

void mpinotify_f08_store_sentinels(const void *bottom, const void *status_ignore,
                                   const void *statuses_ignore, size_t status_size,
                                   int win_size_keyval, int win_create_flavor_keyval);
void mpinotify_f08_store_sentinels(const void *bottom, const void *status_ignore,
                                   const void *statuses_ignore, size_t status_size,
                                   int win_size_keyval, int win_create_flavor_keyval) {
  bottom_address = bottom;
  status_ignore_address = status_ignore;
  statuses_ignore_address = statuses_ignore;
  status_bytes = status_size;
  fortran_win_size = win_size_keyval;
  fortran_win_create_flavor = win_create_flavor_keyval;
}

static void learn_sentinels(void) { pthread_once(&sentinels_once, mpinotify_f08_report_sentinels); }

int mpinotify_f08_is_bottom(const void *addr) {
  learn_sentinels();
  return addr != NULL && addr == bottom_address;
}

int mpinotify_f08_is_status_ignore(const void *status) {
  learn_sentinels();
  return status == NULL || status == status_ignore_address;
}

int mpinotify_f08_is_statuses_ignore(const void *statuses) {
  learn_sentinels();
  return statuses == NULL || statuses == statuses_ignore_address;
}

size_t mpinotify_f08_status_bytes(void) {
  learn_sentinels();
  return status_bytes;
}

int mpinotify_f08_c_keyval(int fortran_keyval) {
  learn_sentinels();
  if (fortran_keyval == fortran_win_size) return MPI_WIN_SIZE;
  if (fortran_keyval == fortran_win_create_flavor) return MPI_WIN_CREATE_FLAVOR;
  return fortran_keyval;
}

void mpinotify_f08_status_c2f(const MPI_Status *c_status, void *f_status) {
#if MPI_VERSION >= 4
  MPI_Status_c2f08(c_status, (MPI_F08_status *)f_status);
#else
  /* MPI-3 hosts (Open MPI 4.1): TYPE(MPI_Status) is laid out as the
   * INTEGER(MPI_STATUS_SIZE) status, as their own mpi_f08 relies on. */
  MPI_Status_c2f(c_status, (MPI_Fint *)f_status);
#endif
}

int mpinotify_f08_raise(MPI_Win win, int code) {
  if (code == MPI_SUCCESS) return code;
  if (win == MPI_WIN_NULL) {
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
  } else {
    MPI_Win_call_errhandler(win, code);
  }
  return code;
}

/* ---- buffers ------------------------------------------------------------ */

F08Buffer mpinotify_f08_address(void *addr, MPI_Count count, MPI_Datatype type) {
  F08Buffer buffer;
  buffer.addr = mpinotify_f08_is_bottom(addr) ? MPI_BOTTOM : addr;
  buffer.count = count;
  buffer.type = type;
  buffer.made = MPI_DATATYPE_NULL;
  return buffer;
}

void mpinotify_f08_release(F08Buffer *buffer) {
  if (buffer->made != MPI_DATATYPE_NULL) MPI_Type_free(&buffer->made);
}

static int type_size(MPI_Datatype type, MPI_Count *size) {
#if MPI_VERSION >= 4
  return MPI_Type_size_c(type, size);
#else
  return MPI_Type_size_x(type, size);
#endif
}

/* Every element of dimensions [0, rank) of the section, each one `element`. */
static int whole_dimensions(const CFI_cdesc_t *section, int rank, MPI_Datatype element,
                            MPI_Datatype *out) {
  MPI_Datatype built = MPI_DATATYPE_NULL;
  int rc = MPI_Type_dup(element, &built);
  for (int i = 0; i < rank && rc == MPI_SUCCESS; ++i) {
    MPI_Datatype outer = MPI_DATATYPE_NULL;
    rc = MPI_Type_create_hvector((int)section->dim[i].extent, 1, (MPI_Aint)section->dim[i].sm,
                                 built, &outer);
    MPI_Type_free(&built);
    built = outer;
  }
  *out = built;
  return rc;
}

/* The first n (>= 1) elements, in array element order, of dimensions
 * [0, rank): whole slabs of the slowest dimension, then the first elements
 * of the next slab. */
static int leading_elements(const CFI_cdesc_t *section, int rank, MPI_Count n, MPI_Datatype element,
                            MPI_Datatype *out) {
  if (rank == 0) return MPI_Type_dup(element, out);
  MPI_Count per_slab = 1;
  for (int i = 0; i < rank - 1; ++i) per_slab *= section->dim[i].extent;
  const MPI_Count slabs = n / per_slab;
  const MPI_Count rest = n % per_slab;
  const MPI_Aint slab_stride = (MPI_Aint)section->dim[rank - 1].sm;

  MPI_Datatype parts[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
  MPI_Aint displacements[2] = {0, 0};
  int lengths[2] = {1, 1};
  int count = 0;
  int rc = MPI_SUCCESS;
  if (slabs > 0) {
    MPI_Datatype slab = MPI_DATATYPE_NULL;
    rc = whole_dimensions(section, rank - 1, element, &slab);
    if (rc == MPI_SUCCESS) {
      rc = MPI_Type_create_hvector((int)slabs, 1, slab_stride, slab, &parts[count]);
      MPI_Type_free(&slab);
    }
    if (rc == MPI_SUCCESS) displacements[count++] = 0;
  }
  if (rc == MPI_SUCCESS && rest > 0) {
    rc = leading_elements(section, rank - 1, rest, element, &parts[count]);
    if (rc == MPI_SUCCESS) displacements[count++] = (MPI_Aint)slabs * slab_stride;
  }
  if (rc == MPI_SUCCESS && count == 1 && displacements[0] == 0) {
    *out = parts[0];
    return rc;
  }
  if (rc == MPI_SUCCESS) rc = MPI_Type_create_struct(count, lengths, displacements, parts, out);
  for (int i = 0; i < count; ++i) MPI_Type_free(&parts[i]);
  return rc;
}

int mpinotify_f08_describe(const CFI_cdesc_t *buffer, MPI_Count count, MPI_Datatype type,
                           F08Buffer *out) {
  *out = mpinotify_f08_address(buffer->base_addr, count, type);
  if (buffer->rank == 0 || count <= 0 || CFI_is_contiguous(buffer)) return MPI_SUCCESS;
  if (type == MPI_DATATYPE_NULL) return MPI_ERR_TYPE;

  /* A section is described element by element: one element of `type` must
   * be one array element, and the count may not run past the section. */
  MPI_Count size = 0;
  int rc = type_size(type, &size);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Count elements = 1;
  for (int i = 0; i < buffer->rank; ++i) {
    if (buffer->dim[i].extent > INT_MAX) return MPI_ERR_BUFFER;
    elements *= buffer->dim[i].extent;
  }
  if (size != (MPI_Count)buffer->elem_len || count > elements) return MPI_ERR_BUFFER;

  MPI_Datatype made = MPI_DATATYPE_NULL;
  rc = leading_elements(buffer, buffer->rank, count, type, &made);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&made);
  if (rc != MPI_SUCCESS) {
    if (made != MPI_DATATYPE_NULL) MPI_Type_free(&made);
    return rc;
  }
  out->count = 1;
  out->type = made;
  out->made = made;
  return MPI_SUCCESS;
}
