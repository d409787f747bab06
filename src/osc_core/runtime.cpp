#include "runtime.hpp"

#include <cstdio>

#include "backend.hpp"
#include "creation_summary.hpp"
#include "params.hpp"
#include "progress.hpp"
#include "registry.hpp"
#include "stats.hpp"
#include "wait_policy.hpp"

namespace mpinotify {
namespace {

// Collective: the library's part of a window, its passive epochs, then the
// host window. Errors are of no use to anyone at this point.
void release_abandoned(Window &window) {
  auto access = window.exclusive_access();
  window.local_regions().place(nullptr);  // its memory is the module's
  (void)window.module().destroy();
  MPI_Win handle = window.handle();
  PMPI_Win_set_errhandler(handle, MPI_ERRORS_RETURN);
  if (window.epochs().lock_all_open()) PMPI_Win_unlock_all(handle);
  for (const int target : window.epochs().locked_targets()) PMPI_Win_unlock(target, handle);
  PMPI_Win_free(&handle);
}

}  // namespace

Status Runtime::init() {
  std::lock_guard guard(mutex_);
  if (active_.load()) return {};
  int provided = MPI_THREAD_SINGLE;
  MPINOTIFY_TRY(host_status(PMPI_Query_thread(&provided), "MPI_Query_thread"));
  thread_multiple_.store(provided == MPI_THREAD_MULTIPLE);

  // Errors are returned as the class value itself, as native
  // implementations do, so that `rc == MPI_ERR_RMA_NOTIFICATION` holds
  // (SEMANTICS 6.1); the MPI_Error_class interceptor answers for it where
  // the host does not (Open MPI 4.1 maps a user-added class to
  // MPI_ERR_UNKNOWN).
  int error_class = MPI_ERR_OTHER;
  MPINOTIFY_TRY(host_status(PMPI_Add_error_class(&error_class), "MPI_Add_error_class"));
  MPINOTIFY_TRY(
      host_status(PMPI_Add_error_string(error_class, notification_text()), "MPI_Add_error_string"));
  notification_class_.store(error_class);
  set_notification_class(error_class);

  for (int *keyval : {&keyval_num_sb_, &keyval_num_ub_, &keyval_value_ub_}) {
    MPINOTIFY_TRY(host_status(
        PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, keyval, nullptr),
        "MPI_Win_create_keyval"));
  }
  MPINOTIFY_TRY(make_summary_reduction());
  for (const std::string &warning : params().warnings)
    std::fprintf(stderr, "mpinotify: warning: %s\n", warning.c_str());
  if (params().verbose != 0) {
    int world_rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    if (world_rank == 0)
      std::fprintf(stderr, "mpinotify: rank 0: %s\n", wait_policy().describe().c_str());
  }
  stats_enabled = params().stats != 0;
  active_.store(true);
  return {};
}

void Runtime::finalize() {
  std::lock_guard guard(mutex_);
  if (!active_.load()) return;
  progress().cancel_all();
  // Windows the program did not free: release them, oldest first, as every
  // rank created them in that order. Some hosts (MPICH over UCX) abort in
  // MPI_Finalize over a window left allocated.
  for (const auto &window : windows().take_all()) release_abandoned(*window);
  int world_rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  report_stats(world_rank);
  for (const Backend *backend : BackendRegistry::instance().all()) backend->shutdown();
  for (int *keyval : {&keyval_num_sb_, &keyval_num_ub_, &keyval_value_ub_}) {
    if (*keyval != MPI_KEYVAL_INVALID) PMPI_Win_free_keyval(keyval);
  }
  free_summary_reduction();
  active_.store(false);
}

bool Runtime::ensure_active() {
  if (active_.load(std::memory_order_acquire)) return true;
  int initialized = 0;
  int finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (initialized == 0 || finalized != 0) return false;
  return init().ok();
}

const char *Runtime::notification_text() {
  return "MPI_ERR_RMA_NOTIFICATION: the notification index is outside the counters attached at "
         "the target (see MPI_Win_set_num_notify)";
}

Runtime &runtime() {
  static Runtime instance;
  return instance;
}

}  // namespace mpinotify
