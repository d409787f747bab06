// Helpers of the exchange conformance suite. Every test is collective over
// a communicator of its own (a duplicate of MPI_COMM_WORLD, so nothing a
// test leaves behind reaches the next) and runs once per implementation;
// each rank checks what it can know. Every wait has a deadline and fails
// instead of hanging.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "mpinotify/exchange.hpp"

namespace exchtest {

using mpinotify::AllocateFn;
using mpinotify::Buffer;
using mpinotify::BufferResource;
using mpinotify::ExchangeKind;
using mpinotify::Message;
using mpinotify::MetadataPayloadExchange;

// The implementations under test: a new one is one more value here.
inline const std::vector<ExchangeKind> kKinds = {ExchangeKind::TAG, ExchangeKind::NOTIFIED};
std::string kind_name(const testing::TestParamInfo<ExchangeKind> &info);

inline constexpr std::chrono::seconds kDeadline{30};
// An allocation timeout the tests never reach.
inline constexpr std::chrono::hours kNoForcing{1};

using Messages = std::vector<std::unique_ptr<Message>>;

// The base of every parameterised suite: a fresh communicator per test,
// freed only after the last test: a test may leave messages of destroyed
// exchanges behind, and a freed communicator's context id, reused by the
// next one, would hand them to the next test (seen with Open MPI).
class ExchangeTest : public testing::TestWithParam<ExchangeKind> {
 protected:
  void SetUp() override;

  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Whether the job has `ranks` processes (the same answer on every rank,
  // so a test skips on all alike).
  bool has_ranks(int ranks) const { return size_ >= ranks; }

  struct Make {
    std::vector<int> peers;
    AllocateFn allocate = mpinotify::default_allocate_fn();
    std::chrono::nanoseconds timeout = kNoForcing;
    std::shared_ptr<BufferResource> resource{};  // null: a roomy one
    mpinotify::ExchangeOptions options = {};
  };
  std::unique_ptr<MetadataPayloadExchange> make(int op_id, Make how) const;

  // Every other rank, and this rank's ring neighbours (without repeats).
  std::vector<int> all_others() const;
  std::vector<int> neighbours() const;
  int right() const { return (rank_ + 1) % size_; }
  int left() const { return (rank_ + size_ - 1) % size_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

// A resource with room for everything the tests send.
std::shared_ptr<BufferResource> roomy_resource();

// Polls `done` until it holds or the deadline passes (then a failure
// naming `what`).
bool wait_until(const std::function<bool()> &done, const std::string &what,
                std::chrono::nanoseconds deadline = kDeadline);
// Progress until `done` or the deadline (then a failure naming `what`).
bool drive_until(MetadataPayloadExchange &exchange, const std::function<bool()> &done,
                 const std::string &what, std::chrono::nanoseconds deadline = kDeadline);
// Progress until progress() throws an E: the exception, or nothing after
// the deadline (a failure). What recv() hands out meanwhile goes to `kept`
// (or is dropped).
template <class E>
std::optional<E> progress_until_thrown(MetadataPayloadExchange &exchange, const std::string &what,
                                       Messages *kept = nullptr) {
  std::optional<E> thrown;
  wait_until(
      [&] {
        try {
          exchange.progress();
          for (auto &message : exchange.recv()) {
            if (kept != nullptr) kept->push_back(std::move(message));
          }
        } catch (const E &error) {
          thrown = error;
        }
        return thrown.has_value();
      },
      what);
  return thrown;
}
// Progress until `count` messages came out of recv(), appended to `into`.
bool receive_count(MetadataPayloadExchange &exchange, std::size_t count, Messages &into,
                   const std::string &what);

// finish() then progress until idle, collecting what recv() and
// release_sent() hand out; several exchanges are driven together.
struct Drained {
  Messages received;
  Messages released;
};
bool finish_and_drain(const std::vector<MetadataPayloadExchange *> &exchanges,
                      std::vector<Drained> &drained, const std::string &what);
bool finish_and_drain(MetadataPayloadExchange &exchange, Drained &drained, const std::string &what);

// Metadata naming its exchange, sender and index (plus `extra` filler).
struct Stamp {
  int op_id = -1;
  int sender = -1;
  int index = -1;
  bool operator==(const Stamp &) const = default;
};
std::vector<std::uint8_t> stamp(Stamp what, std::size_t extra = 0);
std::optional<Stamp> read_stamp(const std::vector<std::uint8_t> &metadata);

// Payload bytes that depend on (sender, index, offset).
std::vector<std::byte> pattern(int sender, int index, std::size_t size);
std::unique_ptr<Buffer> pattern_buffer(BufferResource &resource, int sender, int index,
                                       std::size_t size);
// A buffer's bytes, read from its file if it is on disk.
std::vector<std::byte> bytes_of(const Buffer &buffer);

// A directory for spill files, removed with everything in it.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;
  const std::filesystem::path &path() const { return path_; }
  std::size_t file_count() const;

 private:
  std::filesystem::path path_;
};

// Collective: true on every rank iff `value` is true on every rank.
bool all_ranks(MPI_Comm comm, bool value);
// Point-to-point signals outside the exchange (tag 0 of the test's
// communicator; the exchange's tags count down from MPI_TAG_UB).
void signal(MPI_Comm comm, int to);
bool await_signal(MPI_Comm comm, int from, const std::string &what);

}  // namespace exchtest
