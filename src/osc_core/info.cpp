#include "info.hpp"

#include <vector>

namespace mpinotify {

std::optional<std::string> info_value(MPI_Info info, const char *key) {
  if (info == MPI_INFO_NULL) return std::nullopt;
  int length = 0;
  int present = 0;
  if (PMPI_Info_get_valuelen(info, key, &length, &present) != MPI_SUCCESS || present == 0)
    return std::nullopt;
  std::vector<char> buffer(static_cast<std::size_t>(length) + 1, '\0');
  int found = 0;
  // MPI_Info_get is deprecated in MPI-4.1 but present in every host we build on.
  if (PMPI_Info_get(info, key, length, buffer.data(), &found) != MPI_SUCCESS || found == 0)
    return std::nullopt;
  return std::string(buffer.data());
}

Status info_set(MPI_Info info, const char *key, const std::string &value) {
  return host_status(PMPI_Info_set(info, key, value.c_str()), "MPI_Info_set");
}

Status info_erase(MPI_Info info, const char *key) {
  int length = 0;
  int present = 0;
  MPINOTIFY_TRY(
      host_status(PMPI_Info_get_valuelen(info, key, &length, &present), "MPI_Info_get_valuelen"));
  if (present == 0) return {};
  return host_status(PMPI_Info_delete(info, key), "MPI_Info_delete");
}

}  // namespace mpinotify
