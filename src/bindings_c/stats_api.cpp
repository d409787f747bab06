// MPINOTIFY_Win_get_stats and MPINOTIFY_Get_stats: the counts of
// MPINOTIFY_STATS (osc_core/stats.hpp) through the C ABI.
#include <cstdint>
#include <string>

#include "mpi_notify.h"
#include "osc_core/backend.hpp"
#include "osc_core/registry.hpp"
#include "osc_core/stats.hpp"
#include "report.hpp"

namespace mpinotify::bindings {
namespace {

// The struct's fields after `enabled`, in Stat order.
void fill(const StatValues &values, MPINOTIFY_Stats *out) {
  MPI_Count *const fields[] = {&out->put_notify,
                               &out->get_notify,
                               &out->accumulate_notify,
                               &out->get_accumulate_notify,
                               &out->request_forms,
                               &out->bytes,
                               &out->host_path,
                               &out->counter_reads,
                               &out->counter_resets,
                               &out->threshold_requests,
                               &out->num_notify_calls,
                               &out->growths,
                               &out->windows};
  static_assert(std::size(fields) == kStatCount, "a field per counted event");
  out->enabled = stats_enabled ? 1 : 0;
  for (std::size_t i = 0; i < kStatCount; ++i) *fields[i] = static_cast<MPI_Count>(values[i]);
}

Status non_null_stats(const MPINOTIFY_Stats *stats) {
  if (stats == nullptr) return error(Errc::arg, "stats is NULL");
  return {};
}

}  // namespace
}  // namespace mpinotify::bindings

using namespace mpinotify;            // NOLINT(google-build-using-namespace)
using namespace mpinotify::bindings;  // NOLINT(google-build-using-namespace)

extern "C" int MPINOTIFY_Win_get_stats(MPI_Win win, MPINOTIFY_Stats *stats) {
  constexpr const char *function = "MPINOTIFY_Win_get_stats";
  if (!library_ready()) return report_not_ready(function);
  const Status st = run_guarded([&]() -> Status {
    if (win == MPI_WIN_NULL) return error(Errc::win, "the window is MPI_WIN_NULL");
    MPINOTIFY_TRY(non_null_stats(stats));
    // Windows with notifications disabled have counts too: all zero.
    Window *window = windows().lookup(win);
    if (window == nullptr) return error(Errc::win, "the window was not created through mpinotify");
    fill(window->stats().snapshot(), stats);
    return {};
  });
  return report_on_window(function, win, st);
}

extern "C" int MPINOTIFY_Get_stats(const char *backend, MPINOTIFY_Stats *stats) {
  constexpr const char *function = "MPINOTIFY_Get_stats";
  if (!library_ready()) return report_not_ready(function);
  const Status st = run_guarded([&]() -> Status {
    MPINOTIFY_TRY(non_null_stats(stats));
    const std::string name = backend != nullptr ? backend : "";
    if (!name.empty() && BackendRegistry::instance().find(name) == nullptr)
      return error(Errc::arg, "no backend named \"" + name + "\" in this build");
    fill(process_totals(name), stats);
    return {};
  });
  return report_on_window(function, MPI_WIN_NULL, st);
}
