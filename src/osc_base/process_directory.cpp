#include "process_directory.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "osc_core/mpi_host.hpp"
#include "peer_deadline.hpp"

#if MPINOTIFY_HAVE_PMIX
#include <pmix.h>
#endif

namespace mpinotify {

#if MPINOTIFY_HAVE_PMIX
namespace {

struct Client {
  std::once_flag looked;
  std::atomic<bool> released{false};
  ProcessDirectory *directory = nullptr;
  pmix_proc_t me{};
};

Client &client() {
  static Client c;
  return c;
}

std::string pmix_message(const char *what, pmix_status_t status) {
  return std::string(what) + " failed: " + PMIx_Error_string(status);
}

// Whether the PMIx identity is the MPI one: the store is read by
// MPI_COMM_WORLD rank, so a launcher whose job is not MPI_COMM_WORLD (a
// PMIx singleton under another launcher) must not be used.
bool identity_matches(const pmix_proc_t &me) {
  int rank = -1;
  int size = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  if (me.rank != static_cast<pmix_rank_t>(rank)) return false;
  pmix_proc_t job{};
  PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
  pmix_value_t *value = nullptr;
  if (PMIx_Get(&job, PMIX_JOB_SIZE, nullptr, 0, &value) != PMIX_SUCCESS || value == nullptr)
    return false;
  const bool same = value->type == PMIX_UINT32 && value->data.uint32 == static_cast<uint32_t>(size);
  PMIX_VALUE_RELEASE(value);
  return same;
}

}  // namespace

ProcessDirectory *ProcessDirectory::instance() {
  Client &c = client();
  std::call_once(c.looked, [&c] {
    // Only the host MPI's own client: a process the launcher made a PMIx
    // client of, whose MPI initialised PMIx already (the same library:
    // PMIx_Init then takes a reference). Initialising it elsewhere would
    // make a second client, or a singleton of its own.
    if (c.released.load() || std::getenv("PMIX_NAMESPACE") == nullptr) return;
    if (PMIx_Initialized() == 0 || PMIx_Init(&c.me, nullptr, 0) != PMIX_SUCCESS) return;
    const bool usable = identity_matches(c.me);
    // The reference only served to learn who this process is: the host
    // holds its own until its MPI_Finalize, after every use here.
    PMIx_Finalize(nullptr, 0);
    if (usable) c.directory = new ProcessDirectory();
  });
  return c.released.load() ? nullptr : c.directory;
}

void ProcessDirectory::release() { client().released.store(true); }

Status ProcessDirectory::publish(const std::string &key, const std::string &value) {
  pmix_value_t bytes{};
  bytes.type = PMIX_BYTE_OBJECT;
  // PMIx_Put copies the value.
  bytes.data.bo.bytes =
      const_cast<char *>(value.data());  // NOLINT(cppcoreguidelines-pro-type-const-cast)
  bytes.data.bo.size = value.size();
  if (const pmix_status_t put = PMIx_Put(PMIX_GLOBAL, key.c_str(), &bytes); put != PMIX_SUCCESS)
    return error(Errc::other, pmix_message("PMIx_Put", put));
  if (const pmix_status_t sent = PMIx_Commit(); sent != PMIX_SUCCESS)
    return error(Errc::other, pmix_message("PMIx_Commit", sent));
  return {};
}

Status ProcessDirectory::lookup(const std::string &key, int world_rank, PeerDeadline &deadline,
                                std::string &out) {
  {
    std::lock_guard guard(mutex_);
    if (const auto known = known_.find({key, world_rank}); known != known_.end()) {
      out = known->second;
      return {};
    }
  }
  pmix_proc_t peer{};
  PMIX_LOAD_PROCID(&peer, client().me.nspace, static_cast<pmix_rank_t>(world_rank));
  // A peer that published passed a collective after it, but PMIx_Commit
  // is a one-way message: the value may still be on its way to the peer's
  // server, which then holds the read or (a server on another node that
  // has the peer's data from the launch) answers that it is missing. A
  // missing value is asked for again, past every cache, until the
  // deadline (0: no limit, as PMIx counts it too).
  pmix_value_t *value = nullptr;
  pmix_status_t got = PMIX_ERR_NOT_FOUND;
  auto pause = std::chrono::milliseconds(1);
  for (bool again = false;; again = true) {
    int seconds = deadline.seconds_left();
    std::array<pmix_info_t, 2> info{};
    std::size_t infos = 1;
    PMIX_INFO_LOAD(&info[0], PMIX_TIMEOUT, &seconds, PMIX_INT);
#ifdef PMIX_GET_REFRESH_CACHE  // PMIx 3.2 and later
    bool refresh = again;
    PMIX_INFO_LOAD(&info[1], PMIX_GET_REFRESH_CACHE, &refresh, PMIX_BOOL);
    infos = 2;
#else
    static_cast<void>(again);
#endif
    got = PMIx_Get(&peer, key.c_str(), info.data(), infos, &value);
    for (std::size_t i = 0; i < infos; ++i) PMIX_INFO_DESTRUCT(&info[i]);
    if (got != PMIX_ERR_NOT_FOUND || deadline.passed()) break;
    // Each try may ask another node's server: back off to 0.1 s.
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(100));
  }
  const std::string whom = "the address of MPI_COMM_WORLD rank " + std::to_string(world_rank);
  if (got != PMIX_SUCCESS || value == nullptr)
    return error(Errc::other, "PMIx_Get of " + whom + " failed: " + PMIx_Error_string(got));
  const bool bytes = value->type == PMIX_BYTE_OBJECT && value->data.bo.size != 0;
  if (bytes) out.assign(value->data.bo.bytes, value->data.bo.size);
  PMIX_VALUE_RELEASE(value);
  if (!bytes) return error(Errc::intern, "PMIx holds no bytes for " + whom);
  std::lock_guard guard(mutex_);
  known_.emplace(std::pair{key, world_rank}, out);
  return {};
}

#else  // no PMIx in this build: no directory

ProcessDirectory *ProcessDirectory::instance() { return nullptr; }
void ProcessDirectory::release() {}
Status ProcessDirectory::publish(const std::string &, const std::string &) {
  return error(Errc::intern, "no PMIx in this build");
}
Status ProcessDirectory::lookup(const std::string &, int, PeerDeadline &, std::string &) {
  return error(Errc::intern, "no PMIx in this build");
}

#endif

}  // namespace mpinotify
