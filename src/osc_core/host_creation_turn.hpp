// One host window creation at a time per node and communicator leader,
// where the host needs that: Open MPI before 5.0 names the shared-memory
// file behind a window by node, job and communicator context id, and the
// communicators of one MPI_Comm_split share a context id, so windows made
// at the same time over two of them open the same file and corrupt each
// other or fail (open-mpi/ompi#9492).
#pragma once

#include <optional>
#include <string>

#include "mpi_host.hpp"
#include "status.hpp"

namespace mpinotify {

// Pure: whether the host whose MPI_Get_library_version reads `version`
// names window files by context id alone (Open MPI before 5).
bool host_shares_window_files(const std::string &version);

// Collective over `comm` (the library's communicator of a window being
// made): returns once this node's turn is held for the creation by the
// lowest rank of `comm` on each node, or at once where the host does not
// need turns. `single_node`: every rank of `comm` shares this node. The
// turn is let go when this object goes, after the host's creation
// returned. The ranks agree before anyone calls the host: where some
// node's turn is taken by another communicator's creation, every holder
// lets go and all try again a little later (no rank waits for a turn
// while holding one, so creations over overlapping groups across nodes
// cannot wait on each other forever).
class HostCreationTurn {
 public:
  HostCreationTurn() = default;
  HostCreationTurn(const HostCreationTurn &) = delete;
  HostCreationTurn &operator=(const HostCreationTurn &) = delete;
  ~HostCreationTurn() { let_go(); }

  Status take(MPI_Comm comm, bool single_node);

 private:
  // False only while another process holds this node's turn.
  bool try_hold();
  void let_go();

  int socket_ = -1;  // bound to this node's name while the turn is held
};

}  // namespace mpinotify
