// The message exchange (include/mpinotify/exchange.hpp): an all-to-all
// shuffle in which every rank sends M messages (64 bytes of metadata and
// a payload of the given size) to every other rank, for the tag-based and
// the notified implementation interleaved in one run, on whatever backend
// the library chooses (MPINOTIFY_BACKEND). Per payload size: messages per
// second and payload GB/s over the slowest rank's time from its first send
// to idle (after finish), medians of the rounds, and the ratio
// notified/tag. Every payload is checked on arrival; a wrong or missing
// one fails the run.
//
// --limited: a shuffle of 256 MiB per rank (1 GiB on four ranks) in 4 MiB
// payloads into a receive resource limited to 64 MiB (overbooking allowed
// for the forced receives, which are kept in memory), each payload checked
// and freed as it arrives: prints the peak receive memory against the
// limit plus one forced message.
//
//   exchange_bench [--json] [--quick] [--size=BYTES ...] [--limited]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_report.hpp"
#include "mpinotify/exchange.hpp"

namespace {

using mpinotify::BufferResource;
using mpinotify::ExchangeKind;
using mpinotify::Message;

constexpr std::size_t kMetadataBytes = 64;

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}
int size_of(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return size;
}

// The byte every payload of (sender, index) is filled with.
std::byte fill_of(int sender, int index) {
  return static_cast<std::byte>((sender * 31 + index * 7) & 0xff);
}

struct Shuffle {
  std::size_t payload_bytes = 0;
  int messages_per_peer = 0;
  std::shared_ptr<BufferResource> receive;  // receive buffers come from here
  mpinotify::ExchangeOptions options = {};
};

// Checks one arrived message: its metadata names sender and index, its
// payload (first, middle, last byte) carries their fill. False if wrong.
bool check(const Message &message, std::size_t payload_bytes) {
  const auto &metadata = message.metadata();
  if (metadata.size() != kMetadataBytes) return false;
  int sender = 0;
  int index = 0;
  std::memcpy(&sender, metadata.data(), sizeof sender);
  std::memcpy(&index, metadata.data() + sizeof sender, sizeof index);
  if (sender != message.peer_rank()) return false;
  if (payload_bytes == 0) return message.data() == nullptr;
  if (message.data() == nullptr || message.data()->size() != payload_bytes) return false;
  const auto bytes = message.data()->data();
  const std::byte fill = fill_of(sender, index);
  return bytes[0] == fill && bytes[payload_bytes / 2] == fill && bytes[payload_bytes - 1] == fill;
}

// One shuffle; returns the slowest rank's seconds from first send to idle
// (or a negative value if a message was wrong or missing anywhere).
double run_shuffle(ExchangeKind kind, int op_id, const Shuffle &how) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const int me = rank_of(comm);
  const int size = size_of(comm);
  std::vector<int> peers;
  for (int r = 0; r < size; ++r) {
    if (r != me) peers.push_back(r);
  }
  auto exchange =
      mpinotify::make_exchange(kind, comm, op_id, peers, mpinotify::default_allocate_fn(),
                               std::chrono::milliseconds(20), how.receive, how.options);
  auto send_memory = BufferResource::create({.host_limit = std::size_t{1} << 40});
  // Payloads are made before the clock starts.
  std::vector<std::unique_ptr<Message>> outgoing;
  for (int i = 0; i < how.messages_per_peer; ++i) {
    for (const int peer : peers) {
      std::vector<std::uint8_t> metadata(kMetadataBytes, 0);
      std::memcpy(metadata.data(), &me, sizeof me);
      std::memcpy(metadata.data() + sizeof me, &i, sizeof i);
      std::unique_ptr<mpinotify::Buffer> payload;
      if (how.payload_bytes > 0) {
        auto reservation = send_memory->reserve(how.payload_bytes);
        payload = send_memory->make_buffer(reservation, how.payload_bytes);
        std::memset(payload->data().data(), static_cast<int>(fill_of(me, i)), how.payload_bytes);
      }
      outgoing.push_back(std::make_unique<Message>(peer, std::move(metadata), std::move(payload)));
    }
  }
  const std::size_t expected = peers.size() * static_cast<std::size_t>(how.messages_per_peer);
  std::size_t received = 0;
  bool right = true;
  MPI_Barrier(comm);
  const double start = MPI_Wtime();
  exchange->send(std::move(outgoing));
  exchange->finish();
  while (!exchange->is_idle()) {
    exchange->progress();
    for (const auto &message : exchange->recv()) {
      right = right && check(*message, how.payload_bytes);
      ++received;
    }
  }
  double seconds = MPI_Wtime() - start;
  right = right && received == expected;
  int all_right = right ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all_right, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  return all_right != 0 ? seconds : -1.0;
}

const char *name_of(ExchangeKind kind) { return kind == ExchangeKind::TAG ? "tag" : "notified"; }

