#include "world_ranks.hpp"

#include <numeric>

namespace mpinotify {

std::vector<int> world_ranks(MPI_Comm comm) {
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Group world = MPI_GROUP_NULL;
  PMPI_Comm_group(comm, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  int n = 0;
  PMPI_Group_size(group, &n);
  std::vector<int> members(static_cast<std::size_t>(n));
  std::vector<int> ranks(static_cast<std::size_t>(n));
  std::iota(members.begin(), members.end(), 0);
  PMPI_Group_translate_ranks(group, n, members.data(), world, ranks.data());
  PMPI_Group_free(&group);
  PMPI_Group_free(&world);
  for (const int r : ranks) {
    if (r == MPI_UNDEFINED) return {};
  }
  return ranks;
}

}  // namespace mpinotify
