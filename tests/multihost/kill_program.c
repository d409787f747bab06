/*
 * A rank killed across hosts (issue 10, SEMANTICS 6.3): windows that span
 * hosts (ucx or pmpi) and windows over each host's ranks (sm), notified
 * puts in flight to the victim, and peers polling counters the victim
 * would move. Then the last rank (on another host than rank 0) kills
 * itself with SIGKILL. The job must end through the launcher's abort;
 * check_kill.sh bounds the time and looks for leftovers on every host.
 */
#include <mpi_notify.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "window_backend.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm host = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  char *base = NULL;
  MPI_Win spanning = MPI_WIN_NULL;
  MPI_Win local = MPI_WIN_NULL;
  MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &spanning);
  MPI_Win_allocate(4096, 1, MPI_INFO_NULL, host, &base, &local);
  MPI_Win_set_num_notify(spanning, MPI_INFO_NULL, 8);
  MPI_Win_set_num_notify(local, MPI_INFO_NULL, 8);
  char spanning_backend[MPI_MAX_INFO_VAL + 1] = "";
  char local_backend[MPI_MAX_INFO_VAL + 1] = "";
  window_backend(spanning, spanning_backend);
  window_backend(local, local_backend);
  printf("kill_program: rank %d pid %d spanning %s local %s\n", rank, (int)getpid(),
         spanning_backend, local_backend);
  fflush(stdout);
  MPI_Win_lock_all(0, spanning);
  MPI_Barrier(MPI_COMM_WORLD);
  const int victim = size - 1;
  if (rank == victim) {
    usleep(100000); /* the others are streaming to it by now */
    raise(SIGKILL);
  }
  /* Puts to the victim and polls of counters only it would move, until
   * the launcher ends the job. */
  static char data[1024];
  MPI_Count value = 0;
  for (long i = 0;; ++i) {
    MPI_Put_notify(data, sizeof data, MPI_BYTE, victim, 0, sizeof data, MPI_BYTE, 1, spanning);
    if (i % 16 == 0) MPI_Win_flush(victim, spanning);
    MPI_Win_get_notify_value(spanning, 3, &value);
    MPI_Win_get_notify_value(local, 3, &value);
  }
}
