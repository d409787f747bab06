#include "status.hpp"

#include <atomic>

#include "mpi_host.hpp"

namespace mpinotify {
namespace {
std::atomic<int> notification_code{MPI_ERR_OTHER};

// The texts of this thread's recent errors, keyed by a running number.
struct RecentErrors {
  static constexpr std::uint32_t kSlots = 32;
  std::string text[kSlots];
  std::uint32_t key[kSlots] = {};
  std::uint32_t next = 1;
};
thread_local RecentErrors recent_errors;
}  // namespace

std::uint32_t Status::remember(std::string message) {
  RecentErrors &recent = recent_errors;
  const std::uint32_t key = recent.next++;
  recent.text[key % RecentErrors::kSlots] = std::move(message);
  recent.key[key % RecentErrors::kSlots] = key;
  return key;
}

std::string Status::message() const {
  if (ok()) return {};
  const RecentErrors &recent = recent_errors;
  if (detail_ != 0 && recent.key[detail_ % RecentErrors::kSlots] == detail_)
    return recent.text[detail_ % RecentErrors::kSlots];
  return std::string(errc_name(code_)) + " (details were on another thread)";
}

void set_notification_class(int error_class) { notification_code.store(error_class); }

int to_mpi_error(const Status &status) {
  switch (status.code()) {
    case Errc::ok: return MPI_SUCCESS;
    case Errc::other: return MPI_ERR_OTHER;
    case Errc::intern: return MPI_ERR_INTERN;
    case Errc::host: return status.host_code();
    case Errc::unsupported: return MPI_ERR_UNSUPPORTED_OPERATION;
    case Errc::rma_sync: return MPI_ERR_RMA_SYNC;
    case Errc::rma_flavor: return MPI_ERR_RMA_FLAVOR;
    case Errc::rma_range: return MPI_ERR_RMA_RANGE;
    case Errc::request: return MPI_ERR_REQUEST;
    case Errc::no_mem: return MPI_ERR_NO_MEM;
    case Errc::win: return MPI_ERR_WIN;
    case Errc::rank: return MPI_ERR_RANK;
    case Errc::count: return MPI_ERR_COUNT;
    case Errc::type: return MPI_ERR_TYPE;
    case Errc::op: return MPI_ERR_OP;
    case Errc::disp: return MPI_ERR_DISP;
    case Errc::notification: return notification_code.load();
    case Errc::info: return MPI_ERR_INFO;
    case Errc::arg: return MPI_ERR_ARG;
  }
  return MPI_ERR_INTERN;
}

const char *errc_name(Errc code) {
  switch (code) {
    case Errc::ok: return "MPI_SUCCESS";
    case Errc::other: return "MPI_ERR_OTHER";
    case Errc::intern: return "MPI_ERR_INTERN";
    case Errc::host: return "host MPI error";
    case Errc::unsupported: return "MPI_ERR_UNSUPPORTED_OPERATION";
    case Errc::rma_sync: return "MPI_ERR_RMA_SYNC";
    case Errc::rma_flavor: return "MPI_ERR_RMA_FLAVOR";
    case Errc::rma_range: return "MPI_ERR_RMA_RANGE";
    case Errc::request: return "MPI_ERR_REQUEST";
    case Errc::no_mem: return "MPI_ERR_NO_MEM";
    case Errc::win: return "MPI_ERR_WIN";
    case Errc::rank: return "MPI_ERR_RANK";
    case Errc::count: return "MPI_ERR_COUNT";
    case Errc::type: return "MPI_ERR_TYPE";
    case Errc::op: return "MPI_ERR_OP";
    case Errc::disp: return "MPI_ERR_DISP";
    case Errc::notification: return "MPI_ERR_RMA_NOTIFICATION";
    case Errc::info: return "MPI_ERR_INFO";
    case Errc::arg: return "MPI_ERR_ARG";
  }
  return "unknown";
}

}  // namespace mpinotify

namespace mpinotify {

Status host_failure(int rc, const char *what, bool reported) {
  return Status::from_host(rc, reported, std::string(what) + " failed: " + host_error_string(rc));
}

std::string host_error_string(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (PMPI_Error_string(code, text, &length) != MPI_SUCCESS) return "error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

}  // namespace mpinotify
