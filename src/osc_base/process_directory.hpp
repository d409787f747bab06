// The process manager's key-value store (PMIx), where the MPI runs on it.
//
// A network backend's address (a UCX worker address, a libfabric endpoint
// name) is the same for every window and group a process joins. Exchanged
// per group, every rank receives and keeps every member's address: O(N)
// per rank, however few peers it talks to. Published once in the store
// instead, under a key that names what it is, a peer reads it on its first
// use: a rank keeps the addresses of the peers it reached.
//
// Used only where the launcher serves PMIx to this process, the host MPI
// initialised PMIx (its client is the one used), and the PMIx identity is
// the MPI_COMM_WORLD rank in a job of MPI_COMM_WORLD's size (Open MPI's
// mpirun, Slurm with PMIx); elsewhere (MPICH's hydra, a
// singleton, a build without PMIx) there is no directory and groups
// exchange addresses (peer_addresses.hpp).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "osc_core/status.hpp"

namespace mpinotify {

class PeerDeadline;

class ProcessDirectory {
 public:
  // This process's directory, or nullptr where it has none (looked for
  // once, on the first call; never after release()).
  static ProcessDirectory *instance();
  // At MPI_Finalize: no directory from now on (the PMIx client is the
  // host MPI's, which it finalises).
  static void release();

  ProcessDirectory(const ProcessDirectory &) = delete;
  ProcessDirectory &operator=(const ProcessDirectory &) = delete;

  // Publishes `value` under `key` for every process of the job. A peer may
  // read it once this process has passed a collective that followed.
  Status publish(const std::string &key, const std::string &value);
  // What the process of MPI_COMM_WORLD rank `world_rank` published under
  // `key`: read from the store on first use, before `deadline`, then kept.
  Status lookup(const std::string &key, int world_rank, PeerDeadline &deadline, std::string &out);

 private:
  ProcessDirectory() = default;
  std::mutex mutex_;
  std::map<std::pair<std::string, int>, std::string> known_;
};

}  // namespace mpinotify
