// MPI helpers the benchmarks share.
#pragma once

#include <mpi_notify.h>

#include <cstdint>

namespace bench {

// A new info object with one key (the caller frees it).
inline MPI_Info info_with(const char *key, const char *value) {
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  MPI_Info_set(info, key, value);
  return info;
}

// Reads a flag others accumulate into, the portable way: an atomic read
// through MPI on this rank's own memory, which also lets the host progress
// (a load after MPI_Win_sync never ends on MPICH, whose accumulates need
// the target to make progress).
inline std::int64_t poll_flag(MPI_Win win, int self, MPI_Aint at) {
  std::int64_t none = 0;
  std::int64_t value = 0;
  MPI_Fetch_and_op(&none, &value, MPI_INT64_T, self, at, MPI_NO_OP, win);
  MPI_Win_flush(self, win);
  return value;
}

}  // namespace bench
