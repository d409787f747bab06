#include "process_directory.hpp"

#include <cstdlib>

#include "osc_core/mpi_host.hpp"
#include "osc_core/params.hpp"

#if MPINOTIFY_HAVE_PMIX
#include <pmix.h>
#endif

namespace mpinotify {

#if MPINOTIFY_HAVE_PMIX
namespace {

struct Client {
  std::once_flag looked;
  bool released = false;
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
    // Only a process the launcher made a PMIx client of: initialising
    // PMIx elsewhere would make it a singleton of its own.
    if (c.released || std::getenv("PMIX_NAMESPACE") == nullptr) return;
    if (PMIx_Init(&c.me, nullptr, 0) != PMIX_SUCCESS) return;
    if (!identity_matches(c.me)) {
      PMIx_Finalize(nullptr, 0);
      return;
    }
    c.directory = new ProcessDirectory();
  });
  return c.released ? nullptr : c.directory;
}

void ProcessDirectory::release() {
  Client &c = client();
  // Whatever the first call finds from now on is nothing.
  std::call_once(c.looked, [] {});
  if (c.released) return;
  c.released = true;
  // The object stays (windows the program never freed may point at it);
  // instance() no longer hands it out.
  if (c.directory != nullptr) PMIx_Finalize(nullptr, 0);
}

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

Status ProcessDirectory::lookup(const std::string &key, int world_rank, std::string &out) {
  {
    std::lock_guard guard(mutex_);
    if (const auto known = known_.find({key, world_rank}); known != known_.end()) {
      out = known->second;
      return {};
    }
  }
  pmix_proc_t peer{};
  PMIX_LOAD_PROCID(&peer, client().me.nspace, static_cast<pmix_rank_t>(world_rank));
  // A peer that published passed a collective after it, so its value is
  // at its server or on the way: the server holds the request until it
  // arrives, up to the peer deadline (0: no limit, as PMIx counts it too).
  int seconds = params().peer_timeout;
  pmix_info_t timeout{};
  PMIX_INFO_LOAD(&timeout, PMIX_TIMEOUT, &seconds, PMIX_INT);
  pmix_value_t *value = nullptr;
  const pmix_status_t got = PMIx_Get(&peer, key.c_str(), &timeout, 1, &value);
  PMIX_INFO_DESTRUCT(&timeout);
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
Status ProcessDirectory::lookup(const std::string &, int, std::string &) {
  return error(Errc::intern, "no PMIx in this build");
}

#endif

}  // namespace mpinotify
