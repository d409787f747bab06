// Transfers an exchange left incomplete when it was destroyed. MPI may
// still read or write their memory, so they are kept, with that memory,
// until MPI completes them; every exchange's progress() sweeps them. What
// remains at exit is freed without MPI calls.
#pragma once

#include <memory>

#include "mpinotify/message.hpp"
#include "transport.hpp"

namespace mpinotify::detail {

// Keeps `transfer` and `memory` (the message whose bytes it uses; may be
// null) until the transfer completes.
void adopt_orphan(std::unique_ptr<Transfer> transfer, std::unique_ptr<Message> memory) noexcept;
// Frees the orphans that have completed (not after MPI_Finalize).
void sweep_orphans() noexcept;
// MPI_Init has run and MPI_Finalize has not: MPI may be called.
bool mpi_running() noexcept;

}  // namespace mpinotify::detail
