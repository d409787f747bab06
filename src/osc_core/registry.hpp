// The window registry: MPI_Win -> the library's state for it. Safe under
// MPI_THREAD_MULTIPLE; lookups share a lock, creation and free take it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "window.hpp"

namespace mpinotify {

class WindowRegistry {
 public:
  void add(const std::shared_ptr<Window> &window);
  std::shared_ptr<Window> find(MPI_Win handle) const;
  // The hot path's lookup: no lock and no reference count when the calling
  // thread asked for the same window last and nothing was added or removed
  // since (recent_lookup, inline). The pointer is valid until the window is
  // freed, which MPI forbids doing while another call uses it.
  Window *lookup(MPI_Win handle) const;
  // The same without the cache, filling it.
  Window *lookup_and_remember(MPI_Win handle) const;
  // Removes and returns the entry (nullptr if unknown).
  std::shared_ptr<Window> remove(MPI_Win handle);
  // Removes every entry, oldest first.
  std::vector<std::shared_ptr<Window>> take_all();
  // Calls `visit` on every window, under the lock (add and remove wait).
  void for_each(const std::function<void(const Window &)> &visit) const;
  // remove() and take_all() fold each window's counts into its backend's
  // (Window::fold_stats), under the same lock, so that a reader under
  // for_each sees every count once.
  std::size_t size() const;

 private:
  struct Entry {
    std::uint64_t sequence = 0;
    std::shared_ptr<Window> window;
  };
  mutable std::shared_mutex mutex_;
  std::unordered_map<MPI_Win, Entry> windows_;
  std::uint64_t next_sequence_ = 0;
};

WindowRegistry &windows();

namespace registry_detail {
// The window the calling thread looked up last, valid while `generation`
// equals registry_generation. Zero-initialised TLS: generation 0 never
// matches, as the registry's starts at 1.
struct RecentWindow {
  MPI_Win handle;
  Window *window;
  std::uint64_t generation;
};
// Initial-exec TLS: no call to __tls_get_addr on every notified operation.
extern thread_local constinit RecentWindow recent [[gnu::tls_model("initial-exec")]];
// Changes with every add and remove (and so at MPI_Finalize, which removes
// every window).
extern constinit std::atomic<std::uint64_t> generation;
}  // namespace registry_detail

// The first step of every entry point on a window: true, with `window` set
// (nullptr for a handle the library does not know), when `handle` is the
// one the calling thread looked up last and the registry has not changed
// since; false otherwise. A hit on a known window implies that the library
// was ready when it was looked up and still is: finalising empties the
// registry.
inline bool recent_lookup(MPI_Win handle, Window *&window) {
  const registry_detail::RecentWindow &recent = registry_detail::recent;
  if (recent.generation == registry_detail::generation.load(std::memory_order_acquire) &&
      recent.handle == handle) [[likely]] {
    window = recent.window;
    return true;
  }
  return false;
}

inline Window *WindowRegistry::lookup(MPI_Win handle) const {
  Window *window = nullptr;
  if (recent_lookup(handle, window)) [[likely]]
    return window;
  return lookup_and_remember(handle);
}

}  // namespace mpinotify
