// Requests the library completes itself. They are MPI generalized requests,
// so they mix with any other request in MPI_Wait/Test and their
// any/all/some forms; the interceptors of those calls poll this engine while
// work is pending, and only then. No progress thread.
//
// MPI_Wait and MPI_Test on one of these requests take a short way
// (find, try_complete): they poll that request's work alone and, once it
// completed without error, free the request as the host's call would (the
// handle becomes MPI_REQUEST_NULL, the status is filled) without asking the
// host. The host's generalized request stays pending, unseen by anyone,
// and serves the next request made here (a program waits, then makes its
// next request); those beyond a few are completed and freed, and the rest
// at MPI_Finalize. A one-way notification then costs its waiter about what
// a poll of the counter costs: no generalized request is started,
// completed or freed, nothing is allocated but the work, and the waiter's
// path after the counter arrived has no atomic read-modify-write.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "host_nudge.hpp"
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
  // Advances the work; true once it is complete, and from then on. Must
  // not block. Never called by two threads at once.
  virtual bool poll() = 0;
  // Whether it is time to check that what the work waits for can still
  // come (a waiting thread asks after each poll that was not done).
  virtual bool check_due() { return false; }
  // That check: true if it ended the work (with a failure in outcome()).
  // May block for a round trip to a peer: called by a thread that waits,
  // with no lock of the engine held.
  virtual bool check_alive() { return false; }
  // Once complete: whether it failed (MPI_Wait and its kin then return the
  // error's code).
  virtual Status outcome() const { return {}; }
  // The window the work depends on, if any (freed windows cancel it).
  virtual const Window *window() const { return nullptr; }
  // Whether the work advances only while it is polled (an operation the
  // backend drives), rather than watching for something others bring about
  // (a counter reaching a threshold). A wait on requests that are not the
  // library's polls it only while some work of the first kind is pending.
  virtual bool drives_operations() const { return true; }
  // Whether making the request polls the work once (then an error fails
  // the call itself). Otherwise its first wait or test polls it first.
  virtual bool poll_at_start() const { return true; }
};

class Progress {
 public:
  struct Entry;  // one pending request (progress.cpp)

  // A request that is already complete.
  Status completed_request(MPI_Request *out);
  // A request that completes once `work` polls true (checked once now if
  // the work asks for it; a work that failed then fails the call).
  Status pending_request(std::unique_ptr<PendingWork> work, MPI_Request *out);

  // True while any of the library's requests is pending.
  bool must_poll() const { return pending_.load(std::memory_order_acquire) > 0; }
  // True while some pending work drives operations (see PendingWork): a
  // wait on any request must poll the library then.
  bool must_drive() const { return driving_.load(std::memory_order_acquire) > 0; }
  // One pass over the pending work; safe from any thread, never blocks on
  // another thread's pass. A thread that waits (`waiting`) also runs the
  // checks that are due (PendingWork::check_alive), after the pass.
  void poll(bool waiting = false);

  // The library's pending request behind `request`, or null. The reference
  // stays valid until this thread's next call of find.
  const std::shared_ptr<Entry> &find(MPI_Request request);
  // Whether any of `requests` is one of the library's pending requests.
  bool holds_any(const MPI_Request requests[], int count);
  // The library's pending requests behind `requests`, one per request (null
  // for MPI_REQUEST_NULL) in `out`; false unless every other request is
  // one of them and there is at least one.
  bool find_all(const MPI_Request requests[], int count, std::vector<std::shared_ptr<Entry>> &out);
  // Whether `entry` is complete for MPI (the host's call returns it).
  static bool concluded(const Entry &entry);

  enum class Try {
    pending,    // not complete yet
    done,       // complete and freed: *request is MPI_REQUEST_NULL, *status filled
    concluded,  // complete for MPI (failed, cancelled, or completed by another
                // thread's pass): the host's MPI_Wait or MPI_Test on *request
                // finishes it and returns its outcome
  };
  // One try at completing `entry` (found for *request).
  Try try_complete(Entry &entry, MPI_Request *request, MPI_Status *status);
  // Lets the host MPI progress now and then from a wait that does not
  // call it (peers' host RMA to this process may need that).
  void nudge_host() { wait_nudge_.tick(MPI_COMM_WORLD); }
  // Counts out requests that were completed by try_complete, if no other
  // thread holds the engine: a wait on other requests that found none of
  // the library's calls this, so that later ones go straight to the host.
  void notice_taken();

  // Completes all work bound to `window` (it is being freed): as it would
  // have completed where it is complete now, else as cancelled.
  void cancel_window(const Window *window);
  // Completes all remaining work as cancelled (MPI_Finalize).
  void cancel_all();
  // Before MPI_Request_free of `request`: if it is pending here, it is
  // completed (as cancelled) and forgotten, since nobody can wait for it
  // any more. Cheap when nothing is pending.
  void withdraw(MPI_Request request);

 private:
  // Keeps a failed work's error for the request's status.
  static void note_outcome(Entry &entry);
  // pending_ and driving_ count `entry` in or out; mutex_ held.
  void count_in(Entry &entry);
  void count_out(Entry &entry);
  // Makes `entry` pending with `work`; mutex_ held.
  void arm(Entry &entry, std::unique_ptr<PendingWork> work);
  // Completes entry i for MPI and forgets it; mutex_ and the entry's busy
  // flag held.
  void remove(std::size_t i);
  // Completes `entry` for MPI after its work failed or was cancelled.
  void conclude(Entry &entry);
  // Counts out the entries try_complete finished, releases their works,
  // and frees their host requests past a few; mutex_ held.
  void tidy();
  // Completes the entries `match` picks, as cancelled unless `poll_first`
  // finds their work complete.
  void complete_matching(bool (*match)(const Entry &, const void *), const void *what,
                         bool poll_first);

  std::mutex mutex_;
  // Every entry whose host request is pending: pending work, or taken.
  std::vector<std::shared_ptr<Entry>> entries_;
  std::atomic<int> pending_{0};  // entries with pending work, or taken and not yet tidied
  std::atomic<int> driving_{0};  // of those, the ones whose work drives operations
  HostNudge<256> wait_nudge_;
};

Progress &progress();

}  // namespace mpinotify
