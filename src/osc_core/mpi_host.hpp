// The host MPI, seen from inside the library. Everything the library does
// itself goes through PMPI_ so that its own interceptors never see it.
#pragma once

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <string>

#include "status.hpp"

namespace mpinotify {

// The host's sentence for an error code.
std::string host_error_string(int code);

// The status of a failed host call (kept out of line: calls succeed).
[[gnu::cold]] Status host_failure(int rc, const char *what, bool reported);

// Status for a host call on one of the library's own objects (private
// communicator, counter window): the host returned the code to us, so it
// still has to reach the user's error handler.
inline Status host_status(int rc, const char *what) {
  if (rc == MPI_SUCCESS) [[likely]]
    return {};
  return host_failure(rc, what, false);
}

// A call of the host's made by an interceptor, handed down without
// copying it (a std::function would allocate for a lambda of four
// references, on every MPI_Win_lock). Lives no longer than the callable.
class HostCall {
 public:
  template <class Callable>
  explicit HostCall(Callable &callable)
      : object_(&callable),
        call_([](void *object) { return (*static_cast<Callable *>(object))(); }) {}
  int operator()() const { return call_(object_); }

 private:
  void *object_;
  int (*call_)(void *);
};

// Status for a host call on the user's own window or communicator: the
// host has already invoked the user's error handler with this code.
inline Status host_reported(int rc, const char *what) {
  if (rc == MPI_SUCCESS) [[likely]]
    return {};
  return host_failure(rc, what, true);
}

}  // namespace mpinotify
