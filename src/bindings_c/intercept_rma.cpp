// Plain RMA calls go to the host unchanged. On windows the library serves it
// marks the target as owed a host flush once the call returned, so that a
// flush owing the host nothing skips the host's call (osc_core/sync.cpp).
// Every RMA call of the C ABI is here, so no plain operation escapes a mark.
#include "osc_core/registry.hpp"
#include "report.hpp"

namespace {

int marked(int rc, int target_rank, MPI_Win win) {
  if (rc != MPI_SUCCESS || target_rank == MPI_PROC_NULL || !mpinotify::bindings::library_ready())
    return rc;
  if (mpinotify::Window *window = mpinotify::windows().lookup(win)) {
    if (target_rank >= 0 && target_rank < window->size()) window->host_owed().note(target_rank);
  }
  return rc;
}

}  // namespace

// The count-typed calls, once with int counts and, on MPI-4 hosts, once
// with MPI_Count counts (the _c forms).
#define MPINOTIFY_PLAIN_RMA(SUFFIX, C)                                                             \
  extern "C" int MPI_Put##SUFFIX(                                                                  \
      const void *origin_addr, C origin_count, MPI_Datatype origin_datatype, int target_rank,      \
      MPI_Aint target_disp, C target_count, MPI_Datatype target_datatype, MPI_Win win) {           \
    return marked(PMPI_Put##SUFFIX(origin_addr, origin_count, origin_datatype, target_rank,        \
                                   target_disp, target_count, target_datatype, win),               \
                  target_rank, win);                                                               \
  }                                                                                                \
  extern "C" int MPI_Get##SUFFIX(void *origin_addr, C origin_count, MPI_Datatype origin_datatype,  \
                                 int target_rank, MPI_Aint target_disp, C target_count,            \
                                 MPI_Datatype target_datatype, MPI_Win win) {                      \
    return marked(PMPI_Get##SUFFIX(origin_addr, origin_count, origin_datatype, target_rank,        \
                                   target_disp, target_count, target_datatype, win),               \
                  target_rank, win);                                                               \
  }                                                                                                \
  extern "C" int MPI_Accumulate##SUFFIX(const void *origin_addr, C origin_count,                   \
                                        MPI_Datatype origin_datatype, int target_rank,             \
                                        MPI_Aint target_disp, C target_count,                      \
                                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {    \
    return marked(PMPI_Accumulate##SUFFIX(origin_addr, origin_count, origin_datatype, target_rank, \
                                          target_disp, target_count, target_datatype, op, win),    \
                  target_rank, win);                                                               \
  }                                                                                                \
  extern "C" int MPI_Get_accumulate##SUFFIX(                                                       \
      const void *origin_addr, C origin_count, MPI_Datatype origin_datatype, void *result_addr,    \
      C result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,         \
      C target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {                      \
    return marked(                                                                                 \
        PMPI_Get_accumulate##SUFFIX(origin_addr, origin_count, origin_datatype, result_addr,       \
                                    result_count, result_datatype, target_rank, target_disp,       \
                                    target_count, target_datatype, op, win),                       \
        target_rank, win);                                                                         \
  }                                                                                                \
  extern "C" int MPI_Rput##SUFFIX(                                                                 \
      const void *origin_addr, C origin_count, MPI_Datatype origin_datatype, int target_rank,      \
      MPI_Aint target_disp, C target_count, MPI_Datatype target_datatype, MPI_Win win,             \
      MPI_Request *request) {                                                                      \
    return marked(PMPI_Rput##SUFFIX(origin_addr, origin_count, origin_datatype, target_rank,       \
                                    target_disp, target_count, target_datatype, win, request),     \
                  target_rank, win);                                                               \
  }                                                                                                \
  extern "C" int MPI_Rget##SUFFIX(void *origin_addr, C origin_count, MPI_Datatype origin_datatype, \
                                  int target_rank, MPI_Aint target_disp, C target_count,           \
                                  MPI_Datatype target_datatype, MPI_Win win,                       \
                                  MPI_Request *request) {                                          \
    return marked(PMPI_Rget##SUFFIX(origin_addr, origin_count, origin_datatype, target_rank,       \
                                    target_disp, target_count, target_datatype, win, request),     \
                  target_rank, win);                                                               \
  }                                                                                                \
  extern "C" int MPI_Raccumulate##SUFFIX(                                                          \
      const void *origin_addr, C origin_count, MPI_Datatype origin_datatype, int target_rank,      \
      MPI_Aint target_disp, C target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,  \
      MPI_Request *request) {                                                                      \
    return marked(                                                                                 \
        PMPI_Raccumulate##SUFFIX(origin_addr, origin_count, origin_datatype, target_rank,          \
                                 target_disp, target_count, target_datatype, op, win, request),    \
        target_rank, win);                                                                         \
  }                                                                                                \
  extern "C" int MPI_Rget_accumulate##SUFFIX(                                                      \
      const void *origin_addr, C origin_count, MPI_Datatype origin_datatype, void *result_addr,    \
      C result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,         \
      C target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,                        \
      MPI_Request *request) {                                                                      \
    return marked(                                                                                 \
        PMPI_Rget_accumulate##SUFFIX(origin_addr, origin_count, origin_datatype, result_addr,      \
                                     result_count, result_datatype, target_rank, target_disp,      \
                                     target_count, target_datatype, op, win, request),             \
        target_rank, win);                                                                         \
  }

MPINOTIFY_PLAIN_RMA(, int)
#if MPI_VERSION >= 4
MPINOTIFY_PLAIN_RMA(_c, MPI_Count)
#endif

extern "C" int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                                int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  return marked(
      PMPI_Fetch_and_op(origin_addr, result_addr, datatype, target_rank, target_disp, op, win),
      target_rank, win);
}

extern "C" int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                                    void *result_addr, MPI_Datatype datatype, int target_rank,
                                    MPI_Aint target_disp, MPI_Win win) {
  return marked(PMPI_Compare_and_swap(origin_addr, compare_addr, result_addr, datatype, target_rank,
                                      target_disp, win),
                target_rank, win);
}
