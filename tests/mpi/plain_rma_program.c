/* SEMANTICS 3.9: a plain MPI RMA program, which never uses notifications
 * (it does not even include mpi_notify.h), runs linked with libmpinotify
 * exactly as without it, under every host setting (Open MPI's osc
 * component choice among them): every window flavor the host itself can
 * make here, with the program's own fatal error handler, through fence,
 * passive-target and PSCW epochs, with puts, gets, accumulates and
 * fetch-and-op. Exits non-zero on any failure, on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define WORDS 8

static int failures = 0;
static int me, n;

#define CHECK(cond, flavor, what)                                                              \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "plain_rma_program: rank %d, %s window: %s (%s:%d)\n", me, flavor, what, \
              __FILE__, __LINE__);                                                             \
      ++failures;                                                                              \
    }                                                                                          \
  } while (0)

enum flavor { CREATE, ALLOCATE, SHARED, DYNAMIC };
static const char *const names[] = {"create", "allocate", "shared", "dynamic"};
static const int host_flavors[] = {MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE,
                                   MPI_WIN_FLAVOR_SHARED, MPI_WIN_FLAVOR_DYNAMIC};

/* Whether the host MPI itself makes such a window here, asked past the
 * library (PMPI_) on a communicator whose errors return. */
static int host_can_create(enum flavor f) {
  static int memory[WORDS];
  MPI_Comm comm;
  MPI_Win win = MPI_WIN_NULL;
  void *base = NULL;
  int rc = MPI_SUCCESS, mine, all = 0;
  PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
  PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  switch (f) {
    case CREATE: rc = PMPI_Win_create(memory, sizeof memory, 1, MPI_INFO_NULL, comm, &win); break;
    case ALLOCATE: rc = PMPI_Win_allocate(64, 1, MPI_INFO_NULL, comm, &base, &win); break;
    case SHARED: rc = PMPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, comm, &base, &win); break;
    case DYNAMIC: rc = PMPI_Win_create_dynamic(MPI_INFO_NULL, comm, &win); break;
  }
  mine = rc == MPI_SUCCESS;
  if (win != MPI_WIN_NULL) PMPI_Win_free(&win);
  PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  PMPI_Comm_free(&comm);
  return all;
}

/* One window of WORDS ints per rank, made with the MPI_ constructor. */
struct window {
  MPI_Win win;
  int *mem;
  MPI_Aint *disp; /* of word 0, per rank */
};

static struct window make_window(enum flavor f) {
  struct window w = {MPI_WIN_NULL, NULL, NULL};
  const MPI_Aint bytes = WORDS * sizeof(int);
  MPI_Aint mine = 0;
  w.disp = calloc((size_t)n, sizeof *w.disp);
  switch (f) {
    case CREATE:
      w.mem = calloc(WORDS, sizeof(int));
      MPI_Win_create(w.mem, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w.win);
      break;
    case ALLOCATE:
      MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w.mem, &w.win);
      break;
    case SHARED:
      MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w.mem, &w.win);
      break;
    case DYNAMIC:
      w.mem = calloc(WORDS, sizeof(int));
      MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w.win);
      MPI_Win_attach(w.win, w.mem, bytes);
      MPI_Get_address(w.mem, &mine);
      break;
  }
  /* Dynamic windows address bytes at the attached memory; the others words. */
  MPI_Allgather(&mine, 1, MPI_AINT, w.disp, 1, MPI_AINT, MPI_COMM_WORLD);
  return w;
}

static MPI_Aint word(const struct window *w, enum flavor f, int rank, int i) {
  return f == DYNAMIC ? w->disp[rank] + i * (MPI_Aint)sizeof(int) : i;
}

static void free_window(struct window *w, enum flavor f) {
  if (f == DYNAMIC) MPI_Win_detach(w->win, w->mem);
  MPI_Win_free(&w->win);
  if (f == CREATE || f == DYNAMIC) free(w->mem);
  free(w->disp);
}

