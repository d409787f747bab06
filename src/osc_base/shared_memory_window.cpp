#include "shared_memory_window.hpp"

#include "osc_core/datatype.hpp"

namespace mpinotify {

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
  for (int r = 0; r < ranks; ++r) {
    MPI_Aint size = 0;
    void *base = nullptr;
    if (PMPI_Win_shared_query(window.handle(), r, &size, &disp_units[static_cast<std::size_t>(r)],
                              &base) != MPI_SUCCESS)
      return;  // the caller keeps moving the data another way
    memory[static_cast<std::size_t>(r)] = static_cast<char *>(base);
  }
  memory_ = std::move(memory);
  disp_units_ = std::move(disp_units);
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
