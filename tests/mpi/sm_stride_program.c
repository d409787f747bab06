/*
 * sm places an MPI_Win_allocate window's first counters right after each
 * rank's memory, MPINOTIFY_SM_COUNTER_STRIDE bytes apart, and finds another
 * rank's counters by its own stride: run with "mixed", ranks set different
 * strides (64 and 128 bytes) before MPI_Init, which must make the window
 * keep its counters elsewhere; with "narrow", every rank sets 8 bytes, so
 * counters sit right after the data. Either way each counter must count
 * exactly its own notified puts and the data around them must stay as
 * written. Exits non-zero on any failure, on every rank.
 */
#include <mpi_notify.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kCounters = 16 };

static MPI_Aint bytes_of(int rank) {
  static const MPI_Aint sizes[] = {100, 1, 4095};
  return sizes[rank % 3];
}

static char pattern(int rank, MPI_Aint offset) { return (char)(rank * 31 + offset % 97); }

/* The rank as the process manager gives it, before MPI_Init. */
static int launch_rank(void) {
  const char *names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
  for (int i = 0; i < 3; ++i) {
    const char *v = getenv(names[i]);
    if (v != NULL) return atoi(v);
  }
  return 0;
}

int main(int argc, char **argv) {
  const int mixed = argc > 1 && strcmp(argv[1], "mixed") == 0;
  const char *stride = mixed ? (launch_rank() % 2 == 0 ? "64" : "128") : "8";
  setenv("MPINOTIFY_SM_COUNTER_STRIDE", stride, 1);
  MPI_Init(&argc, &argv);
  int me = 0, np = 1, failures = 0, all_failures = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int right = (me + 1) % np, left = (me + np - 1) % np;
  const MPI_Aint mine = bytes_of(me);
  char *base = NULL;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate(mine, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (MPI_Aint i = 0; i < mine; ++i) base[i] = pattern(me, i);
  MPI_Win_set_num_notify(win, MPI_INFO_NULL, kCounters);
  MPI_Barrier(MPI_COMM_WORLD);

  const char mark = (char)(-1 - me);
  MPI_Win_lock_all(0, win);
  for (int k = 0; k < kCounters; ++k)
    for (int n = 0; n <= k; ++n)
      MPI_Put_notify(&mark, 1, MPI_CHAR, right, bytes_of(right) - 1, 1, MPI_CHAR, k, win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);

  for (int k = 0; k < kCounters; ++k) {
    MPI_Count value = -1;
    MPI_Win_get_notify_value(win, k, &value);
    if (value != k + 1) {
      fprintf(stderr, "sm_stride_program: rank %d (stride %s): counter %d is %lld, not %d\n", me,
              stride, k, (long long)value, k + 1);
      ++failures;
    }
  }
  for (MPI_Aint i = 0; i < mine; ++i) {
    const char expected = i == mine - 1 ? (char)(-1 - left) : pattern(me, i);
    if (base[i] != expected) {
      fprintf(stderr, "sm_stride_program: rank %d: byte %ld of %ld changed\n", me, (long)i,
              (long)mine);
      ++failures;
      break;
    }
  }
  MPI_Win_free(&win);
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && all_failures == 0)
    printf("sm_stride_program: %s strides: all counters right\n", mixed ? "mixed" : "narrow");
  MPI_Finalize();
  return all_failures == 0 ? 0 : 1;
}
