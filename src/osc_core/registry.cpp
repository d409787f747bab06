#include "registry.hpp"

#include <algorithm>
#include <mutex>

namespace mpinotify {

namespace registry_detail {
thread_local constinit RecentWindow recent{};
constinit std::atomic<std::uint64_t> generation{1};
}  // namespace registry_detail

using registry_detail::generation;

void WindowRegistry::add(const std::shared_ptr<Window> &window) {
  std::unique_lock guard(mutex_);
  windows_[window->handle()] = Entry{next_sequence_++, window};
  generation.fetch_add(1, std::memory_order_release);
}

std::shared_ptr<Window> WindowRegistry::find(MPI_Win handle) const {
  std::shared_lock guard(mutex_);
  const auto it = windows_.find(handle);
  return it == windows_.end() ? nullptr : it->second.window;
}

Window *WindowRegistry::lookup_and_remember(MPI_Win handle) const {
  // Read before the lookup: a change in between makes the next call look again.
  const std::uint64_t current = generation.load(std::memory_order_acquire);
  registry_detail::recent = {handle, find(handle).get(), current};
  return registry_detail::recent.window;
}

std::shared_ptr<Window> WindowRegistry::remove(MPI_Win handle) {
  std::unique_lock guard(mutex_);
  const auto it = windows_.find(handle);
  if (it == windows_.end()) return nullptr;
  auto window = std::move(it->second.window);
  window->fold_stats();  // under the lock: process_totals sees it once
  windows_.erase(it);
  generation.fetch_add(1, std::memory_order_release);
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
  generation.fetch_add(1, std::memory_order_release);
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
