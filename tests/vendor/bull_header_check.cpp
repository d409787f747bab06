// mpinotify/mpix_bull.h compiles as C++ (the project's warnings, -Werror):
// every call's address is taken, so each inline definition is compiled.
// SPDX-License-Identifier: BSD-3-Clause
#include <mpinotify/mpix_bull.h>

namespace {
[[maybe_unused]] const void *const bull_calls[] = {
    reinterpret_cast<const void *>(&MPIX_Win_allocate_notify),
    reinterpret_cast<const void *>(&MPIX_Win_create_notify),
    reinterpret_cast<const void *>(&MPIX_Put_notify),
    reinterpret_cast<const void *>(&MPIX_Get_notify),
    reinterpret_cast<const void *>(&MPIX_Win_wait_notify),
    reinterpret_cast<const void *>(&MPIX_Win_test_notify),
    reinterpret_cast<const void *>(&mpinotify_bull_max_notification_idx),
};
}  // namespace
