/*
 * MPINOTIFY_PREFAULT: when a window lives in shared memory, every process
 * maps every rank's memory into its own page tables at creation (up to
 * the budget), so that its first store to a peer's page takes no fault.
 * Run with "on" (the default budget covers the window made here) each
 * process must find every page of every rank's memory present in its page
 * tables (/proc/self/pagemap) right after MPI_Win_allocate_shared; with
 * "off" (MPINOTIFY_PREFAULT=0) not every page of a peer's memory, which
 * this process never touched, may be present: that shows the check can
 * see a page that is not mapped. Kernels without MADV_POPULATE_WRITE
 * (before 5.14) map nothing ahead: "on" then passes with a notice. Exits
 * non-zero on any failure, on every rank.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi_notify.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

enum { kBytes = 1 << 20 };

/* Pages of [base, base + bytes) present in this process's page tables. */
static long present_pages(int pagemap, const char *base, long bytes, long *pages) {
  const long page = sysconf(_SC_PAGESIZE);
  const uintptr_t first = (uintptr_t)base / (uintptr_t)page;
  const uintptr_t end =
      ((uintptr_t)base + (uintptr_t)bytes + (uintptr_t)page - 1) / (uintptr_t)page;
  long present = 0;
  *pages = 0;
  for (uintptr_t p = first; p < end; ++p) {
    uint64_t entry = 0;
    if (pread(pagemap, &entry, sizeof entry, (off_t)(p * sizeof entry)) != (ssize_t)sizeof entry)
      return -1;
    if ((entry >> 63) & 1U) ++present;
    ++*pages;
  }
  return present;
}

/* Whether the kernel has MADV_POPULATE_WRITE (Linux 5.14). */
static int kernel_populates(void) {
  struct utsname name;
  int major = 0, minor = 0;
  if (uname(&name) != 0 || sscanf(name.release, "%d.%d", &major, &minor) != 2) return 0;
  return major > 5 || (major == 5 && minor >= 14);
}

/* Checks every rank's memory of `win` as this process maps it; returns
 * the failures. */
static int check(MPI_Win win, int on, const char *flavor, int me, int np, int pagemap) {
  int failures = 0;
  for (int r = 0; r < np; ++r) {
    MPI_Aint size = 0;
    int unit = 0;
    char *base = NULL;
    MPI_Win_shared_query(win, r, &size, &unit, &base);
    if (size != kBytes || base == NULL) {
      fprintf(stderr, "sm_prefault_program: rank %d: %s: rank %d's memory not found\n", me, flavor,
              r);
      ++failures;
      continue;
    }
    long pages = 0;
    const long present = present_pages(pagemap, base, size, &pages);
    if (present < 0) {
      fprintf(stderr, "sm_prefault_program: rank %d: cannot read /proc/self/pagemap\n", me);
      return failures + 1;
    }
    if (on && present != pages) {
      fprintf(stderr,
              "sm_prefault_program: rank %d: %s: %ld of %ld pages of rank %d's memory mapped "
              "here after creation\n",
              me, flavor, present, pages, r);
      ++failures;
    }
    /* Off: nobody wrote a peer's memory, and this process did not read
     * it. */
    if (!on && r != me && present == pages) {
      fprintf(stderr,
              "sm_prefault_program: rank %d: %s: all %ld pages of rank %d's memory mapped here "
              "with MPINOTIFY_PREFAULT=0\n",
              me, flavor, pages, r);
      ++failures;
    }
  }
  return failures;
}

int main(int argc, char **argv) {
  const int on = !(argc > 1 && strcmp(argv[1], "off") == 0);
  MPI_Init(&argc, &argv);
  int me = 0, np = 1, failures = 0, all_failures = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int pagemap = open("/proc/self/pagemap", O_RDONLY);
  const int checkable = pagemap >= 0 && (!on || kernel_populates());
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  char *base = NULL;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate_shared(kBytes, 1, info, MPI_COMM_WORLD, &base, &win);
  if (checkable) failures += check(win, on, "MPI_Win_allocate_shared", me, np, pagemap);
  MPI_Win_free(&win);
  MPI_Info_free(&info);
  if (pagemap >= 0) close(pagemap);
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && all_failures == 0) {
    if (checkable)
      printf("sm_prefault_program: %s: every page as expected\n", on ? "on" : "off");
    else
      printf("sm_prefault_program: this kernel maps nothing ahead; not checked\n");
  }
  MPI_Finalize();
  return all_failures == 0 ? 0 : 1;
}
