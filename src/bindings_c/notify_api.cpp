// The 21 notified-RMA entry points: argument checks that need no backend
// knowledge, window lookup, dispatch to osc_core, and the error report.
// The MPI_/PMPI_ pairs come from entry_points.def.
#include <memory>

#include "mpi_notify.h"
#include "osc_core/hot_path.hpp"
#include "osc_core/osc.hpp"
#include "osc_core/progress.hpp"
#include "osc_core/registry.hpp"
#include "report.hpp"

namespace mpinotify::bindings {
namespace {

struct RequestSlot {
  bool wanted;       // a request-based form
  MPI_Request *out;  // where the request goes
};
RequestSlot blocking() { return {false, nullptr}; }
RequestSlot request_slot(MPI_Request *request) { return {true, request}; }

NotifyOp put_op(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_type,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_type, int idx) {
  NotifyOp op;
  op.kind = OpKind::put;
  op.origin_addr = origin_addr;
  op.origin_count = origin_count;
  op.origin_type = origin_type;
  op.target_rank = target_rank;
  op.target_disp = target_disp;
  op.target_count = target_count;
  op.target_type = target_type;
  op.idx = idx;
  return op;
}

// The origin buffer of a get is where data comes back: it travels as the
// operation's result buffer.
NotifyOp get_op(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_type,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_type, int idx) {
  NotifyOp op = put_op(nullptr, 0, MPI_DATATYPE_NULL, target_rank, target_disp, target_count,
                       target_type, idx);
  op.kind = OpKind::get;
  op.result_addr = origin_addr;
  op.result_count = origin_count;
  op.result_type = origin_type;
  return op;
}

NotifyOp accumulate_op(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_type,
                       int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                       MPI_Datatype target_type, MPI_Op mpi_op, int idx) {
  NotifyOp op = put_op(origin_addr, origin_count, origin_type, target_rank, target_disp,
                       target_count, target_type, idx);
  op.kind = OpKind::accumulate;
  op.op = mpi_op;
  return op;
}

NotifyOp get_accumulate_op(const void *origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_type, void *result_addr, MPI_Count result_count,
                           MPI_Datatype result_type, int target_rank, MPI_Aint target_disp,
                           MPI_Count target_count, MPI_Datatype target_type, MPI_Op mpi_op,
                           int idx) {
  NotifyOp op = accumulate_op(origin_addr, origin_count, origin_type, target_rank, target_disp,
                              target_count, target_type, mpi_op, idx);
  op.kind = OpKind::get_accumulate;
  op.result_addr = result_addr;
  op.result_count = result_count;
  op.result_type = result_type;
  return op;
}

bool predefined_op(MPI_Op op) {
  for (MPI_Op p : {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR,
                   MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP}) {
    if (op == p) return true;
  }
  return false;
}

[[gnu::cold]] Status buffer_error(const char *name, MPI_Count count) {
  if (count < 0)
    return error(Errc::count,
                 std::string(name) + "_count " + std::to_string(count) + " is negative");
  return error(Errc::type, std::string(name) + "_datatype is MPI_DATATYPE_NULL");
}

inline Status check_buffer(const char *name, MPI_Count count, MPI_Datatype type) {
  if (count >= 0 && type != MPI_DATATYPE_NULL) [[likely]]
    return {};
  return buffer_error(name, count);
}

// The operation of an accumulate (out of line: the common put needs none).
[[gnu::noinline]] Status check_op(const NotifyOp &op) {
  if (op.kind == OpKind::accumulate && (!predefined_op(op.op) || op.op == MPI_NO_OP))
    return error(Errc::op, "accumulate needs a predefined operation other than MPI_NO_OP");
  if (op.kind == OpKind::get_accumulate && !predefined_op(op.op))
    return error(Errc::op, "get_accumulate needs a predefined operation");
  return {};
}

[[gnu::cold]] Status negative_disp(MPI_Aint disp) {
  return error(Errc::disp, "target_disp " + std::to_string(disp) + " is negative");
}

// SEMANTICS 3.4: what MPI checks for the base operation, before anything
// else happens.
Status check_arguments(const NotifyOp &op, const Window &window) {
  const bool has_origin =
      op.kind != OpKind::get && !(op.kind == OpKind::get_accumulate && op.op == MPI_NO_OP);
  if (has_origin) MPINOTIFY_TRY(check_buffer("origin", op.origin_count, op.origin_type));
  if (op.kind == OpKind::get)
    MPINOTIFY_TRY(check_buffer("origin", op.result_count, op.result_type));
  if (op.kind == OpKind::get_accumulate)
    MPINOTIFY_TRY(check_buffer("result", op.result_count, op.result_type));
  MPINOTIFY_TRY(check_buffer("target", op.target_count, op.target_type));
  if (op.kind == OpKind::accumulate || op.kind == OpKind::get_accumulate)
    MPINOTIFY_TRY(check_op(op));
  if (op.target_rank != MPI_PROC_NULL) MPINOTIFY_TRY(window.check_rank(op.target_rank));
  if (op.target_disp < 0 && window.flavor() != Flavor::dynamic) [[unlikely]]
    return negative_disp(op.target_disp);
  return {};
}

[[gnu::cold]] Status null_argument(const char *name) {
  return error(Errc::arg, std::string(name) + " is NULL");
}

Status non_null(const void *pointer, const char *name) {
  if (pointer != nullptr) [[likely]]
    return {};
  return null_argument(name);
}

[[gnu::cold]] Status unknown_window(MPI_Win win) {
  if (win == MPI_WIN_NULL) return error(Errc::win, "the window is MPI_WIN_NULL");
  return error(Errc::win,
               "the window was not created through mpinotify (is libmpinotify linked "
               "before the MPI library, and was the window made by MPI_Win_create, "
               "MPI_Win_allocate, MPI_Win_allocate_shared or MPI_Win_create_dynamic?)");
}

[[gnu::cold]] Status disabled_window() {
  return error(Errc::unsupported, "notifications are disabled on this window (mpinotify_disable)");
}

// The window of an entry point when the thread's last lookup was another
// one: from the registry, once the library is ready.
[[gnu::cold]] int first_lookup(const char *function, MPI_Win win, Window *&window) {
  if (!library_ready()) return report_not_ready(function);
  window = win == MPI_WIN_NULL ? nullptr : windows().lookup(win);
  if (window == nullptr) return report_on_window(function, win, unknown_window(win));
  return MPI_SUCCESS;
}

// Common prologue: library ready, window known and notifying; then `body`.
template <class Body>
int with_window(const char *function, MPI_Win win, Body &&body) {
  Window *window = nullptr;
  if (!recent_lookup(win, window) || window == nullptr) [[unlikely]] {
    if (const int code = first_lookup(function, win, window); code != MPI_SUCCESS) return code;
  }
  const Status st = run_guarded([&]() -> Status {
    if (!window->enabled()) [[unlikely]]
      return disabled_window();
    return body(*window);
  });
  return report_on_window(function, win, st);
}

int notified(const char *function, MPI_Win win, NotifyOp &&op, RequestSlot slot) {
  return with_window(function, win, [&](Window &window) -> Status {
    if (slot.wanted) MPINOTIFY_TRY(non_null(slot.out, "request"));
    MPINOTIFY_TRY(check_arguments(op, window));
    if (op.target_rank == MPI_PROC_NULL)
      return slot.wanted ? progress().completed_request(slot.out) : Status{};
    return notify(window, op, slot.out);
  });
}

// MPI_Put_notify: the hot path when it applies (osc_core/hot_path.hpp),
// else the general one. Inline into both entry points (MPI_Put_notify and
// its _c form): a call in between spills its ten arguments (1.5 ns of a
// 19 ns put, measured).
[[gnu::always_inline]] inline int put_notify(const char *function, const void *origin_addr,
                                             MPI_Count origin_count, MPI_Datatype origin_type,
                                             int target_rank, MPI_Aint target_disp,
                                             MPI_Count target_count, MPI_Datatype target_type,
                                             int idx, MPI_Win win) {
  Window *window = nullptr;
  if (recent_lookup(win, window) && window != nullptr) [[likely]] {
    bool taken = false;
    const Status status = run_guarded([&] {
      Status outcome;
      taken = put_on_hot_path(*window, origin_addr, origin_count, origin_type, target_rank,
                              target_disp, target_count, target_type, idx, outcome);
      return outcome;
    });
    if (taken || !status.ok()) return report_on_window(function, win, status);
  }
  return notified(function, win,
                  put_op(origin_addr, origin_count, origin_type, target_rank, target_disp,
                         target_count, target_type, idx),
                  blocking());
}

int set_num_notify(const char *function, MPI_Win win, MPI_Info /*info: no keys defined*/,
                   int num_notifications) {
  return with_window(function, win, [&](Window &window) {
    return mpinotify::set_num_notify(window, num_notifications);
  });
}

int get_num_notify(const char *function, MPI_Win win, int target_rank, int *num_notifications) {
  return with_window(function, win, [&](Window &window) -> Status {
    MPINOTIFY_TRY(non_null(num_notifications, "num_notifications"));
    return mpinotify::get_num_notify(window, target_rank, num_notifications);
  });
}

int get_notify_value(const char *function, MPI_Win win, int idx, MPI_Count *value) {
  return with_window(function, win, [&](Window &window) -> Status {
    MPINOTIFY_TRY(non_null(value, "value"));
    return read_counter(window, idx, value);
  });
}

int reset_notify_value(const char *function, MPI_Win win, int idx, MPI_Count *value) {
  return with_window(function, win, [&](Window &window) -> Status {
    MPINOTIFY_TRY(non_null(value, "value"));
    return reset_counter(window, idx, value);
  });
}

int notify_threshold(const char *function, MPI_Win win, int idx, MPI_Count threshold,
                     MPI_Request *request) {
  return with_window(function, win, [&](Window &window) -> Status {
    MPINOTIFY_TRY(non_null(request, "request"));
    if (threshold < 0)
      return error(Errc::arg, "threshold " + std::to_string(threshold) + " is negative");
    return mpinotify::notify_threshold(window, idx, threshold, request);
  });
}

}  // namespace
}  // namespace mpinotify::bindings

using namespace mpinotify::bindings;  // NOLINT(google-build-using-namespace): table rows

#define MPINOTIFY_ENTRY(name, params, call)               \
  extern "C" int PMPI_##name params {                     \
    static constexpr const char *function = "MPI_" #name; \
    return call;                                          \
  }                                                       \
  extern "C" int MPI_##name params __attribute__((weak, alias("PMPI_" #name)));
#include "entry_points.def"
#undef MPINOTIFY_ENTRY
