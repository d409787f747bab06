// MPI_Error_class and MPI_Error_string: the error class the library adds
// answers as the standard's own classes do, on every host (SEMANTICS 6.1).
// Notification errors return the class value itself, so programs written
// for native implementations may compare `rc == MPI_ERR_RMA_NOTIFICATION`
// or ask MPI_Error_class; Open MPI 4.1 would answer MPI_ERR_UNKNOWN for a
// class added with MPI_Add_error_class.
#include <algorithm>
#include <cstring>

#include "osc_core/runtime.hpp"
#include "report.hpp"

namespace {
bool is_library_class(int code) {
  return mpinotify::bindings::library_ready() && code == mpinotify::runtime().notification_class();
}
}  // namespace

extern "C" int MPI_Error_class(int errorcode, int *errorclass) {
  if (errorclass == nullptr || !is_library_class(errorcode))
    return PMPI_Error_class(errorcode, errorclass);
  *errorclass = errorcode;
  return MPI_SUCCESS;
}

extern "C" int MPI_Error_string(int errorcode, char *string, int *resultlen) {
  if (string == nullptr || resultlen == nullptr || !is_library_class(errorcode))
    return PMPI_Error_string(errorcode, string, resultlen);
  const char *text = mpinotify::Runtime::notification_text();
  const std::size_t length = std::min<std::size_t>(std::strlen(text), MPI_MAX_ERROR_STRING - 1);
  std::memcpy(string, text, length);
  string[length] = '\0';
  *resultlen = static_cast<int>(length);
  return MPI_SUCCESS;
}
