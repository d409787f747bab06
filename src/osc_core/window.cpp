#include "window.hpp"

#include <algorithm>

#include "datatype.hpp"
#include "runtime.hpp"

namespace mpinotify {

Window::Window(WindowSetup setup)
    : setup_(std::move(setup)),
      module_(std::make_unique<Module>()),
      epochs_(setup_.ranks),
      host_owed_(setup_.ranks) {
  PMPI_Comm_rank(setup_.comm, &rank_);
  thread_multiple_ = runtime().thread_multiple();
  attr_num_sb = setup_.limits.num_sb;
  attr_num_ub = setup_.limits.num_ub;
  attr_value_ub = enabled() ? INT64_MAX : 0;
  if (stats_enabled && enabled()) {
    backend_stats_ = &process_stats(backend_name());
    tally(Stat::windows);
  }
}

bool Window::group_known() const {
  const std::vector<const Backend *> backends = BackendRegistry::instance().all();
  const auto at = std::find(backends.begin(), backends.end(), setup_.backend);
  const auto index = at - backends.begin();
  return at != backends.end() && index < 32 && ((setup_.groups_known >> index) & 1U) != 0;
}

Window::~Window() {
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (setup_.comm != MPI_COMM_NULL && finalized == 0) PMPI_Comm_free(&setup_.comm);
}

const char *Window::backend_name() const {
  return setup_.backend != nullptr ? setup_.backend->name() : "none";
}

void Window::set_counts(RankCounts counts) {
  any_counters_ = counts.any();
  counts_ = std::move(counts);
}

Status Window::rank_error(int rank) const {
  return error(Errc::rank, "target_rank " + std::to_string(rank) +
                               " is outside the window's group of " + std::to_string(size()));
}

Status Window::index_error(int target, int idx) const {
  return error(Errc::notification, "notification index " + std::to_string(idx) +
                                       " is outside [0, " + std::to_string(count(target)) +
                                       ") attached at rank " + std::to_string(target));
}

Status Window::range_error(const NotifyOp &op) const {
  const RankSpan &span = this->span(op.target_rank);
  return error(Errc::rma_range, "target range at displacement " + std::to_string(op.target_disp) +
                                    " (disp_unit " + std::to_string(span.disp_unit) +
                                    ") leaves the " + std::to_string(span.size) +
                                    "-byte window of rank " + std::to_string(op.target_rank));
}

std::optional<std::shared_lock<std::shared_mutex>> Window::try_shared_access() {
  if (!thread_multiple_) return std::shared_lock<std::shared_mutex>();
  std::shared_lock lock(access_, std::try_to_lock);
  if (!lock.owns_lock()) return std::nullopt;
  return lock;
}

std::unique_lock<std::shared_mutex> Window::exclusive_access() {
  if (!thread_multiple_) return {};
  return std::unique_lock(access_);
}

}  // namespace mpinotify
