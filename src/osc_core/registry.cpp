#include "registry.hpp"

#include <algorithm>
#include <mutex>

namespace mpinotify {

void WindowRegistry::add(const std::shared_ptr<Window> &window) {
  std::unique_lock guard(mutex_);
  windows_[window->handle()] = Entry{next_sequence_++, window};
  generation_.fetch_add(1, std::memory_order_release);
}

std::shared_ptr<Window> WindowRegistry::find(MPI_Win handle) const {
  std::shared_lock guard(mutex_);
  const auto it = windows_.find(handle);
  return it == windows_.end() ? nullptr : it->second.window;
}

Window *WindowRegistry::lookup(MPI_Win handle) const {
  struct Recent {
    MPI_Win handle;
    Window *window;
    std::uint64_t generation;
  };
  // Initial-exec TLS: a few bytes of the static surplus, and no call to
  // __tls_get_addr on every notified operation.
  [[gnu::tls_model("initial-exec")]] thread_local Recent recent{MPI_WIN_NULL, nullptr,
                                                                ~std::uint64_t{0}};
  const std::uint64_t generation = generation_.load(std::memory_order_acquire);
  if (recent.generation == generation && recent.handle == handle) return recent.window;
  // Read before the lookup: a change in between makes the next call look again.
  recent = {handle, find(handle).get(), generation};
  return recent.window;
}

std::shared_ptr<Window> WindowRegistry::remove(MPI_Win handle) {
  std::unique_lock guard(mutex_);
  const auto it = windows_.find(handle);
  if (it == windows_.end()) return nullptr;
  auto window = std::move(it->second.window);
  window->fold_stats();  // under the lock: process_totals sees it once
  windows_.erase(it);
  generation_.fetch_add(1, std::memory_order_release);
  return window;
}

std::vector<std::shared_ptr<Window>> WindowRegistry::take_all() {
  std::unique_lock guard(mutex_);
  std::vector<Entry> entries;
  entries.reserve(windows_.size());
  for (auto &[handle, entry] : windows_) {
    entry.window->fold_stats();
    entries.push_back(std::move(entry));
  }
  windows_.clear();
  generation_.fetch_add(1, std::memory_order_release);
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.sequence < b.sequence; });
  std::vector<std::shared_ptr<Window>> result;
  result.reserve(entries.size());
  for (auto &entry : entries) result.push_back(std::move(entry.window));
  return result;
}

void WindowRegistry::for_each(const std::function<void(const Window &)> &visit) const {
  std::shared_lock guard(mutex_);
  for (const auto &[handle, entry] : windows_) visit(*entry.window);
}

std::size_t WindowRegistry::size() const {
  std::shared_lock guard(mutex_);
  return windows_.size();
}

WindowRegistry &windows() {
  static WindowRegistry registry;
  return registry;
}

}  // namespace mpinotify
