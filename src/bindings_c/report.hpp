// The C ABI's edge: no exception crosses it, and every error reaches the
// right MPI error handler exactly once.
#pragma once

#include <exception>
#include <new>

#include "osc_core/mpi_host.hpp"
#include "osc_core/status.hpp"

namespace mpinotify::bindings {

// True once the library can serve calls (MPI initialised, not finalised);
// initialises the library lazily and publishes the C ABI constants.
bool library_ready();

// Reports `status` for `function` through the window's error handler
// (MPI_COMM_WORLD's when win is MPI_WIN_NULL, as the hosts do) and returns
// the MPI error code. Errors the host already reported are only returned.
[[gnu::cold]] int report_error_on_window(const char *function, MPI_Win win, const Status &status);
inline int report_on_window(const char *function, MPI_Win win, const Status &status) {
  if (status.ok()) [[likely]]
    return MPI_SUCCESS;
  return report_error_on_window(function, win, status);
}
// The same through a communicator's handler (window creation).
int report_on_comm(const char *function, MPI_Comm comm, const Status &status);
// Before MPI_Init or after MPI_Finalize no handler exists: say so on stderr.
int report_not_ready(const char *function);

// Runs `body` (returning Status) with exceptions turned into statuses.
// Always inline: a body left behind a call takes its captures by
// reference from the stack, which costs a notified put a fifth of its time.
template <class Body>
[[gnu::always_inline]] inline Status run_guarded(Body &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return error(Errc::no_mem, "out of memory");
  } catch (const std::exception &e) {
    return error(Errc::intern, std::string("internal error: ") + e.what());
  } catch (...) {
    return error(Errc::intern, "internal error");
  }
}

}  // namespace mpinotify::bindings
