#include "hints.hpp"

#include <algorithm>
#include <climits>

#include "params.hpp"

namespace mpinotify {
namespace {

// An info value that must be "true" or "false" (absent: false).
Status parse_flag(const char *key, const std::optional<std::string> &value, bool &out) {
  if (!value || *value == "false") {
    out = false;
  } else if (*value == "true") {
    out = true;
  } else {
    return error(Errc::info, std::string("info ") + key + "=\"" + *value +
                                 "\" is neither \"true\" nor \"false\"");
  }
  return {};
}

}  // namespace

Status parse_creation_hints(const std::optional<std::string> &max_num_notify,
                            const std::optional<std::string> &disable, CreationHints &out,
                            const std::optional<std::string> &same_num_notifications) {
  CreationHints hints;
  if (max_num_notify) {
    const auto value = parse_unsigned(*max_num_notify, INT_MAX);
    if (!value)
      return error(Errc::info, "info mpi_assert_max_num_notify=\"" + *max_num_notify +
                                   "\" is not a decimal integer in [0, " + std::to_string(INT_MAX) +
                                   "]");
    hints.max_num_notify = static_cast<int>(*value);
  }
  MPINOTIFY_TRY(parse_flag("mpinotify_disable", disable, hints.disabled));
  MPINOTIFY_TRY(parse_flag("mpi_assert_same_num_notifications", same_num_notifications,
                           hints.same_num_notifications));
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
