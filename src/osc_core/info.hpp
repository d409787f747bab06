// MPI_Info access through the host, for the keys the library reads and
// reports.
#pragma once

#include <optional>
#include <string>

#include "mpi_host.hpp"

namespace mpinotify {

// The value of `key` in `info`, or nullopt when absent (or info is null).
std::optional<std::string> info_value(MPI_Info info, const char *key);

// Sets `key` in `info` (a handle the library owns or hands back to the user).
Status info_set(MPI_Info info, const char *key, const std::string &value);

// Removes `key` from `info` if present.
Status info_erase(MPI_Info info, const char *key);

}  // namespace mpinotify
