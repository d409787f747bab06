#include "orphans.hpp"

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

namespace mpinotify::detail {
namespace {

struct Orphan {
  std::unique_ptr<Transfer> transfer;
  std::unique_ptr<Message> memory;
};

// Exchanges on different threads share the list.
struct Orphanage {
  std::mutex mutex;
  std::vector<Orphan> orphans;
};

Orphanage &orphanage() {
  static Orphanage instance;
  return instance;
}

}  // namespace

bool mpi_running() noexcept {
  int initialized = 0;
  int finalized = 1;
  return MPI_Initialized(&initialized) == MPI_SUCCESS && initialized != 0 &&
         MPI_Finalized(&finalized) == MPI_SUCCESS && finalized == 0;
}

void adopt_orphan(std::unique_ptr<Transfer> transfer, std::unique_ptr<Message> memory) noexcept {
  Orphanage &home = orphanage();
  const std::lock_guard lock(home.mutex);
  try {
    if (home.orphans.size() == home.orphans.capacity()) {
      home.orphans.reserve(std::max<std::size_t>(8, 2 * home.orphans.capacity()));
    }
  } catch (...) {
    // No room to keep them: leak both rather than free memory MPI may use.
    static_cast<void>(transfer.release());
    static_cast<void>(memory.release());
    return;
  }
  home.orphans.push_back({std::move(transfer), std::move(memory)});  // has room: cannot throw
}

void sweep_orphans() noexcept {
  Orphanage &home = orphanage();
  const std::lock_guard lock(home.mutex);
  if (home.orphans.empty() || !mpi_running()) return;
  std::erase_if(home.orphans, [](Orphan &orphan) {
    try {
      return orphan.transfer->test();
    } catch (...) {
      return true;  // failed: MPI is done with it
    }
  });
}

}  // namespace mpinotify::detail
