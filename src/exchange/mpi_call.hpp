// MPI return codes as exceptions, for the exchange's own calls.
#pragma once

#include <string>

#include "mpinotify/exchange.hpp"

namespace mpinotify::detail {

// Throws std::runtime_error naming `what` and the MPI error unless `rc` is
// MPI_SUCCESS.
void check_mpi(int rc, const char *what);
// MPI's text for an error code.
std::string mpi_error_text(int rc);

}  // namespace mpinotify::detail
