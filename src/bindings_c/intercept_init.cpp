// MPI_Init, MPI_Init_thread and MPI_Finalize: bring the library up with the
// host MPI and down before it.
#include <cstdio>

#include "osc_core/runtime.hpp"
#include "report.hpp"

namespace {
void start_library() {
  if (!mpinotify::bindings::library_ready())
    std::fprintf(stderr, "mpinotify: warning: could not initialise; notified RMA is unavailable\n");
}
}  // namespace

extern "C" int MPI_Init(int *argc, char ***argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) start_library();
  return rc;
}

extern "C" int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) start_library();
  return rc;
}

extern "C" int MPI_Finalize() {
  mpinotify::runtime().finalize();
  return PMPI_Finalize();
}
