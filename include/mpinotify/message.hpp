// One message of the metadata + payload exchange.
//
// SPDX-License-Identifier: BSD-3-Clause
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "mpinotify/buffer.hpp"

namespace mpinotify {

// What the exchange does with a sent message once its send has completed.
enum class AfterSend {
  DISCARD,  // drop it (and its payload)
  RETAIN,   // hand it back, unchanged, through release_sent()
};

namespace detail {
struct MessageAccess;
}

// Outgoing: its destination, metadata and optional payload. Incoming: its
// source, metadata and payload (nullptr when the sender sent none).
class Message {
 public:
  Message(int peer_rank, std::vector<std::uint8_t> metadata, std::unique_ptr<Buffer> data = nullptr,
          AfterSend after_send = AfterSend::DISCARD) noexcept;

  int peer_rank() const noexcept { return peer_rank_; }
  const std::vector<std::uint8_t> &metadata() const noexcept { return metadata_; }
  // Moves the metadata out, leaving it empty.
  std::vector<std::uint8_t> release_metadata() noexcept;
  const Buffer *data() const noexcept { return data_.get(); }
  Buffer *data() noexcept { return data_.get(); }
  // Moves the payload out, leaving data() == nullptr.
  std::unique_ptr<Buffer> release_data() noexcept;
  // Gives a message without payload its payload; std::logic_error if it
  // already has one.
  void set_data(std::unique_ptr<Buffer> data);
  AfterSend after_send() const noexcept { return after_send_; }
  // Incoming only: its receive buffer was allocated with MUST_SUCCEED.
  bool forced() const noexcept { return forced_; }

 private:
  friend struct detail::MessageAccess;

  int peer_rank_;
  std::vector<std::uint8_t> metadata_;
  std::unique_ptr<Buffer> data_;
  AfterSend after_send_;
  bool forced_ = false;
};

}  // namespace mpinotify