int throughput(bool json, bool quick, std::vector<std::size_t> sizes) {
  const int me = rank_of(MPI_COMM_WORLD);
  const int peers = size_of(MPI_COMM_WORLD) - 1;
  bench::Report report(json, me == 0, "notified");
  const char *backend = std::getenv("MPINOTIFY_BACKEND");
  report.note(std::to_string(peers + 1) + " ranks, backend " +
              (backend != nullptr ? backend : "default") +
              "; per size: msgs_per_s and payload gbytes_per_s, medians; x_vs: notified over tag");
  if (sizes.empty()) sizes = {0, 1024, 64 << 10, 1 << 20, 4 << 20};
  const int rounds = quick ? 3 : 7;
  for (const std::size_t bytes : sizes) {
    // About 24 MiB per rank and size (8 MiB quick), 16 to 2000 per peer.
    const std::size_t budget = (quick ? 8 : 24) << 20;
    const auto per_peer = static_cast<int>(
        std::clamp<std::size_t>(budget / (bytes + kMetadataBytes) / static_cast<std::size_t>(peers),
                                4, quick ? 500 : 2000));
    Shuffle how{bytes, per_peer, BufferResource::create({.host_limit = std::size_t{1} << 40})};
    std::map<std::string, std::vector<double>> seconds;
    // A first round of each kind makes and warms its channels.
    for (int round = -1; round < rounds; ++round) {
      for (const ExchangeKind kind : {ExchangeKind::TAG, ExchangeKind::NOTIFIED}) {
        const double s = run_shuffle(kind, kind == ExchangeKind::TAG ? 1 : 2, how);
        if (s < 0) {
          if (me == 0)
            std::fprintf(stderr, "exchange_bench: %s lost or garbled messages\n", name_of(kind));
          return 1;
        }
        if (round >= 0) seconds[name_of(kind)].push_back(s);
      }
    }
    const double messages = static_cast<double>(peers + 1) * peers * per_peer;
    std::map<std::string, double> rate;
    std::map<std::string, double> bandwidth;
    for (const auto &[kind, values] : seconds) {
      const double median = bench::median(values);
      rate[kind] = messages / median;
      bandwidth[kind] = messages * static_cast<double>(bytes) / median / 1e9;
    }
    report.add("msgs_per_s", bytes, rate);
    if (bytes > 0) report.add("gbytes_per_s", bytes, bandwidth);
  }
  return 0;
}

// The receive-limited shuffle: 4 MiB payloads, 256 MiB per rank.
int limited(bool json) {
  const int me = rank_of(MPI_COMM_WORLD);
  const int peers = size_of(MPI_COMM_WORLD) - 1;
  bench::Report report(json, me == 0, "notified");
  constexpr std::size_t kPayload = std::size_t{4} << 20;
  constexpr std::size_t kLimit = std::size_t{64} << 20;
  const int per_peer = std::max(1, static_cast<int>((std::size_t{256} << 20) / kPayload) / peers);
  report.note("receive limit 64 MiB, " + std::to_string(per_peer * peers) +
              " payloads of 4 MiB sent per rank; peak_mib: the largest receive memory of any rank");
  std::map<std::string, double> peak;
  std::map<std::string, double> seconds;
  for (const ExchangeKind kind : {ExchangeKind::TAG, ExchangeKind::NOTIFIED}) {
    Shuffle how{kPayload,
                per_peer,
                BufferResource::create({.host_limit = kLimit, .allow_overbooking = true}),
                {.forced_receive = mpinotify::ForcedReceive::KEEP_IN_MEMORY}};
    const double s = run_shuffle(kind, kind == ExchangeKind::TAG ? 3 : 4, how);
    if (s < 0) {
      if (me == 0)
        std::fprintf(stderr, "exchange_bench: %s lost or garbled messages\n", name_of(kind));
      return 1;
    }
    double most = static_cast<double>(how.receive->peak_in_use());
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    peak[name_of(kind)] = most / (1 << 20);
    seconds[name_of(kind)] = s * 1e6;
    if (me == 0 && most > static_cast<double>(kLimit + kPayload)) {
      std::fprintf(stderr, "exchange_bench: %s held %.1f MiB, above the limit plus one message\n",
                   name_of(kind), most / (1 << 20));
      return 1;
    }
  }
  report.add("limited_us", kPayload, seconds);
  char line[160];
  std::snprintf(line, sizeof line,
                "peak receive memory of any rank: tag %.1f MiB, notified %.1f MiB (limit %zu MiB "
                "plus one message: %zu MiB)",
                peak["tag"], peak["notified"], kLimit >> 20, (kLimit + kPayload) >> 20);
  report.note(line);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  bool json = false;
  bool quick = false;
  bool limited_run = false;
  std::vector<std::size_t> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--size=", 0) == 0) sizes.push_back(std::stoul(arg.substr(7)));
    json = json || arg == "--json";
    quick = quick || arg == "--quick";
    limited_run = limited_run || arg == "--limited";
  }
  int rc = 0;
  if (size_of(MPI_COMM_WORLD) < 2) {
    if (rank_of(MPI_COMM_WORLD) == 0)
      std::fprintf(stderr, "exchange_bench: needs 2 ranks or more\n");
    rc = 2;
  } else {
    rc = limited_run ? limited(json) : throughput(json, quick, sizes);
  }
  MPI_Finalize();
  return rc;
}
