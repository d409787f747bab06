// The arguments every implementation is made from, checked once (contract
// point 3) before anything communicates, so that every rank given the same
// bad arguments throws alike.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "mpinotify/exchange.hpp"

namespace mpinotify::detail {

struct ExchangeSetup {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;  // this process in comm
  int op_id = 0;
  std::vector<int> peers;  // as the caller listed them
  AllocateFn allocate;
  std::chrono::nanoseconds allocation_timeout{0};
  std::shared_ptr<BufferResource> resource;
  ExchangeOptions options;
};

// Throws std::invalid_argument or std::out_of_range as make_exchange says.
ExchangeSetup check_setup(MPI_Comm comm, int op_id, std::vector<int> peers, AllocateFn allocate,
                          std::chrono::nanoseconds allocation_timeout,
                          std::shared_ptr<BufferResource> resource, ExchangeOptions options);

// MPI_TAG_UB of comm (of MPI_COMM_WORLD where comm does not carry it).
int tag_upper_bound(MPI_Comm comm);

// Rank -> position in the peer list, for ranks that are peers.
class PeerIndex {
 public:
  explicit PeerIndex(const std::vector<int> &peers);
  std::optional<std::size_t> find(int rank) const noexcept;

 private:
  std::vector<std::pair<int, std::size_t>> sorted_;
};

}  // namespace mpinotify::detail
