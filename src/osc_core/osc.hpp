// What osc_core offers the bindings: every notified-RMA procedure and every
// intercepted window call, on the library's own state. Arguments that need
// no window knowledge were checked by the caller.
#pragma once

#include <functional>
#include <memory>

#include "module.hpp"
#include "window.hpp"

namespace mpinotify {

// --- window life cycle (collective over the window's group)

// SEMANTICS 4.1-4.5: agrees on the info hints and the backend, creates the
// host window and the module with its initial reservation. On error every
// rank fails and nothing is left behind.
Status create_window(const CreateRequest &request, MPI_Win *win);

// The size to ask MPI_Win_allocate for. MPICH 4.0.2 misplaces other ranks'
// memory in RMA on MPI_Win_allocate windows whose per-rank size is not a
// multiple of 16 bytes (MPI_Put lands in the wrong rank's memory), so there
// the library asks for the next multiple of 16.
MPI_Aint host_allocation_size(MPI_Aint size);

// MPI_Win_get_attr for MPI_WIN_SIZE or MPI_WIN_CREATE_FLAVOR where the
// library made the host window differ from the request (padded size,
// allocate placed in shared memory): the value the program must see;
// nullptr when the host's answer stands.
const void *visible_attribute(MPI_Win win, int keyval);

// SEMANTICS 4.6: releases everything the library holds, then the host window.
Status free_window(MPI_Win *win);

// --- dynamic windows: the library's part of MPI_Win_attach (after the
// host attached) and MPI_Win_detach (before the host detaches), and the
// range check of SEMANTICS 3.4 against the target's attached memory.
Status attach_memory(Window &window, void *base, MPI_Aint size);
Status detach_memory(Window &window, const void *base);
Status check_attached(Window &window, const NotifyOp &op);

// --- counters (SEMANTICS 2)

Status set_num_notify(Window &window, int num_notifications);
Status get_num_notify(Window &window, int target_rank, int *num_notifications);
// read_counter and reset_counter: hot_path.hpp.
Status notify_threshold(Window &window, int idx, MPI_Count threshold, MPI_Request *request);

// --- notified operations (SEMANTICS 3), after the binding's argument checks
// Fills op.target_shape on the way.
Status notify(Window &window, NotifyOp &op, MPI_Request *request);

// --- window synchronisation: the module's hooks around the host call, and
// the epoch bookkeeping once it succeeded. `host_call` returns the host's
// code; errors from it were reported by the host.
Status synchronize(Window &window, SyncCall &call, HostCall host_call);

// Window ranks of the members of `group` (for MPI_Win_start / MPI_Win_post).
Status window_ranks(Window &window, MPI_Group group, std::vector<int> &ranks);

// MPI_Win_get_info: adds the library's keys to a host info object.
Status describe_window(Window &window, MPI_Info info);

// MPI_Win_set_info: a copy of `info` without the keys the library owns
// (the caller frees it).
Status strip_library_keys(MPI_Info info, MPI_Info *stripped);

}  // namespace mpinotify
