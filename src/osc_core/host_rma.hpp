// The base operation of a notified operation, issued through the host MPI
// on the user's window. Shared by every backend that lets the host move
// the data.
#pragma once

#include "module.hpp"

namespace mpinotify {

// Issues op's base operation (MPI_Put, MPI_Get, MPI_Accumulate or
// MPI_Get_accumulate) on `win`, whatever the size of its counts. Errors
// were already reported by the host to the window's handler.
Status host_base_op(const NotifyOp &op, MPI_Win win);

}  // namespace mpinotify
