#include "shared_memory_window.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <numeric>

#include "osc_core/datatype.hpp"
#include "osc_core/params.hpp"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels refuse it with EINVAL
#endif

namespace mpinotify {
namespace {

// Maps [base, base + bytes) writable in this process's page tables and
// reads a byte of each page. A first store through this process's
// mapping of a page faults even where another process made the page; a
// put that cycles through a large window would pay that fault (1-15 us
// on a virtual machine) every 4 KiB inside the program's loop, as
// send/recv, whose copies reach fresh pages from the kernel, does not.
// The read makes the hypervisor's view of the new entries current too:
// on a virtual machine the first access after populating costs nearly
// as much as the fault. Native RDMA windows pay the same at creation
// when they register (pin) their memory.
void prefault(char *base, std::uint64_t bytes) {
  if (bytes == 0) return;
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto first = reinterpret_cast<std::uintptr_t>(base) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(base) + bytes + page - 1) & ~(page - 1);
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the pages of a mapping
  if (madvise(reinterpret_cast<void *>(first), end - first, MADV_POPULATE_WRITE) != 0) return;
  // A byte of each page that lies in the memory itself: the pages at
  // either end may hold other memory (a host can place a small window on
  // its heap).
  const auto stop = reinterpret_cast<std::uintptr_t>(base) + bytes;
  for (auto at = reinterpret_cast<std::uintptr_t>(base); at < stop; at = (at & ~(page - 1)) + page)
    // NOLINTNEXTLINE(performance-no-int-to-ptr): reads a byte of each page
    (void)__atomic_load_n(reinterpret_cast<const char *>(at), __ATOMIC_RELAXED);
}

}  // namespace

std::vector<std::uint64_t> prefault_shares(const std::vector<std::uint64_t> &sizes,
                                           std::uint64_t budget) {
  std::vector<std::uint64_t> shares(sizes.size(), 0);
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return sizes[a] < sizes[b] || (sizes[a] == sizes[b] && a < b);
  });
  // Smallest first: each takes its size or an equal share of what is left.
  std::size_t left = order.size();
  for (std::size_t r : order) {
    const std::uint64_t share = std::min<std::uint64_t>(sizes[r], budget / left);
    shares[r] = share;
    budget -= share;
    --left;
  }
  return shares;
}

int make_host_window_in_shared_memory(const CreateRequest &request, MPI_Aint bytes,
                                      std::uint32_t stride, HostWindow &out) {
  MPI_Info info = MPI_INFO_NULL;
  int rc =
      request.info == MPI_INFO_NULL ? PMPI_Info_create(&info) : PMPI_Info_dup(request.info, &info);
  if (rc == MPI_SUCCESS) {
    rc = PMPI_Info_set(info, "alloc_shared_noncontig", "true");
    if (rc == MPI_SUCCESS)
      rc = request.create_shared(bytes, info, request.library_comm, &out.handle);
    PMPI_Info_free(&info);
  }
  // One collective says both whether every rank has the window and whether
  // every rank passed the same stride (a rank finds another's tail
  // counters by that stride alone).
  int agreed[3] = {rc == MPI_SUCCESS ? 1 : 0, static_cast<int>(stride), -static_cast<int>(stride)};
  if (PMPI_Allreduce(MPI_IN_PLACE, agreed, 3, MPI_INT, MPI_MIN, request.library_comm) !=
          MPI_SUCCESS ||
      agreed[0] != 1) {
    if (rc == MPI_SUCCESS) PMPI_Win_free(&out.handle);
    out.handle = MPI_WIN_NULL;
    return request.create(request.info, &out.handle);
  }
  out.in_shared_memory = true;
  if (agreed[1] == -agreed[2]) out.tail_counter_stride = static_cast<std::uint32_t>(agreed[1]);
  return MPI_SUCCESS;
}

void SharedMemoryWindow::map(const Window &window) {
  if (window.flavor() != Flavor::shared && !window.in_shared_memory()) return;
  const int ranks = window.size();
  std::vector<char *> memory(static_cast<std::size_t>(ranks), nullptr);
  std::vector<int> disp_units(static_cast<std::size_t>(ranks), 1);
  std::vector<std::uint64_t> sizes(static_cast<std::size_t>(ranks), 0);
  for (int r = 0; r < ranks; ++r) {
    MPI_Aint size = 0;
    void *base = nullptr;
    if (PMPI_Win_shared_query(window.handle(), r, &size, &disp_units[static_cast<std::size_t>(r)],
                              &base) != MPI_SUCCESS)
      return;  // the caller keeps moving the data another way
    memory[static_cast<std::size_t>(r)] = static_cast<char *>(base);
    if (base != nullptr && size > 0)
      sizes[static_cast<std::size_t>(r)] = static_cast<std::uint64_t>(size);
  }
  memory_ = std::move(memory);
  disp_units_ = std::move(disp_units);
  if (params().prefault_bytes == 0) return;
  const auto shares = prefault_shares(sizes, params().prefault_bytes);
  for (std::size_t r = 0; r < shares.size(); ++r) prefault(memory_[r], shares[r]);
}

Status SharedMemoryWindow::copy(const NotifyOp &op, MPI_Comm comm, bool &done) const {
  done = false;
  if (memory_.empty() || (op.kind != OpKind::put && op.kind != OpKind::get)) return {};
  char *target = at(op.target_rank, op.target_disp);
  if (op.kind == OpKind::put) {
    return local_copy_fast(op.origin_addr, op.origin_count, op.origin_type, op.origin_shape, target,
                           op.target_count, op.target_type, op.target_shape, comm, done);
  }
  return local_copy_fast(target, op.target_count, op.target_type, op.target_shape, op.result_addr,
                         op.result_count, op.result_type, op.result_shape, comm, done);
}

}  // namespace mpinotify
