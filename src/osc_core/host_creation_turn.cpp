#include "host_creation_turn.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "agreement.hpp"
#include "node_probe.hpp"

namespace mpinotify {
namespace {

bool host_needs_turns() {
  static const bool needed = [] {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    if (PMPI_Get_library_version(version, &length) != MPI_SUCCESS) return false;
    return host_shares_window_files(std::string(version, static_cast<std::size_t>(length)));
  }();
  return needed;
}

// Whether this rank is the lowest of `comm` on its node.
Status lowest_on_node(MPI_Comm comm, bool single_node, bool &lowest) {
  int rank = 0;
  MPINOTIFY_TRY(host_status(PMPI_Comm_rank(comm, &rank), "MPI_Comm_rank"));
  if (single_node) {
    lowest = rank == 0;
    return {};
  }
  std::vector<std::uint64_t> nodes;
  MPINOTIFY_TRY(allgather_records(comm, this_node(), nodes));
  lowest = true;
  for (int r = 0; r < rank; ++r)
    if (nodes[static_cast<std::size_t>(r)] == nodes[static_cast<std::size_t>(rank)]) lowest = false;
  return {};
}

}  // namespace

bool host_shares_window_files(const std::string &version) {
  const std::string tag = "Open MPI v";
  const std::size_t at = version.find(tag);
  if (at == std::string::npos) return false;
  int major = 0;
  return std::sscanf(version.c_str() + at + tag.size(), "%d", &major) == 1 && major < 5;
}

bool HostCreationTurn::try_hold() {
  // A name in the abstract socket namespace: held while bound, released by
  // close or by the process's end, whatever the way; nothing on disk.
  // Where no such socket can be made, turns are not to be had and the
  // creation goes ahead as the host would have it.
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return true;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const int length = std::snprintf(address.sun_path + 1, sizeof address.sun_path - 1,
                                   "mpinotify-host-window-creation-%u", getuid());
  const auto size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 +
                                           static_cast<std::size_t>(length));
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
  if (bind(fd, reinterpret_cast<const sockaddr *>(&address), size) != 0) {
    const bool taken = errno == EADDRINUSE;
    close(fd);
    return !taken;
  }
  socket_ = fd;
  return true;
}

void HostCreationTurn::let_go() {
  if (socket_ < 0) return;
  close(socket_);
  socket_ = -1;
}

Status HostCreationTurn::take(MPI_Comm comm, bool single_node) {
  if (!host_needs_turns()) return {};
  bool lowest = false;
  MPINOTIFY_TRY(lowest_on_node(comm, single_node, lowest));
  std::minstd_rand pick(static_cast<unsigned>(getpid()));
  auto pause = std::chrono::microseconds(50);
  for (;;) {
    int held = !lowest || try_hold() ? 1 : 0;
    const Status agreed = host_status(
        PMPI_Allreduce(MPI_IN_PLACE, &held, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    if (!agreed.ok()) {
      let_go();
      return agreed;
    }
    if (held == 1) return {};
    let_go();
    // Apart by chance, so that two groups that each hold a node the other
    // needs do not meet again at once.
    std::this_thread::sleep_for(pause + std::chrono::microseconds(pick() % pause.count()));
    if (pause < std::chrono::milliseconds(5)) pause *= 2;
  }
}

}  // namespace mpinotify
