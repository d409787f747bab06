#include "exchange_setup.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "mpi_call.hpp"

namespace mpinotify {

// Each op id takes two tags (records, payloads) of the tag implementation;
// every implementation accepts the same range, so conformance is alike.
int max_exchange_op_id(MPI_Comm comm) { return (detail::tag_upper_bound(comm) - 1) / 2; }

namespace detail {

int tag_upper_bound(MPI_Comm comm) {
  int *value = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, MPI_TAG_UB, &value, &found), "MPI_Comm_get_attr(MPI_TAG_UB)");
  if (found == 0 || value == nullptr) {
    check_mpi(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &found),
              "MPI_Comm_get_attr(MPI_TAG_UB)");
  }
  if (found == 0 || value == nullptr) throw std::runtime_error("mpinotify exchange: no MPI_TAG_UB");
  return *value;
}

ExchangeSetup check_setup(MPI_Comm comm, int op_id, std::vector<int> peers, AllocateFn allocate,
                          std::chrono::nanoseconds allocation_timeout,
                          std::shared_ptr<BufferResource> resource, ExchangeOptions options) {
  const std::string where = "mpinotify exchange (op id " + std::to_string(op_id) + "): ";
  if (comm == MPI_COMM_NULL) throw std::invalid_argument(where + "MPI_COMM_NULL");
  int inter = 0;
  check_mpi(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  if (inter != 0) throw std::invalid_argument(where + "an intercommunicator");
  ExchangeSetup setup;
  int size = 0;
  check_mpi(MPI_Comm_rank(comm, &setup.rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  const int max_op_id = max_exchange_op_id(comm);
  if (op_id < 0 || op_id > max_op_id) {
    throw std::out_of_range(where + "op id outside 0.." + std::to_string(max_op_id));
  }
  std::vector<int> sorted;
  sorted.reserve(peers.size());
  for (const int peer : peers) {
    if (peer < 0 || peer >= size) {
      throw std::out_of_range(where + "peer " + std::to_string(peer) +
                              " is not a rank of the communicator (size " + std::to_string(size) +
                              ")");
    }
    if (peer == setup.rank) throw std::invalid_argument(where + "this rank among its own peers");
    sorted.push_back(peer);
  }
  std::sort(sorted.begin(), sorted.end());
  const auto repeated = std::adjacent_find(sorted.begin(), sorted.end());
  if (repeated != sorted.end()) {
    throw std::invalid_argument(where + "peer " + std::to_string(*repeated) + " listed twice");
  }
  if (!allocate) throw std::invalid_argument(where + "no allocate function");
  if (allocation_timeout.count() < 0) throw std::invalid_argument(where + "negative timeout");
  if (!resource) throw std::invalid_argument(where + "no buffer resource");
  if (options.forced_receive != ForcedReceive::MOVE_TO_DISK &&
      options.forced_receive != ForcedReceive::KEEP_IN_MEMORY) {
    throw std::invalid_argument(where + "unknown ForcedReceive value");
  }
  setup.comm = comm;
  setup.op_id = op_id;
  setup.peers = std::move(peers);
  setup.allocate = std::move(allocate);
  setup.allocation_timeout = allocation_timeout;
  setup.resource = std::move(resource);
  setup.options = options;
  return setup;
}

PeerIndex::PeerIndex(const std::vector<int> &peers) {
  sorted_.reserve(peers.size());
  for (std::size_t i = 0; i < peers.size(); ++i) sorted_.emplace_back(peers[i], i);
  std::sort(sorted_.begin(), sorted_.end());
}

std::optional<std::size_t> PeerIndex::find(int rank) const noexcept {
  const auto it =
      std::lower_bound(sorted_.begin(), sorted_.end(), std::make_pair(rank, std::size_t{0}));
  if (it == sorted_.end() || it->first != rank) return std::nullopt;
  return it->second;
}

}  // namespace detail
}  // namespace mpinotify
