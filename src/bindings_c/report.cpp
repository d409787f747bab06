#include "report.hpp"

#include <atomic>
#include <cstdio>

#include "mpi_notify.h"
#include "osc_core/params.hpp"
#include "osc_core/runtime.hpp"

// The run-time constants of mpi_notify.h.
extern "C" {
int mpinotify_err_rma_notification = MPI_ERR_OTHER;
int mpinotify_keyval_num_sb = MPI_KEYVAL_INVALID;
int mpinotify_keyval_num_ub = MPI_KEYVAL_INVALID;
int mpinotify_keyval_value_ub = MPI_KEYVAL_INVALID;
}

namespace mpinotify::bindings {
namespace {

bool is_fatal(MPI_Errhandler handler) {
#ifdef MPI_ERRORS_ABORT
  if (handler == MPI_ERRORS_ABORT) return true;
#endif
  return handler == MPI_ERRORS_ARE_FATAL;
}

void print(const char *function, const Status &status) {
  std::fprintf(stderr, "mpinotify: %s: %s: %s\n", function, errc_name(status.code()),
               status.message().c_str());
  std::fflush(stderr);
}

}  // namespace

bool library_ready() {
  Runtime &rt = runtime();
  if (!rt.ensure_active()) return false;
  static std::atomic<bool> published{false};
  if (published.load(std::memory_order_acquire)) [[likely]]
    return true;
  published.store(true, std::memory_order_release);
  mpinotify_err_rma_notification = rt.notification_class();
  mpinotify_keyval_num_sb = rt.keyval_num_sb();
  mpinotify_keyval_num_ub = rt.keyval_num_ub();
  mpinotify_keyval_value_ub = rt.keyval_value_ub();
  return true;
}

namespace {

// Hands `status` to the error handler of `object` (a window or a
// communicator); says first what went wrong when that handler will abort.
template <class Object>
int report_through(const char *function, const Status &status, Object object,
                   int (*get_handler)(Object, MPI_Errhandler *), int (*call_handler)(Object, int)) {
  if (status.ok()) return MPI_SUCCESS;
  const int code = to_mpi_error(status);
  if (status.reported()) {
    // The host has handled it already; say what the library knows of it.
    if (params().verbose != 0) print(function, status);
    return code;
  }
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  get_handler(object, &handler);
  if (is_fatal(handler) || params().verbose != 0) print(function, status);
  if (handler != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&handler);
  call_handler(object, code);
  return code;
}

}  // namespace

int report_error_on_window(const char *function, MPI_Win win, const Status &status) {
  if (win == MPI_WIN_NULL) return report_on_comm(function, MPI_COMM_WORLD, status);
  return report_through(function, status, win, PMPI_Win_get_errhandler, PMPI_Win_call_errhandler);
}

int report_on_comm(const char *function, MPI_Comm comm, const Status &status) {
  return report_through(function, status, comm, PMPI_Comm_get_errhandler,
                        PMPI_Comm_call_errhandler);
}

int report_not_ready(const char *function) {
  std::fprintf(stderr, "mpinotify: %s called before MPI_Init or after MPI_Finalize\n", function);
  return MPI_ERR_OTHER;
}

}  // namespace mpinotify::bindings
