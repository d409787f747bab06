#include "hints.hpp"

#include <algorithm>
#include <climits>

#include "params.hpp"

namespace mpinotify {

Status parse_creation_hints(const std::optional<std::string> &max_num_notify,
                            const std::optional<std::string> &disable, CreationHints &out) {
  CreationHints hints;
  if (max_num_notify) {
    const auto value = parse_unsigned(*max_num_notify, INT_MAX);
    if (!value)
      return error(Errc::info, "info mpi_assert_max_num_notify=\"" + *max_num_notify +
                                   "\" is not a decimal integer in [0, " + std::to_string(INT_MAX) +
                                   "]");
    hints.max_num_notify = static_cast<int>(*value);
  }
  if (disable) {
    if (*disable == "true") {
      hints.disabled = true;
    } else if (*disable != "false") {
      return error(Errc::info,
                   "info mpinotify_disable=\"" + *disable + "\" is neither \"true\" nor \"false\"");
    }
  }
  out = hints;
  return {};
}

NotifyLimits notify_limits(const CreationHints &hints, int default_reservation) {
  if (hints.disabled) return {0, 0, 0};
  const int num_sb =
      hints.max_num_notify > 0 ? hints.max_num_notify : std::clamp(default_reservation, 0, INT_MAX);
  const int num_ub = hints.max_num_notify > 0 ? hints.max_num_notify : INT_MAX;
  return {num_sb, num_ub, std::min(num_sb, kMaxEagerReservation)};
}

}  // namespace mpinotify
