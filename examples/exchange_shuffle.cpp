// A shuffle on the metadata + payload exchange: every rank sends a few
// messages to every other rank (metadata "source:index"; no payload, 1 KiB
// or 100 KiB) and checks what it received: from each peer, every message,
// in the order sent, intact.
//
//   mpirun -n 3 ./exchange_shuffle [tag|notified]
//
// SPDX-License-Identifier: BSD-3-Clause
#include <mpinotify/exchange.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr int kMessages = 6;  // to each peer

// Message i of `source`: its metadata and its payload (empty: none).
std::vector<std::uint8_t> metadata_of(int source, int i) {
  const std::string text = std::to_string(source) + ":" + std::to_string(i);
  return {text.begin(), text.end()};
}
std::vector<std::byte> payload_of(int source, int i) {
  std::vector<std::byte> bytes(i % 3 == 0 ? 0 : i % 3 == 1 ? 1024 : 100 * 1024);
  for (std::size_t at = 0; at < bytes.size(); ++at)
    bytes[at] = static_cast<std::byte>((at + static_cast<std::size_t>(source * 31 + i * 7)) % 256);
  return bytes;
}

bool intact(const mpinotify::Message &message, int i) {
  const std::vector<std::byte> expected = payload_of(message.peer_rank(), i);
  if (message.metadata() != metadata_of(message.peer_rank(), i)) return false;
  if (message.data() == nullptr) return expected.empty();
  const auto bytes = message.data()->data();
  return std::equal(bytes.begin(), bytes.end(), expected.begin(), expected.end());
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string kind_name = argc > 1 ? argv[1] : "notified";
  if (kind_name != "tag" && kind_name != "notified") {
    if (rank == 0) std::fprintf(stderr, "usage: exchange_shuffle [tag|notified]\n");
    MPI_Finalize();
    return 2;
  }
  const auto kind =
      kind_name == "tag" ? mpinotify::ExchangeKind::TAG : mpinotify::ExchangeKind::NOTIFIED;
  std::vector<int> peers;  // every other rank
  for (int r = 0; r < size; ++r) {
    if (r != rank) peers.push_back(r);
  }
  std::map<int, int> received;  // messages per source
  int wrong = 0;
  try {
    auto resource = mpinotify::BufferResource::create({.host_limit = std::size_t{64} << 20});
    auto exchange = mpinotify::make_exchange(kind, MPI_COMM_WORLD, /*op_id=*/0, peers,
                                             mpinotify::default_allocate_fn(),
                                             std::chrono::milliseconds(100), resource);
    std::vector<std::unique_ptr<mpinotify::Message>> batch;
    for (const int peer : peers) {
      for (int i = 0; i < kMessages; ++i) {
        const std::vector<std::byte> payload = payload_of(rank, i);
        batch.push_back(std::make_unique<mpinotify::Message>(
            peer, metadata_of(rank, i),
            payload.empty() ? nullptr : resource->make_host_buffer(payload)));
      }
    }
    exchange->send(std::move(batch));
    exchange->finish();  // nothing more to send: each peer learns how many to expect
    while (!exchange->is_idle()) {
      exchange->progress();
      for (const auto &message : exchange->recv()) {
        if (!intact(*message, received[message->peer_rank()]++)) ++wrong;
      }
    }
  } catch (const std::exception &error) {
    std::fprintf(stderr, "rank %d: %s\n", rank, error.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int total = 0;
  for (const int peer : peers) {
    total += received[peer];
    if (received[peer] != kMessages) ++wrong;
  }
  std::printf("rank %d (%s): %d messages from %zu peers, %s\n", rank, kind_name.c_str(), total,
              peers.size(), wrong == 0 ? "all intact" : "MISMATCH");
  MPI_Finalize();
  return wrong == 0 ? 0 : 1;
}