static void exercise(enum flavor f) {
  const char *name = names[f];
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  struct window w = make_window(f);
  int i, flag = 0, *flavor_attr = NULL, value, old = -1, got = -1;
  MPI_Group world, neighbours;
  int peers[2];

  CHECK(MPI_Win_get_attr(w.win, MPI_WIN_CREATE_FLAVOR, &flavor_attr, &flag) == MPI_SUCCESS &&
            flag && *flavor_attr == host_flavors[f],
        name, "MPI_WIN_CREATE_FLAVOR is not the flavor asked for");
  if (f == SHARED) {
    MPI_Aint size = 0;
    int unit = 0;
    int *peer = NULL;
    MPI_Win_shared_query(w.win, right, &size, &unit, &peer);
    CHECK(size == WORDS * (MPI_Aint)sizeof(int) && unit == (int)sizeof(int) && peer != NULL, name,
          "MPI_Win_shared_query");
  }

  /* Fence: every rank puts its rank into word 0 of its right neighbour. */
  for (i = 0; i < WORDS; ++i) w.mem[i] = -1;
  MPI_Win_fence(0, w.win);
  MPI_Put(&me, 1, MPI_INT, right, word(&w, f, right, 0), 1, MPI_INT, w.win);
  MPI_Win_fence(0, w.win);
  CHECK(w.mem[0] == left, name, "fence put");

  /* lock_all: everyone adds its rank + 1 to word 1 of rank 0 and
   * fetch-and-adds 1 to word 2; flush, then rank 0 checks the sums. */
  MPI_Win_lock_all(0, w.win);
  if (me == 0) {
    w.mem[1] = 0;
    w.mem[2] = 0;
  }
  MPI_Win_sync(w.win);
  MPI_Barrier(MPI_COMM_WORLD);
  value = me + 1;
  MPI_Accumulate(&value, 1, MPI_INT, 0, word(&w, f, 0, 1), 1, MPI_INT, MPI_SUM, w.win);
  value = 1;
  MPI_Fetch_and_op(&value, &old, MPI_INT, 0, word(&w, f, 0, 2), MPI_SUM, w.win);
  MPI_Win_flush_all(w.win);
  CHECK(old >= 0 && old < n, name, "fetch-and-op fetched a value out of range");
  MPI_Win_unlock_all(w.win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win);
    MPI_Win_sync(w.win);
    CHECK(w.mem[1] == n * (n + 1) / 2, name, "accumulate sum");
    CHECK(w.mem[2] == n, name, "fetch-and-op sum");
    MPI_Win_unlock(0, w.win);
  }

  /* Exclusive lock: get word 0 of the left neighbour (its left's rank). */
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, left, 0, w.win);
  MPI_Get(&got, 1, MPI_INT, left, word(&w, f, left, 0), 1, MPI_INT, w.win);
  MPI_Win_unlock(left, w.win);
  CHECK(got == (left + n - 1) % n, name, "get under an exclusive lock");
  MPI_Barrier(MPI_COMM_WORLD);

  /* PSCW with both neighbours: put the rank into word 3 of the right one. */
  peers[0] = left;
  peers[1] = right;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, left == right ? 1 : 2, peers, &neighbours);
  MPI_Win_post(neighbours, 0, w.win);
  MPI_Win_start(neighbours, 0, w.win);
  MPI_Put(&me, 1, MPI_INT, right, word(&w, f, right, 3), 1, MPI_INT, w.win);
  MPI_Win_complete(w.win);
  MPI_Win_wait(w.win);
  CHECK(w.mem[3] == left, name, "PSCW put");
  MPI_Group_free(&neighbours);
  MPI_Group_free(&world);

  free_window(&w, f);
}

int main(int argc, char **argv) {
  int f, any = 0, made = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  for (f = CREATE; f <= DYNAMIC; ++f) {
    if (!host_can_create((enum flavor)f)) {
      if (me == 0) printf("plain_rma_program: the host cannot make %s windows here\n", names[f]);
      continue;
    }
    exercise((enum flavor)f);
    ++made;
  }
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (me == 0) printf("plain_rma_program: %d flavor(s), %s\n", made, any ? "FAILED" : "passed");
  MPI_Finalize();
  return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
