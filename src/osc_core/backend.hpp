// Backends and their registry: query -> priority -> select, per window.
#pragma once

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

// What a backend may look at when asked to serve a window.
struct WindowQuery {
  Flavor flavor = Flavor::create;
  MPI_Comm comm = MPI_COMM_NULL;  // the user's communicator
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
  // Local opinion on one window: nullopt accepts, otherwise the reason.
  virtual std::optional<std::string> refuse(const WindowQuery &query) const = 0;
  // Local: the module for an agreed window (storage comes later, through
  // reserve/commit).
  virtual std::unique_ptr<Module> make_module(Window &window) const = 0;
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
