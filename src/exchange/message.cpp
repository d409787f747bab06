#include "mpinotify/message.hpp"

#include <stdexcept>
#include <utility>

namespace mpinotify {

Message::Message(int peer_rank, std::vector<std::uint8_t> metadata, std::unique_ptr<Buffer> data,
                 AfterSend after_send) noexcept
    : peer_rank_(peer_rank),
      metadata_(std::move(metadata)),
      data_(std::move(data)),
      after_send_(after_send) {}

std::vector<std::uint8_t> Message::release_metadata() noexcept {
  return std::exchange(metadata_, std::vector<std::uint8_t>{});
}

std::unique_ptr<Buffer> Message::release_data() noexcept { return std::move(data_); }

void Message::set_data(std::unique_ptr<Buffer> data) {
  if (data_) throw std::logic_error("Message::set_data: the message already has a payload");
  data_ = std::move(data);
}

}  // namespace mpinotify
