/* The backend serving a window, as the library reports it in the window's
 * info (for the fault programs, which print it). */
#ifndef MPINOTIFY_TESTS_WINDOW_BACKEND_H
#define MPINOTIFY_TESTS_WINDOW_BACKEND_H

#include <mpi_notify.h>

/* `out` holds MPI_MAX_INFO_VAL + 1 bytes. */
static inline void window_backend(MPI_Win win, char *out) {
  MPI_Info info;
  int flag = 0;
  MPI_Win_get_info(win, &info);
  MPI_Info_get(info, MPINOTIFY_INFO_KEY_BACKEND, MPI_MAX_INFO_VAL, out, &flag);
  MPI_Info_free(&info);
}

#endif
