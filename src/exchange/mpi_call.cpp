#include "mpi_call.hpp"

#include <stdexcept>
#include <string>

namespace mpinotify::detail {

void check_mpi(int rc, const char *what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) length = 0;
  throw std::runtime_error(std::string("mpinotify exchange: ") + what +
                           " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

}  // namespace mpinotify::detail
