// What a window's creation info says to the library.
#pragma once

#include <optional>
#include <string>

#include "status.hpp"

namespace mpinotify {

struct CreationHints {
  int max_num_notify = 0;               // mpi_assert_max_num_notify; 0: no limit asserted
  bool disabled = false;                // mpinotify_disable = "true"
  bool same_num_notifications = false;  // mpi_assert_same_num_notifications = "true"
};

// Pure: validates the raw info values (absent = nullopt). A malformed value
// gives Errc::info with a message naming the key and the value, and leaves
// `out` as it was.
Status parse_creation_hints(const std::optional<std::string> &max_num_notify,
                            const std::optional<std::string> &disable, CreationHints &out,
                            const std::optional<std::string> &same_num_notifications = {});

// Counters reserved eagerly at creation at most. An assertion may be as
// large as INT_MAX (16 GiB of counters); reserving that up front would make
// the assertion itself fail, so beyond this many the counters come by growth.
inline constexpr int kMaxEagerReservation = 1 << 16;

// The attribute values of SEMANTICS 4.3 for a rank's hints, and what
// creation reserves.
struct NotifyLimits {
  int num_sb = 0;   // MPI_WIN_NOTIFICATION_NUM_SB
  int num_ub = 0;   // MPI_WIN_NOTIFICATION_NUM_UB: most counters this rank may attach
  int reserve = 0;  // counters reserved at creation: num_sb, up to kMaxEagerReservation
};
NotifyLimits notify_limits(const CreationHints &hints, int default_reservation);

}  // namespace mpinotify
