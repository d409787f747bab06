#include "exchange_harness.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <thread>

namespace exchtest {
namespace {

using Clock = std::chrono::steady_clock;

// Oversubscribed runs (4 ranks on 2 cores) need busy loops to yield.
void pause() { std::this_thread::yield(); }

// The tests' communicators, freed together once every test has run (no
// later one can inherit a context id, and no leak checker sees them).
std::vector<MPI_Comm> &test_communicators() {
  static std::vector<MPI_Comm> communicators;
  return communicators;
}

class FreeTestCommunicators : public testing::Environment {
 public:
  void TearDown() override {
    for (MPI_Comm &comm : test_communicators()) MPI_Comm_free(&comm);
    test_communicators().clear();
  }
};

[[maybe_unused]] const testing::Environment *const kFreeTestCommunicators =
    testing::AddGlobalTestEnvironment(new FreeTestCommunicators);

}  // namespace

std::string kind_name(const testing::TestParamInfo<ExchangeKind> &info) {
  return std::string(mpinotify::to_string(info.param));
}

void ExchangeTest::SetUp() {
  ASSERT_EQ(MPI_SUCCESS, MPI_Comm_dup(MPI_COMM_WORLD, &comm_));
  test_communicators().push_back(comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

std::unique_ptr<MetadataPayloadExchange> ExchangeTest::make(int op_id, Make how) const {
  if (!how.resource) how.resource = roomy_resource();
  return mpinotify::make_exchange(GetParam(), comm_, op_id, std::move(how.peers),
                                  std::move(how.allocate), how.timeout, std::move(how.resource),
                                  how.options);
}

std::vector<int> ExchangeTest::all_others() const {
  std::vector<int> others;
  for (int r = 0; r < size_; ++r) {
    if (r != rank_) others.push_back(r);
  }
  return others;
}

std::vector<int> ExchangeTest::neighbours() const {
  std::set<int> unique{left(), right()};
  unique.erase(rank_);
  return {unique.begin(), unique.end()};
}

std::shared_ptr<BufferResource> roomy_resource() {
  return BufferResource::create({.host_limit = std::size_t{1} << 30});
}

bool wait_until(const std::function<bool()> &done, const std::string &what,
                std::chrono::nanoseconds deadline) {
  const Clock::time_point give_up = Clock::now() + deadline;
  while (!done()) {
    if (Clock::now() > give_up) {
      ADD_FAILURE() << "deadline passed waiting for " << what;
      return false;
    }
    pause();
  }
  return true;
}

bool drive_until(MetadataPayloadExchange &exchange, const std::function<bool()> &done,
                 const std::string &what, std::chrono::nanoseconds deadline) {
  return wait_until(
      [&] {
        if (done()) return true;
        exchange.progress();
        return false;
      },
      what, deadline);
}

bool receive_count(MetadataPayloadExchange &exchange, std::size_t count, Messages &into,
                   const std::string &what) {
  const std::size_t target = into.size() + count;
  return drive_until(
      exchange,
      [&] {
        for (auto &message : exchange.recv()) into.push_back(std::move(message));
        return into.size() >= target;
      },
      what);
}

bool finish_and_drain(const std::vector<MetadataPayloadExchange *> &exchanges,
                      std::vector<Drained> &drained, const std::string &what) {
  drained.resize(exchanges.size());
  for (MetadataPayloadExchange *exchange : exchanges) exchange->finish();
  return wait_until(
      [&] {
        bool all_idle = true;
        for (std::size_t i = 0; i < exchanges.size(); ++i) {
          MetadataPayloadExchange &exchange = *exchanges[i];
          exchange.progress();
          std::ranges::move(exchange.recv(), std::back_inserter(drained[i].received));
          std::ranges::move(exchange.release_sent(), std::back_inserter(drained[i].released));
          all_idle = all_idle && exchange.is_idle();
        }
        return all_idle;
      },
      "draining " + what);
}

bool finish_and_drain(MetadataPayloadExchange &exchange, Drained &drained,
                      const std::string &what) {
  std::vector<Drained> one(1);
  const bool ok = finish_and_drain({&exchange}, one, what);
  drained = std::move(one[0]);
  return ok;
}

std::vector<std::uint8_t> stamp(Stamp what, std::size_t extra) {
  std::vector<std::uint8_t> metadata(3 * sizeof(int) + extra);
  std::memcpy(metadata.data(), &what.op_id, sizeof(int));
  std::memcpy(metadata.data() + sizeof(int), &what.sender, sizeof(int));
  std::memcpy(metadata.data() + 2 * sizeof(int), &what.index, sizeof(int));
  for (std::size_t i = 0; i < extra; ++i) {
    metadata[3 * sizeof(int) + i] = static_cast<std::uint8_t>(i * 7 + 1);
  }
  return metadata;
}

std::optional<Stamp> read_stamp(const std::vector<std::uint8_t> &metadata) {
  if (metadata.size() < 3 * sizeof(int)) return std::nullopt;
  Stamp what;
  std::memcpy(&what.op_id, metadata.data(), sizeof(int));
  std::memcpy(&what.sender, metadata.data() + sizeof(int), sizeof(int));
  std::memcpy(&what.index, metadata.data() + 2 * sizeof(int), sizeof(int));
  return what;
}

std::vector<std::byte> pattern(int sender, int index, std::size_t size) {
  std::vector<std::byte> bytes(size);
  for (std::size_t i = 0; i < size; ++i) {
    bytes[i] = static_cast<std::byte>(
        (i * 31 + static_cast<std::size_t>(sender) * 7 + static_cast<std::size_t>(index) * 13) &
        0xFFU);
  }
  return bytes;
}

std::unique_ptr<Buffer> pattern_buffer(BufferResource &resource, int sender, int index,
                                       std::size_t size) {
  return resource.make_host_buffer(pattern(sender, index, size));
}

std::vector<std::byte> bytes_of(const Buffer &buffer) {
  if (buffer.in_memory()) return {buffer.data().begin(), buffer.data().end()};
  std::vector<std::byte> bytes(buffer.size());
  std::ifstream in(buffer.path(), std::ios::binary);
  in.read(reinterpret_cast<char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  EXPECT_TRUE(in.good()) << "cannot read " << buffer.path();
  return bytes;
}

ScratchDir::ScratchDir() {
  static std::atomic<int> made{0};
  path_ = std::filesystem::temp_directory_path() /
          ("mpinotify-exchange-test-" + std::to_string(::getpid()) + "-" + std::to_string(made++));
  std::filesystem::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::size_t ScratchDir::file_count() const {
  return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(path_),
                                                std::filesystem::directory_iterator()));
}

bool all_ranks(MPI_Comm comm, bool value) {
  int mine = value ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  return all == 1;
}

void signal(MPI_Comm comm, int to) {
  int token = 1;
  MPI_Send(&token, 1, MPI_INT, to, 0, comm);
}

bool await_signal(MPI_Comm comm, int from, const std::string &what) {
  int token = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Irecv(&token, 1, MPI_INT, from, 0, comm, &request);
  const bool came = wait_until(
      [&] {
        int done = 0;
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        return done != 0;
      },
      "rank " + std::to_string(from) + ": " + what);
  if (!came) {
    MPI_Cancel(&request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  }
  return came;
}

}  // namespace exchtest
