// mpinotify/mpix_intel.h compiles as C++ (the project's warnings, -Werror):
// every call's address is taken, so each inline definition is compiled.
// SPDX-License-Identifier: BSD-3-Clause
#include <mpinotify/mpix_intel.h>

namespace {
[[maybe_unused]] const void *const intel_calls[] = {
    reinterpret_cast<const void *>(&MPIX_Win_create_notify),
    reinterpret_cast<const void *>(&MPIX_Win_free_notify),
    reinterpret_cast<const void *>(&MPIX_Win_get_notify),
    reinterpret_cast<const void *>(&MPIX_Win_set_notify),
    reinterpret_cast<const void *>(&MPIX_Put_notify),
    reinterpret_cast<const void *>(&MPIX_Get_notify),
    reinterpret_cast<const void *>(&MPI_Win_notify_set_num),
    reinterpret_cast<const void *>(&MPI_Win_notify_get_value),
    reinterpret_cast<const void *>(&MPI_Win_notify_set_value),
    reinterpret_cast<const void *>(&MPI_Win_notify_attach),
    reinterpret_cast<const void *>(&MPI_Win_notify_detach),
};
}  // namespace
