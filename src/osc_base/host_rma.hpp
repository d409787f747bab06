// The base operation of a notified operation, issued through the host MPI
// on the user's window. Shared by every backend that lets the host move
// the data.
#pragma once

#include "deferred.hpp"
#include "osc_core/module.hpp"

namespace mpinotify {

// Issues op's base operation (MPI_Put, MPI_Get, MPI_Accumulate or
// MPI_Get_accumulate) on `win`, whatever the size of its counts. Errors
// were already reported by the host to the window's handler.
Status host_base_op(const NotifyOp &op, MPI_Win win);

// The data part of a notified operation through the host, in the epoch
// `mode` that covers its target: the base operation, then, in a
// passive-target epoch, a flush so the data is complete at the target
// (`increment_now` is set: the caller increments the counter); in an
// active-target epoch the increment is owed to the epoch's end (`deferred`).
Status host_data_part(const NotifyOp &op, Window &window, EpochMode mode,
                      DeferredNotifications &deferred, bool &increment_now);

}  // namespace mpinotify
