// The one internal status type and its mapping to MPI error classes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace mpinotify {

// What went wrong, independent of any host MPI. Order matters: when ranks
// disagree in an agreement collective, the highest code wins, so argument
// errors (the caller's fault, decided before any allocation) outrank
// resource errors, which outrank everything a backend reports later.
enum class Errc : int {
  ok = 0,
  other,         // MPI_ERR_OTHER
  intern,        // MPI_ERR_INTERN: a library bug or broken invariant
  host,          // an error code returned by the host MPI, kept as is
  unsupported,   // MPI_ERR_UNSUPPORTED_OPERATION
  rma_sync,      // MPI_ERR_RMA_SYNC
  rma_flavor,    // MPI_ERR_RMA_FLAVOR
  rma_range,     // MPI_ERR_RMA_RANGE
  request,       // MPI_ERR_REQUEST
  no_mem,        // MPI_ERR_NO_MEM
  win,           // MPI_ERR_WIN
  rank,          // MPI_ERR_RANK
  count,         // MPI_ERR_COUNT
  type,          // MPI_ERR_TYPE
  op,            // MPI_ERR_OP
  disp,          // MPI_ERR_DISP
  notification,  // MPI_ERR_RMA_NOTIFICATION
  info,          // MPI_ERR_INFO
  arg,           // MPI_ERR_ARG
};

inline constexpr int kErrcCount = static_cast<int>(Errc::arg) + 1;

// A status is trivially copyable and fits in two registers, so success
// costs nothing on the hot path. The text of an error waits in a small ring
// of the thread that made it (errors travel up one thread's stack to the
// error handler right away).
class [[nodiscard]] Status {
 public:
  Status() = default;  // success
  Status(Errc code, std::string message) : code_(code), detail_(remember(std::move(message))) {}

  // An error the host MPI returned. `reported` is true when the host has
  // already passed it to the user's error handler (a call on the user's own
  // window or communicator), so the library must not report it again.
  static Status from_host(int host_code, bool reported, std::string message) {
    Status s(Errc::host, std::move(message));
    s.host_code_ = host_code;
    s.reported_ = reported;
    return s;
  }

  bool ok() const { return code_ == Errc::ok; }
  explicit operator bool() const { return ok(); }
  Errc code() const { return code_; }
  int host_code() const { return host_code_; }
  bool reported() const { return reported_; }
  // The error's text, while the making thread still has it.
  std::string message() const;

 private:
  static std::uint32_t remember(std::string message);

  Errc code_ = Errc::ok;
  bool reported_ = false;
  int host_code_ = 0;
  std::uint32_t detail_ = 0;  // key of the text in the thread's ring
};

// Shorthand for building errors where they are first decided.
inline Status error(Errc code, std::string message) { return {code, std::move(message)}; }

// The MPI error code for a status (MPI_SUCCESS for ok). The notification
// class is registered with the host at initialisation; before that it maps
// to MPI_ERR_OTHER.
int to_mpi_error(const Status &status);

// Name of an Errc, for messages and tests ("MPI_ERR_ARG", ...).
const char *errc_name(Errc code);

// Registered at initialisation: the class MPI_ERR_RMA_NOTIFICATION, which
// notification errors return as their code.
void set_notification_class(int error_class);

}  // namespace mpinotify

// Propagate a failed status to the caller.
#define MPINOTIFY_TRY(expr)                    \
  do {                                         \
    ::mpinotify::Status try_status_ = (expr);  \
    if (!try_status_.ok()) return try_status_; \
  } while (0)
