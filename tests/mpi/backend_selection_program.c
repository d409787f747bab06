/*
 * SEMANTICS 5.4, run with MPINOTIFY_BACKEND naming no backend of the
 * library. "return": creating a window of each flavor fails on every rank
 * with MPI_ERR_UNSUPPORTED_OPERATION through the communicator's handler
 * (MPI_ERRORS_RETURN here) and gives MPI_WIN_NULL; exits non-zero
 * otherwise. "fatal": under the default handler the failure is fatal, after
 * a message naming the backend (ctest matches it).
 */
#include <mpi_notify.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int me = 0;
  int failures = 0;
  int all_failures = 0;
  int flavor;
  static char memory[64];
  const int fatal = argc > 1 && strcmp(argv[1], "fatal") == 0;
  const char *names[4] = {"MPI_Win_create", "MPI_Win_allocate", "MPI_Win_allocate_shared",
                          "MPI_Win_create_dynamic"};
  MPI_Comm comm = MPI_COMM_WORLD;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (!fatal) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  }
  for (flavor = fatal ? 1 : 0; flavor < 4; ++flavor) {
    MPI_Win win = MPI_WIN_NULL;
    void *base = NULL;
    int rc = MPI_SUCCESS;
    int cls = -1;
    switch (flavor) {
      case 0: rc = MPI_Win_create(memory, 64, 1, MPI_INFO_NULL, comm, &win); break;
      case 1: rc = MPI_Win_allocate(64, 1, MPI_INFO_NULL, comm, &base, &win); break;
      case 2: rc = MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, comm, &base, &win); break;
      default: rc = MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &win); break;
    }
    if (fatal) {
      fprintf(stderr, "backend_selection_program: creation did not fail fatally\n");
      break;
    }
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_UNSUPPORTED_OPERATION || win != MPI_WIN_NULL) {
      ++failures;
      fprintf(stderr,
              "backend_selection_program: rank %d: %s returned class %d (expected "
              "MPI_ERR_UNSUPPORTED_OPERATION, %d) and %s window\n",
              me, names[flavor], cls, MPI_ERR_UNSUPPORTED_OPERATION,
              win == MPI_WIN_NULL ? "no" : "a");
    }
  }
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && all_failures == 0 && !fatal)
    printf("backend_selection_program: creation refused on every rank\n");
  if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
  MPI_Finalize();
  return all_failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
