// How the notified exchange moves a large payload, per peer. The ring
// (notified_channels.hpp) copies a payload twice, into the ring by the
// put and out of it at the receiver, and moves it in ring-sized pieces,
// each waiting for credit. On the sm and pmpi backends that is still the
// fastest way within a node (the ring stays in cache). Elsewhere, above a
// size, two routes beat it:
// - MESSAGE: the payload goes as a message of its own on the op id's
//   payload tag, as in the tag-based exchange; the host MPI's rendezvous
//   moves it into the receive buffer at the speed of the host's own data
//   path, which the network backends' puts do not reach (tcp between or
//   within hosts, and ofi even on its shm provider).
// - PULL (ucx on shared memory, the largest payloads): the sender
//   attaches the payload to a dynamic window and sends its address in the
//   record; the receiver, once its buffer is allocated, gets it straight
//   into that buffer with one MPI_Rget_notify, whose notification at the
//   sender (a counter per peer) says the payload was read: the send's
//   completion. One copy. One pull per peer is in flight at a time, so
//   that the sender's counter, a count, tells which payloads were read.
// The sender chooses and says so in the record's flags; a receiver takes
// any route. docs/exchange.md has the measurements behind the choice.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace mpinotify::detail {

enum class PayloadRoute : std::uint8_t { RING, PULL, MESSAGE };

// Which routes large payloads may take. BY_LOCALITY: MESSAGE to peers on
// other nodes; within the node, by the backend's data path: RING on sm
// and pmpi, MESSAGE and (larger) PULL on ucx over shared memory, MESSAGE
// on ucx over a network and on ofi. The others: that route for all peers.
enum class LargePayloads : std::uint8_t { BY_LOCALITY, RING, PULL, MESSAGE };

struct RouteOptions {
  LargePayloads large = LargePayloads::BY_LOCALITY;
  std::size_t pull_from_bytes = std::size_t{2} << 20;  // payloads this large or larger
  std::size_t message_from_bytes = std::size_t{64} << 10;
  bool operator==(const RouteOptions &) const = default;
};

// The default routes, or those MPINOTIFY_EXCHANGE_LARGE names (auto,
// ring, pull, message): where the backend's transport is slower than the
// host MPI's messages, as over tcp within one host, `message` is faster.
// Another value is reported on stderr and ignored.
RouteOptions route_options_from_environment();

class PayloadRoutes {
 public:
  // Collective over comm (Channels::open): the locality of the peers and,
  // unless no peer is ever pulled from, the dynamic window.
  void open(MPI_Comm comm, int op_id, const std::vector<int> &peers,
            const std::vector<int> &index_at_peer, const RouteOptions &options,
            const std::string &backend);
  void close() noexcept;   // collective
  void forget() noexcept;  // MPI finalizes: the window is gone
  bool closed() const noexcept { return closed_; }
  // Counters of the dynamic window (its memory is the payloads', attached).
  std::size_t counters() const noexcept {
    return win_ != MPI_WIN_NULL && !closed_ ? peers_.size() : 0;
  }

  // Not PULL while kMaxExposed payloads are attached: the host MPI caps
  // the regions attached to a window (Open MPI: 32 by default), and more
  // at once slowed the pulls (16: half the rate).
  PayloadRoute route(std::size_t peer, std::size_t bytes) const noexcept;
  static constexpr std::size_t kMaxExposed = 4;

  // PULL, sending: attaches the payload; returns its location for the
  // record and the number its pull will have (1, 2, ... per peer).
  struct Exposed {
    std::uint64_t location = 0;
    std::uint64_t number = 0;
  };
  Exposed expose(std::size_t peer, std::span<const std::byte> payload);
  // Whether the peer's pull `number` completed; detaches it then.
  bool pulled(std::size_t peer, std::uint64_t number, std::span<const std::byte> payload);
  // Detaches a payload whose record never went.
  void unexpose(std::span<const std::byte> payload);

  // PULL, receiving: queued behind the peer's pull in flight; drive with
  // advance(). A location the peer did not expose is a ProtocolError.
  struct Pull {
    std::uint64_t location = 0;
    std::span<std::byte> into;
    MPI_Request request = MPI_REQUEST_NULL;
    bool started = false;
    bool done = false;
  };
  std::shared_ptr<Pull> pull(std::size_t peer, std::uint64_t location, std::span<std::byte> into);
  void advance(std::size_t peer);
  // Takes a pull not yet started out of its queue (false: it started).
  bool withdraw(std::size_t peer, const Pull &pull);

  // MESSAGE.
  MPI_Comm comm() const noexcept { return comm_; }
  int payload_tag() const noexcept { return payload_tag_; }
  int rank_of(std::size_t peer) const noexcept { return peers_[peer]; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int op_id_ = 0;
  std::vector<int> peers_;
  std::vector<int> index_at_peer_;
  RouteOptions options_;
  int payload_tag_ = 0;
  struct PeerRoutes {
    bool pull = false;
    bool message = false;
  };
  static PeerRoutes routes_within_node(const std::string &backend);
  std::vector<PeerRoutes> large_;                         // per peer
  std::vector<std::uint64_t> exposed_;                    // per peer: payloads exposed
  std::size_t attached_ = 0;                              // payloads attached now
  std::vector<std::deque<std::shared_ptr<Pull>>> pulls_;  // per peer; the front in flight
  MPI_Win win_ = MPI_WIN_NULL;  // dynamic; counter per peer: its pulls from here
  bool closed_ = false;
};

}  // namespace mpinotify::detail
