// Dynamic windows: the library's part of MPI_Win_attach and MPI_Win_detach,
// and the range check of SEMANTICS 3.4 against attached memory.
#include "osc.hpp"
#include "params.hpp"

namespace mpinotify {

Status attach_memory(Window &window, void *base, MPI_Aint size) {
  if (window.flavor() != Flavor::dynamic || size <= 0) return {};
  if (fault_injected("attach", window.rank()))
    return error(Errc::no_mem, "MPINOTIFY_FAULT: the library cannot note the attached memory");
  auto guard = window.shared_access();
  const auto address = reinterpret_cast<std::uint64_t>(base);
  window.local_regions().attach(address, static_cast<std::uint64_t>(size));
  try {
    window.module().attached(base, size);
  } catch (...) {
    window.local_regions().detach(address);  // the caller undoes the host's attach
    throw;
  }
  return {};
}

Status detach_memory(Window &window, const void *base) {
  if (window.flavor() != Flavor::dynamic) return {};
  auto guard = window.shared_access();
  // Unlisted first: a peer that hears of the detach (the backend tells
  // them) and reads the table again no longer finds the region.
  if (window.local_regions().detach(reinterpret_cast<std::uint64_t>(base)))
    window.module().detaching(base);
  return {};
}

Status check_attached(Window &window, const NotifyOp &op) {
  const ByteSpan span = op.target_shape.span(op.target_count);
  if (span.lo == span.hi) return {};  // nothing is accessed
  MPI_Count lo = 0;
  MPI_Count hi = 0;
  if (__builtin_add_overflow(static_cast<MPI_Count>(op.target_disp), span.lo, &lo) ||
      __builtin_add_overflow(static_cast<MPI_Count>(op.target_disp), span.hi, &hi) || lo < 0)
    return error(Errc::rma_range, "target range at address " + std::to_string(op.target_disp) +
                                      " leaves the address space");
  Module &module = window.module();
  const int target = op.target_rank;
  return window.peer_regions().check(
      target, static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(hi),
      module.region_stamp(target),
      [&module](int t, RegionTable &copy) { return module.fetch_regions(t, copy); });
}

}  // namespace mpinotify
