/*
 * A producer-consumer pipeline on notified puts.
 *
 * Rank 0 produces blocks, every middle rank transforms each block and
 * passes it on, the last rank checks every block. Each rank's window holds
 * SLOTS block buffers. Counter s of a rank counts the blocks that landed in
 * its slot s; counter SLOTS counts the slots its downstream neighbour has
 * freed (credits). Nobody joins a synchronisation epoch with anybody: a
 * rank waits on its own counters only.
 *
 *   mpirun -n 4 ./pipeline [blocks] [block_bytes]
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <mpi_notify.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SLOTS = 8 };

static void check(int rc, const char *what) {
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    fprintf(stderr, "pipeline: %s failed: %s\n", what, text);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

/* Word i of block b as the producer writes it; each stage adds its rank. */
static uint64_t word(long block, size_t i) { return ((uint64_t)block << 32) ^ (uint64_t)i; }

/* Waits until counter idx of this rank reaches at_least, through a
 * threshold request that completes inside MPI_Wait. */
static void wait_counter(MPI_Win win, int idx, MPI_Count at_least) {
  MPI_Request request;
  check(MPI_Win_notify_threshold(win, idx, at_least, &request), "MPI_Win_notify_threshold");
  check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long blocks = argc > 1 ? atol(argv[1]) : 2000;
  const size_t block_bytes = argc > 2 ? (size_t)atol(argv[2]) : 4096;
  const size_t words = block_bytes / sizeof(uint64_t);
  if (size < 2 || words == 0 || blocks <= 0) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -n <2 or more> pipeline [blocks] [bytes>=8]\n");
    MPI_Finalize();
    return 1;
  }

  uint64_t *slots = NULL;
  MPI_Win win;
  check(MPI_Win_allocate((MPI_Aint)(SLOTS * words * sizeof(uint64_t)), sizeof(uint64_t),
                         MPI_INFO_NULL, MPI_COMM_WORLD, &slots, &win),
        "MPI_Win_allocate");
  /* Counters 0..SLOTS-1: blocks landed per slot; counter SLOTS: credits. */
  check(MPI_Win_set_num_notify(win, MPI_INFO_NULL, SLOTS + 1), "MPI_Win_set_num_notify");
  check(MPI_Win_lock_all(MPI_MODE_NOCHECK, win), "MPI_Win_lock_all");

  uint64_t *block = malloc(words * sizeof(uint64_t));
  const int upstream = rank - 1, downstream = rank + 1;
  long bad_words = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();

  for (long b = 0; b < blocks; ++b) {
    const int slot = (int)(b % SLOTS);
    if (rank == 0) {
      for (size_t i = 0; i < words; ++i) block[i] = word(b, i);
    } else {
      /* The b-th block in this slot is its (b / SLOTS + 1)-th arrival. */
      wait_counter(win, slot, b / SLOTS + 1);
      memcpy(block, slots + (size_t)slot * words, words * sizeof(uint64_t));
      /* Give the slot back to the upstream rank: a zero-byte notified put. */
      check(MPI_Put_notify(NULL, 0, MPI_BYTE, upstream, 0, 0, MPI_BYTE, SLOTS, win),
            "MPI_Put_notify (credit)");
      check(MPI_Win_flush(upstream, win), "MPI_Win_flush");
      for (size_t i = 0; i < words; ++i) block[i] += (uint64_t)rank;
    }
    if (downstream < size) {
      /* At most SLOTS blocks may be in flight: wait for the credit. */
      if (b >= SLOTS) wait_counter(win, SLOTS, b - SLOTS + 1);
      check(MPI_Put_notify(block, (int)words, MPI_UINT64_T, downstream,
                           (MPI_Aint)((size_t)slot * words), (int)words, MPI_UINT64_T, slot, win),
            "MPI_Put_notify (block)");
      check(MPI_Win_flush(downstream, win), "MPI_Win_flush");
    } else {
      /* Every stage 1..size-1 added its rank to every word. */
      const uint64_t added = (uint64_t)size * (uint64_t)(size - 1) / 2;
      for (size_t i = 0; i < words; ++i) bad_words += block[i] != word(b, i) + added;
    }
  }
  const double seconds = MPI_Wtime() - start;

  check(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
  long total_bad = 0;
  MPI_Reduce(&bad_words, &total_bad, 1, MPI_LONG, MPI_SUM, size - 1, MPI_COMM_WORLD);
  if (rank == size - 1) {
    const double bytes = (double)blocks * (double)(words * sizeof(uint64_t));
    printf("pipeline: %ld blocks of %zu bytes through %d ranks (%d hops) in %.3f s\n", blocks,
           words * sizeof(uint64_t), size, size - 1, seconds);
    printf("pipeline: %.1f MB/s end to end, %.2f us per block, %ld wrong words\n",
           bytes / seconds / 1e6, seconds / (double)blocks * 1e6, total_bad);
  }
  free(block);
  MPI_Win_free(&win);
  MPI_Finalize();
  return total_bad == 0 ? 0 : 1;
}
