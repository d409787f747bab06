/* The pre-notification way to tell a peer that data arrived, on plain MPI
 * only: MPI_Put + MPI_Win_flush, then a flag MPI_Accumulate + flush, the
 * peer polling the flag (MPI_Fetch_and_op with MPI_NO_OP, then a flush on
 * itself), ping-pong of 8 bytes; and MPI_Send/MPI_Recv in the same run.
 * Built twice: putflag_bench_host with the MPI alone, putflag_bench_library
 * with libmpinotify linked before it (its interceptors of the window calls
 * in the loop). bench/run.sh --suite putflag runs both in alternated
 * launches and prints what the library adds.
 *
 *   mpirun -n 2 --bind-to core putflag_bench_host [--quick]
 * prints one line: "putflag_us <median> sendrecv_us <median>". */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, peer;

static int64_t poll_flag(MPI_Win win) {
  int64_t none = 0, value = 0;
  MPI_Fetch_and_op(&none, &value, MPI_INT64_T, rank, 64, MPI_NO_OP, win);
  MPI_Win_flush(rank, win);
  return value;
}

static void send_putflag(MPI_Win win, const char *data, int64_t value) {
  MPI_Put(data, 8, MPI_BYTE, peer, 0, 8, MPI_BYTE, win);
  MPI_Win_flush(peer, win);
  MPI_Accumulate(&value, 1, MPI_INT64_T, peer, 64, 1, MPI_INT64_T, MPI_REPLACE, win);
  MPI_Win_flush(peer, win);
}

/* One-way microseconds of `n` round trips, rank 0's clock, on both ranks. */
static double putflag(MPI_Win win, long n, int64_t *next) {
  char data[8] = {0};
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (long i = 0; i < n; ++i) {
    const int64_t value = ++*next;
    if (rank == 0) {
      send_putflag(win, data, value);
      while (poll_flag(win) < value) {
      }
    } else {
      while (poll_flag(win) < value) {
      }
      send_putflag(win, data, value);
    }
  }
  double took = (MPI_Wtime() - start) / (double)n / 2 * 1e6;
  MPI_Bcast(&took, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return took;
}

static double sendrecv(long n) {
  char data[8] = {0};
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (long i = 0; i < n; ++i) {
    if (rank == 0) {
      MPI_Send(data, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      MPI_Recv(data, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(data, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(data, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
    }
  }
  double took = (MPI_Wtime() - start) / (double)n / 2 * 1e6;
  MPI_Bcast(&took, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return took;
}

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *values, int n) {
  qsort(values, (size_t)n, sizeof *values, by_value);
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "putflag_bench: run with exactly 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  peer = 1 - rank;
  const int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  const int rounds = quick ? 3 : 11;
  const long n = quick ? 500 : 5000;
  char *base = NULL;
  MPI_Win win;
  MPI_Win_allocate(128, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  memset(base, 0, 128);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  MPI_Barrier(MPI_COMM_WORLD);
  int64_t next = 0;
  double put_flag[16], send_recv[16];
  for (int round = -1; round < rounds; ++round) { /* round -1 warms up */
    const double p = putflag(win, n, &next);
    const double s = sendrecv(4 * n);
    if (round >= 0) {
      put_flag[round] = p;
      send_recv[round] = s;
    }
  }
  if (rank == 0)
    printf("putflag_us %.3f sendrecv_us %.3f\n", median(put_flag, rounds),
           median(send_recv, rounds));
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
