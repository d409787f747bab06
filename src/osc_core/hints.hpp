// What a window's creation info says to the library.
#pragma once

#include <optional>
#include <string>

#include "status.hpp"

namespace mpinotify {

struct CreationHints {
  int max_num_notify = 0;  // mpi_assert_max_num_notify; 0: no limit asserted
  bool disabled = false;   // mpinotify_disable = "true"
};

// Pure: validates the raw info values (absent = nullopt). A malformed value
// gives Errc::info with a message naming the key and the value.
Status parse_creation_hints(const std::optional<std::string> &max_num_notify,
                            const std::optional<std::string> &disable, CreationHints &out);

// The attribute values of SEMANTICS 4.3 for a rank's hints.
struct NotifyLimits {
  int num_sb = 0;  // counters reserved at creation
  int num_ub = 0;  // most counters this rank may attach
};
NotifyLimits notify_limits(const CreationHints &hints, int default_reservation);

}  // namespace mpinotify
