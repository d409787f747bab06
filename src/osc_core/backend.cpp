#include "backend.hpp"

#include <algorithm>

namespace mpinotify {

const char *flavor_name(Flavor flavor) {
  switch (flavor) {
    case Flavor::create: return "MPI_Win_create";
    case Flavor::allocate: return "MPI_Win_allocate";
    case Flavor::shared: return "MPI_Win_allocate_shared";
    case Flavor::dynamic: return "MPI_Win_create_dynamic";
  }
  return "unknown";
}

BackendRegistry &BackendRegistry::instance() {
  static BackendRegistry registry;
  return registry;
}

void BackendRegistry::add(const Backend *backend) {
  backends_.push_back(backend);
  std::stable_sort(backends_.begin(), backends_.end(), [](const Backend *a, const Backend *b) {
    return a->priority() > b->priority();
  });
}

std::vector<const Backend *> BackendRegistry::all() const { return backends_; }

const Backend *BackendRegistry::find(const std::string &name) const {
  for (const Backend *b : backends_) {
    if (name == b->name()) return b;
  }
  return nullptr;
}

}  // namespace mpinotify
