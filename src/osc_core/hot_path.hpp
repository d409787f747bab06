// The hot path of a notified put: the common case (one predefined
// contiguous type on both sides, a window of memory in a passive-target
// epoch, a blocking call, no statistics) checked inline and handed to the
// module's put_contiguous, skipping the general path's operation record,
// its type lookups and its calls between translation units.
//
// It decides nothing on its own: whatever it does not accept (an argument
// that fails a check included) goes to the general path, which checks
// everything again and reports the error. So the checks it makes are
// SEMANTICS 3.4's, made where they are cheap: the same type on both sides
// makes one size check two, a known predefined type needs no commit check,
// and a count below 2^31 of a type of at most 2^31 bytes cannot overflow.
#pragma once

#include <cstdint>

#include "registry.hpp"
#include "stats.hpp"
#include "window.hpp"

namespace mpinotify {

// True when the put took this path, with its outcome in `status`; false
// when the caller must take the general path (nothing happened).
inline bool put_on_hot_path(Window &window, const void *origin, MPI_Count origin_count,
                            MPI_Datatype origin_type, int target, MPI_Aint disp,
                            MPI_Count target_count, MPI_Datatype target_type, int idx,
                            Status &status) {
  if (origin_type != target_type || origin_count != target_count || stats_enabled ||
      window.flavor() == Flavor::dynamic || !window.enabled())
    return false;
  const TypeShape *shape = known_predefined_shape(target_type);
  constexpr std::uint64_t kSmall = std::uint64_t{1} << 31;
  // Negative counts, ranks (MPI_PROC_NULL) and displacements turn huge.
  if (shape == nullptr || !shape->contiguous() || shape->true_lb != 0 ||
      static_cast<std::uint64_t>(target_count) >= kSmall ||
      static_cast<std::uint64_t>(shape->size) >= kSmall ||
      static_cast<std::uint64_t>(disp) >= kSmall * kSmall ||
      static_cast<unsigned>(target) >= static_cast<unsigned>(window.size()))
    return false;
  auto guard = window.shared_access();
  if (static_cast<unsigned>(idx) >= static_cast<unsigned>(window.count(target))) return false;
  const MPI_Count bytes = target_count * shape->size;
  const RankSpan &span = window.span(target);
  // disp < 2^62 and disp_unit < 2^31 in a window: the product may still
  // overflow, which the builtin catches.
  MPI_Count offset = 0;
  if (bytes > 0 && (__builtin_mul_overflow(static_cast<MPI_Count>(disp),
                                           static_cast<MPI_Count>(span.disp_unit), &offset) ||
                    offset > span.size - bytes))
    return false;
  if (window.epochs().mode_for(target) != EpochMode::passive) return false;
  return window.module().put_contiguous(target, disp, origin, static_cast<std::size_t>(bytes), idx,
                                        status);
}

}  // namespace mpinotify
