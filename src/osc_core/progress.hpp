// Requests the library completes itself. They are MPI generalized requests,
// so they mix with any other request in MPI_Wait/Test and their
// any/all/some forms; the interceptors of those calls poll this engine while
// work is pending, and only then. No progress thread.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "mpi_host.hpp"
#include "status.hpp"

namespace mpinotify {

class Window;

class PendingWork {
 public:
  PendingWork() = default;
  PendingWork(const PendingWork &) = delete;
  PendingWork &operator=(const PendingWork &) = delete;
  virtual ~PendingWork() = default;
  // Advances the work; true once it is complete. Must not block.
  virtual bool poll() = 0;
  // Once complete: whether it failed (MPI_Wait and its kin then return the
  // error's code).
  virtual Status outcome() const { return {}; }
  // The window the work depends on, if any (freed windows cancel it).
  virtual const Window *window() const { return nullptr; }
};

class Progress {
 public:
  // A request that is already complete.
  Status completed_request(MPI_Request *out);
  // A request that completes once `work` polls true (checked once now).
  Status pending_request(std::unique_ptr<PendingWork> work, MPI_Request *out);

  // True while anything needs polling: pending work, or a module that
  // advances only when polled.
  bool must_poll() const {
    return pending_.load(std::memory_order_acquire) + sources_.load(std::memory_order_acquire) > 0;
  }
  // One pass over the pending work; safe from any thread, never blocks on
  // another thread's pass.
  void poll();

  // Completes, as cancelled, all work bound to `window` (it is being freed).
  void cancel_window(const Window *window);
  // Completes all remaining work as cancelled (MPI_Finalize).
  void cancel_all();
  // Before MPI_Request_free of `request`: if it is pending here, it is
  // completed (as cancelled) and forgotten, since nobody can wait for it
  // any more. Cheap when nothing is pending.
  void withdraw(MPI_Request request);

  // Modules whose operations advance only under polling count themselves in
  // while they have outstanding work.
  void add_source() { sources_.fetch_add(1, std::memory_order_acq_rel); }
  void remove_source() { sources_.fetch_sub(1, std::memory_order_acq_rel); }

 private:
  struct Entry;
  // Keeps a failed work's error for the request's status.
  static void note_outcome(Entry &entry);
  // Completes entry i and forgets it; mutex_ held.
  void remove(std::size_t i);
  void complete_matching(bool (*match)(const Entry &, const void *), const void *what);

  std::mutex mutex_;
  std::vector<std::unique_ptr<Entry>> entries_;
  std::atomic<int> pending_{0};
  std::atomic<int> sources_{0};
};

Progress &progress();

}  // namespace mpinotify
