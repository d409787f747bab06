// Window synchronisation: the backend completes its own operations where
// the host completes the user's (SEMANTICS 3.6), and the library learns
// which epochs are open.
#include "osc_core/hot_path.hpp"
#include "osc_core/osc.hpp"
#include "osc_core/registry.hpp"
#include "report.hpp"

namespace mpinotify::bindings {
namespace {

// The library's window behind `win`; nullptr for one it does not serve
// (or before MPI_Init and after MPI_Finalize). The thread's last lookup
// answers first: a flush or lock between puts asks again for the same window.
inline Window *served_window(MPI_Win win) {
  Window *window = nullptr;
  if (recent_lookup(win, window)) [[likely]]
    return window;
  if (!library_ready()) return nullptr;
  return windows().lookup_and_remember(win);
}

// Runs `host` alone for windows the library does not serve; otherwise
// through osc_core with `call` describing it. `prepare` may fill the call
// from arguments (groups) first.
template <class Host, class Prepare>
int intercept(const char *function, MPI_Win win, SyncCall call, Host &&host, Prepare &&prepare) {
  Window *window = served_window(win);
  if (window == nullptr) return host();
  const Status st = run_guarded([&]() -> Status {
    MPINOTIFY_TRY(prepare(*window, call));
    return synchronize(*window, call, HostCall(host));
  });
  return report_on_window(function, win, st);
}

template <class Host>
int intercept(const char *function, MPI_Win win, SyncCall call, Host &&host) {
  return intercept(function, win, std::move(call), std::forward<Host>(host),
                   [](Window &, SyncCall &) { return Status{}; });
}

// The flushes: osc_core's flush_window, inlined here.
template <class Host>
int intercept_flush(const char *function, MPI_Win win, const SyncCall &call, Host &&host) {
  Window *window = served_window(win);
  if (window == nullptr) return host();
  const Status st = run_guarded([&] { return flush_window(*window, call, HostCall(host)); });
  return report_on_window(function, win, st);
}

SyncCall on_rank(SyncKind kind, int rank, int assert_flags = 0) {
  SyncCall call;
  call.kind = kind;
  call.rank = rank;
  call.assert_flags = assert_flags;
  return call;
}

SyncCall with_assert(SyncKind kind, int assert_flags) {
  return on_rank(kind, MPI_PROC_NULL, assert_flags);
}

}  // namespace
}  // namespace mpinotify::bindings

using mpinotify::SyncCall;
using mpinotify::SyncKind;
using mpinotify::bindings::intercept;
using mpinotify::bindings::intercept_flush;
using mpinotify::bindings::on_rank;
using mpinotify::bindings::with_assert;

extern "C" int MPI_Win_lock(int lock_type, int rank, int assert_flags, MPI_Win win) {
  return intercept("MPI_Win_lock", win, on_rank(SyncKind::lock, rank, assert_flags),
                   [&] { return PMPI_Win_lock(lock_type, rank, assert_flags, win); });
}

extern "C" int MPI_Win_lock_all(int assert_flags, MPI_Win win) {
  return intercept("MPI_Win_lock_all", win, with_assert(SyncKind::lock_all, assert_flags),
                   [&] { return PMPI_Win_lock_all(assert_flags, win); });
}

extern "C" int MPI_Win_unlock(int rank, MPI_Win win) {
  return intercept("MPI_Win_unlock", win, on_rank(SyncKind::unlock, rank),
                   [&] { return PMPI_Win_unlock(rank, win); });
}

extern "C" int MPI_Win_unlock_all(MPI_Win win) {
  return intercept("MPI_Win_unlock_all", win, with_assert(SyncKind::unlock_all, 0),
                   [&] { return PMPI_Win_unlock_all(win); });
}

extern "C" int MPI_Win_flush(int rank, MPI_Win win) {
  return intercept_flush("MPI_Win_flush", win, on_rank(SyncKind::flush, rank),
                         [&] { return PMPI_Win_flush(rank, win); });
}

extern "C" int MPI_Win_flush_all(MPI_Win win) {
  return intercept_flush("MPI_Win_flush_all", win, with_assert(SyncKind::flush_all, 0),
                         [&] { return PMPI_Win_flush_all(win); });
}

extern "C" int MPI_Win_flush_local(int rank, MPI_Win win) {
  return intercept_flush("MPI_Win_flush_local", win, on_rank(SyncKind::flush_local, rank),
                         [&] { return PMPI_Win_flush_local(rank, win); });
}

extern "C" int MPI_Win_flush_local_all(MPI_Win win) {
  return intercept_flush("MPI_Win_flush_local_all", win, with_assert(SyncKind::flush_local_all, 0),
                         [&] { return PMPI_Win_flush_local_all(win); });
}

extern "C" int MPI_Win_fence(int assert_flags, MPI_Win win) {
  return intercept("MPI_Win_fence", win, with_assert(SyncKind::fence, assert_flags),
                   [&] { return PMPI_Win_fence(assert_flags, win); });
}

extern "C" int MPI_Win_start(MPI_Group group, int assert_flags, MPI_Win win) {
  return intercept(
      "MPI_Win_start", win, with_assert(SyncKind::start, assert_flags),
      [&] { return PMPI_Win_start(group, assert_flags, win); },
      [&](mpinotify::Window &window, SyncCall &call) {
        return mpinotify::window_ranks(window, group, call.group);
      });
}

extern "C" int MPI_Win_complete(MPI_Win win) {
  return intercept("MPI_Win_complete", win, with_assert(SyncKind::complete, 0),
                   [&] { return PMPI_Win_complete(win); });
}

extern "C" int MPI_Win_post(MPI_Group group, int assert_flags, MPI_Win win) {
  return intercept(
      "MPI_Win_post", win, with_assert(SyncKind::post, assert_flags),
      [&] { return PMPI_Win_post(group, assert_flags, win); },
      [&](mpinotify::Window &window, SyncCall &call) {
        return mpinotify::window_ranks(window, group, call.group);
      });
}

extern "C" int MPI_Win_wait(MPI_Win win) {
  return intercept("MPI_Win_wait", win, with_assert(SyncKind::wait, 0),
                   [&] { return PMPI_Win_wait(win); });
}

extern "C" int MPI_Win_test(MPI_Win win, int *flag) {
  // The hooks read the host's answer through the flag pointer.
  SyncCall call = with_assert(SyncKind::test, 0);
  call.test_flag = flag;
  return intercept("MPI_Win_test", win, call, [&] { return PMPI_Win_test(win, flag); });
}
