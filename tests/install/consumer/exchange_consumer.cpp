// The exchange used from outside the project: each rank sends its right
// neighbour three messages with payloads and checks its left neighbour's.
// Exit 0 on success.
#include <mpinotify/exchange.hpp>

#include <chrono>
#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size;
  const int left = (rank + size - 1) % size;
  std::vector<int> peers;
  if (right != rank) peers.push_back(right);
  if (left != rank && left != right) peers.push_back(left);
  int failed = 0;
  {
    auto resource = mpinotify::BufferResource::create({.host_limit = 1 << 20});
    auto exchange = mpinotify::make_exchange(mpinotify::ExchangeKind::TAG, MPI_COMM_WORLD, 1, peers,
                                             mpinotify::default_allocate_fn(),
                                             std::chrono::milliseconds(100), resource);
    if (right != rank) {
      for (int i = 0; i < 3; ++i) {
        const std::vector<std::byte> bytes(100, std::byte(rank + i));
        exchange->send(std::make_unique<mpinotify::Message>(
            right, std::vector<std::uint8_t>{std::uint8_t(i)}, resource->make_host_buffer(bytes)));
      }
    }
    exchange->finish();
    std::vector<std::unique_ptr<mpinotify::Message>> got;
    while (!exchange->is_idle()) {
      exchange->progress();
      for (auto &message : exchange->recv()) got.push_back(std::move(message));
    }
    for (std::size_t i = 0; i < got.size(); ++i) {
      const auto &message = *got[i];
      if (message.peer_rank() != left || message.metadata().at(0) != i ||
          message.data()->data()[0] != std::byte(left + int(i))) {
        std::fprintf(stderr, "rank %d: message %zu is wrong\n", rank, i);
        failed = 1;
      }
    }
    if (got.size() != (right != rank ? 3U : 0U)) {
      std::fprintf(stderr, "rank %d: %zu messages\n", rank, got.size());
      failed = 1;
    }
  }
  MPI_Finalize();
  return failed;
}
