/* Where each rank of a multi-host run really is: its hostname, network
 * namespace, kernel boot id and /dev/shm. Rank 0 prints the table and
 * fails unless ranks r and s share all four exactly when the test bed
 * placed them on the same host (r % hosts == s % hosts), and differ in
 * every one otherwise; with "shared-identity" (containers on one machine)
 * hosts share hostname and boot id, and differ in the other two. Every
 * rank must also be free to run on every online CPU: the "hosts" share
 * this machine's cores, and a launcher binding each host's first rank to
 * core 0 would make them take turns on one core (a round trip then costs a
 * scheduler time slice, about 4 ms here).
 * Usage: placement_check HOSTS [shared-identity] */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct place {
  char hostname[64];
  char boot_id[48];
  unsigned long long netns; /* inode of /proc/self/ns/net */
  unsigned long long shm;   /* device of /dev/shm */
  int cpus;                 /* CPUs this rank may run on */
};

static void read_boot_id(char *out, size_t size) {
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  out[0] = '\0';
  if (f == NULL) return;
  if (fgets(out, (int)size, f) == NULL) out[0] = '\0';
  out[strcspn(out, "\n")] = '\0';
  fclose(f);
}

/* Whether a and b share all four; `apart` whether they are as different
 * as two hosts of this test bed must be. */
static int same_host(const struct place *a, const struct place *b, int shared_identity,
                     int *apart) {
  const int host = strcmp(a->hostname, b->hostname) == 0;
  const int boot = strcmp(a->boot_id, b->boot_id) == 0;
  const int net = a->netns == b->netns;
  const int shm = a->shm == b->shm;
  *apart = shared_identity ? host && boot && !net && !shm : !host && !boot && !net && !shm;
  return host && boot && net && shm;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int hosts = argc > 1 ? atoi(argv[1]) : 0;
  const int shared_identity = argc > 2 && strcmp(argv[2], "shared-identity") == 0;

  struct place mine;
  memset(&mine, 0, sizeof mine);
  gethostname(mine.hostname, sizeof mine.hostname - 1);
  read_boot_id(mine.boot_id, sizeof mine.boot_id);
  struct stat st;
  if (stat("/proc/self/ns/net", &st) == 0) mine.netns = (unsigned long long)st.st_ino;
  if (stat("/dev/shm", &st) == 0) mine.shm = (unsigned long long)st.st_dev;

  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) mine.cpus = CPU_COUNT(&allowed);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);

  struct place *all = rank == 0 ? calloc((size_t)size, sizeof *all) : NULL;
  MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
  int failures = 0;
  if (rank == 0) {
    if (hosts < 1) {
      fprintf(stderr, "placement_check: usage: placement_check HOSTS\n");
      failures = 1;
    }
    for (int r = 0; r < size; ++r)
      printf("rank %d: host %s netns %llu boot_id %s /dev/shm dev %llu cpus %d/%ld\n", r,
             all[r].hostname, all[r].netns, all[r].boot_id, all[r].shm, all[r].cpus, online);
    for (int r = 0; r < size; ++r) {
      if (all[r].cpus < online) {
        fprintf(stderr, "placement_check: rank %d may run on %d of %ld CPUs (launcher binding)\n",
                r, all[r].cpus, online);
        ++failures;
      }
    }
    for (int r = 0; r < size && hosts > 0; ++r) {
      for (int s = r + 1; s < size; ++s) {
        int apart = 0;
        const int together = same_host(&all[r], &all[s], shared_identity, &apart);
        const int expected = r % hosts == s % hosts;
        if (expected && !together) {
          fprintf(stderr, "placement_check: ranks %d and %d should share a host\n", r, s);
          ++failures;
        } else if (!expected && !apart) {
          fprintf(stderr, "placement_check: ranks %d and %d should be on different hosts (%s)\n", r,
                  s,
                  shared_identity ? "same hostname and boot id, other netns and /dev/shm"
                                  : "hostname, netns, boot id and /dev/shm all different");
          ++failures;
        }
      }
    }
    free(all);
  }
  MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
