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
  // since. The pointer is valid until the window is freed, which MPI forbids
  // doing while another call uses it.
  Window *lookup(MPI_Win handle) const;
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
  std::atomic<std::uint64_t> generation_{0};  // changes with every add and remove
};

WindowRegistry &windows();

}  // namespace mpinotify
