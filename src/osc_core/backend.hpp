// Backends and their registry: query -> priority -> select, per window.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "module.hpp"
#include "status.hpp"

namespace mpinotify {

class Window;

enum class Flavor { create, allocate, shared, dynamic };
const char *flavor_name(Flavor flavor);

// A window constructor call as the interceptor received it.
struct CreateRequest {
  Flavor flavor = Flavor::create;
  MPI_Aint size = 0;  // this rank's window size (0 for dynamic windows)
  int disp_unit = 1;
  MPI_Info info = MPI_INFO_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  // A duplicate of `comm` whose errors return to the library, set by
  // osc_core before a backend makes the host window: what the library tries
  // on its own account (shared placement, probes) runs on it, so a refusal
  // never reaches the program's error handler (SEMANTICS 3.9).
  MPI_Comm library_comm = MPI_COMM_NULL;
  // The flavor's own host constructor (PMPI_Win_create, ...) on `comm` with
  // the given info; returns the host's code, which the host has reported to
  // the program's handler as it would without the library.
  std::function<int(MPI_Info, MPI_Win *)> create;
  // MPI_Win_allocate only: the same request as MPI_Win_allocate_shared of
  // `size` bytes (at least the request's) on `comm` (a communicator of the
  // same group), for a backend that wants the memory in shared memory.
  std::function<int(MPI_Aint size, MPI_Info, MPI_Comm comm, MPI_Win *)> create_shared;
  // The host window is larger than `size` (see host_allocation_size):
  // MPI_Win_get_attr(MPI_WIN_SIZE) must still report `size`.
  bool padded = false;
  // The counters this rank reserves at creation (NotifyLimits::reserve).
  int counters_reserved = 0;
  // Every rank can open the others' shared memory (as WindowQuery), set
  // by osc_core before a backend makes the host window.
  bool single_node = false;
};

// The host window a backend made for a request.
struct HostWindow {
  MPI_Win handle = MPI_WIN_NULL;
  // An MPI_Win_allocate window made as MPI_Win_allocate_shared: the
  // interceptors keep its flavor looking like MPI_Win_allocate.
  bool in_shared_memory = false;
  // The backend placed each rank's first counters right after its window
  // memory, in the host's allocation, this many bytes apart (0: it did not;
  // the same on every rank). MPI_WIN_SIZE still reports the size asked for.
  std::uint32_t tail_counter_stride = 0;
};

// What a backend may look at when asked to serve a window: the request, and
// facts about the group every rank agrees on.
struct WindowQuery {
  Flavor flavor = Flavor::create;
  MPI_Comm comm = MPI_COMM_NULL;  // the user's communicator
  int group_size = 0;
  bool single_node = false;  // every rank can open the others' shared-memory segments
  // Some ranks look like one machine (host name, boot id) but cannot share
  // memory (see node_probe.hpp).
  bool lookalikes_apart = false;
};

class Backend {
 public:
  Backend() = default;
  Backend(const Backend &) = delete;
  Backend &operator=(const Backend &) = delete;
  virtual ~Backend() = default;

  virtual const char *name() const = 0;
  // Higher serves first among the backends that accept a window.
  virtual int priority() const = 0;
  // Whether the backend can work in this process at all; if not, why.
  virtual std::optional<std::string> unavailable_reason() const { return std::nullopt; }
  // What it found out about this machine, for mpinotify-info.
  virtual std::string details() const { return {}; }
  // Local opinion on one window: nullopt accepts, otherwise the reason.
  virtual std::optional<std::string> refuse(const WindowQuery &query) const = 0;
  // Collective: makes the host window for a request this backend serves.
  // The default calls the flavor's own constructor. A backend that tries
  // something else first does so on request.library_comm, lets the ranks
  // agree on the outcome, and falls back to the flavor's own constructor
  // when any rank could not.
  virtual int create_host_window(const CreateRequest &request, HostWindow &out) const {
    return request.create(request.info, &out.handle);
  }
  // Local: the module for an agreed window (storage comes later, through
  // reserve/commit).
  virtual std::unique_ptr<Module> make_module(Window &window) const = 0;
  // At MPI_Finalize, after every window is gone: release process-wide state.
  virtual void shutdown() const {}
  // Local, before a window's creation summary: whether this process knows
  // already how to find the peers of `comm`'s group, so that the backend
  // needs no collective of its own for them. Only what every rank said
  // counts (Window::group_known): one thread's creation may teach a
  // process a group while another thread creates a window over it. Must
  // not start the backend.
  virtual bool knows_group(MPI_Comm /*comm*/) const { return false; }
};

// The registry backends add themselves to at static initialisation.
class BackendRegistry {
 public:
  static BackendRegistry &instance();
  void add(const Backend *backend);
  // Highest priority first.
  std::vector<const Backend *> all() const;
  const Backend *find(const std::string &name) const;

 private:
  std::vector<const Backend *> backends_;
};

// Backends register with a static object of this type in their own file.
struct BackendRegistration {
  explicit BackendRegistration(const Backend *backend) { BackendRegistry::instance().add(backend); }
};

}  // namespace mpinotify
