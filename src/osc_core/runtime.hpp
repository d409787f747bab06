// Process-wide state: initialisation with the host MPI, the values the C
// ABI publishes (error class, attribute keyvals), the thread level.
#pragma once

#include <atomic>
#include <mutex>

#include "mpi_host.hpp"
#include "status.hpp"

namespace mpinotify {

class Runtime {
 public:
  // After the host's MPI_Init*: registers the error class and keyvals.
  // Idempotent; also called lazily when MPI was initialised without the
  // library's interceptors seeing it.
  Status init();
  // Before the host's MPI_Finalize: releases every window left behind and
  // the keyvals.
  void finalize();

  // Whether the host MPI is initialised and not finalised, initialising the
  // library on the way if needed.
  bool ensure_active();

  bool thread_multiple() const { return thread_multiple_.load(std::memory_order_relaxed); }
  // The error class MPI_ERR_RMA_NOTIFICATION (MPI_ERR_OTHER before init),
  // and what MPI_Error_string says of it.
  int notification_class() const { return notification_class_.load(std::memory_order_relaxed); }
  static const char *notification_text();
  int keyval_num_sb() const { return keyval_num_sb_; }
  int keyval_num_ub() const { return keyval_num_ub_; }
  int keyval_value_ub() const { return keyval_value_ub_; }

 private:
  std::mutex mutex_;
  std::atomic<bool> active_{false};
  std::atomic<bool> thread_multiple_{false};
  std::atomic<int> notification_class_{MPI_ERR_OTHER};
  int keyval_num_sb_ = MPI_KEYVAL_INVALID;
  int keyval_num_ub_ = MPI_KEYVAL_INVALID;
  int keyval_value_ub_ = MPI_KEYVAL_INVALID;
};

Runtime &runtime();

}  // namespace mpinotify
