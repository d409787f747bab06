#include "mpi_call.hpp"

#include <stdexcept>
#include <string>

namespace mpinotify::detail {

std::string mpi_error_text(int rc) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) length = 0;
  return {text, static_cast<std::size_t>(length)};
}

void check_mpi(int rc, const char *what) {
  if (rc == MPI_SUCCESS) return;
  throw std::runtime_error(std::string("mpinotify exchange: ") + what +
                           " failed: " + mpi_error_text(rc));
}

}  // namespace mpinotify::detail
