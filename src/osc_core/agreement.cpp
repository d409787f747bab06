#include "agreement.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace mpinotify {

Verdict combine_verdicts(std::span<const Errc> codes) {
  Verdict v;
  for (std::size_t r = 0; r < codes.size(); ++r) {
    if (codes[r] != Errc::ok && codes[r] > v.code) v = {codes[r], static_cast<int>(r)};
  }
  return v;
}

Status agreed_status(const Status &local, const Verdict &verdict, int my_rank,
                     const char *operation) {
  if (verdict.code == Errc::ok) return {};
  if (verdict.rank == my_rank || (local.code() == verdict.code && !local.ok())) return local;
  return error(verdict.code == Errc::host ? Errc::other : verdict.code,
               std::string(operation) + " refused on every rank: rank " +
                   std::to_string(verdict.rank) + " reported " + errc_name(verdict.code));
}

Status agree(MPI_Comm comm, const Status &local, const char *operation) {
  struct {
    int code;
    int rank;
  } mine{}, worst{};
  MPINOTIFY_TRY(host_status(PMPI_Comm_rank(comm, &mine.rank), "MPI_Comm_rank"));
  mine.code = static_cast<int>(local.code());
  // MAXLOC on (code, rank) picks the highest code and the lowest rank with it.
  MPINOTIFY_TRY(
      host_status(PMPI_Allreduce(&mine, &worst, 1, MPI_2INT, MPI_MAXLOC, comm), "MPI_Allreduce"));
  Verdict v;
  if (worst.code != 0) v = {static_cast<Errc>(worst.code), worst.rank};
  return agreed_status(local, v, mine.rank, operation);
}

bool on_every_rank(MPI_Comm comm, bool mine) {
  int all = mine ? 1 : 0;
  return PMPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm) == MPI_SUCCESS && all == 1;
}

namespace {

// Collective: every rank's `mine`, whose lengths every rank already knows.
Status allgather_known_lengths(MPI_Comm comm, std::string_view mine,
                               const std::vector<int> &lengths, std::vector<std::string> &all) {
  std::vector<int> offsets(lengths.size(), 0);
  for (std::size_t r = 1; r < lengths.size(); ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::string joined(static_cast<std::size_t>(offsets.back() + lengths.back()), '\0');
  MPINOTIFY_TRY(
      host_status(PMPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_BYTE,
                                  joined.data(), lengths.data(), offsets.data(), MPI_BYTE, comm),
                  "MPI_Allgatherv"));
  all.clear();
  for (std::size_t r = 0; r < lengths.size(); ++r)
    all.push_back(
        joined.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
  return {};
}

}  // namespace

Status allgather_bytes(MPI_Comm comm, const std::string &mine, std::vector<std::string> &all,
                       std::size_t slot_bytes) {
  int size = 0;
  MPINOTIFY_TRY(host_status(PMPI_Comm_size(comm, &size), "MPI_Comm_size"));
  const auto ranks = static_cast<std::size_t>(size);
  if (slot_bytes <= sizeof(std::uint32_t) || ranks * slot_bytes > kSlotGatherLimit) {
    std::vector<int> lengths;
    MPINOTIFY_TRY(allgather_records(comm, static_cast<int>(mine.size()), lengths));
    return allgather_known_lengths(comm, mine, lengths, all);
  }
  // One slot per rank: its length, then as much as fits. What does not fit
  // follows in a second round, which every rank then knows to make.
  const std::size_t room = slot_bytes - sizeof(std::uint32_t);
  std::string slot(slot_bytes, '\0');
  const auto length = static_cast<std::uint32_t>(mine.size());
  std::memcpy(slot.data(), &length, sizeof length);
  std::memcpy(slot.data() + sizeof length, mine.data(), std::min(room, mine.size()));
  std::string joined(ranks * slot_bytes, '\0');
  MPINOTIFY_TRY(
      host_status(PMPI_Allgather(slot.data(), static_cast<int>(slot_bytes), MPI_BYTE, joined.data(),
                                 static_cast<int>(slot_bytes), MPI_BYTE, comm),
                  "MPI_Allgather"));
  all.assign(ranks, std::string());
  std::vector<int> tails(ranks, 0);
  bool any_tail = false;
  for (std::size_t r = 0; r < ranks; ++r) {
    std::uint32_t theirs = 0;
    std::memcpy(&theirs, joined.data() + r * slot_bytes, sizeof theirs);
    all[r].assign(joined.data() + r * slot_bytes + sizeof theirs,
                  std::min<std::size_t>(room, theirs));
    tails[r] = static_cast<int>(theirs - all[r].size());
    any_tail = any_tail || tails[r] > 0;
  }
  if (!any_tail) return {};
  std::vector<std::string> rest;
  MPINOTIFY_TRY(allgather_known_lengths(
      comm, std::string_view(mine).substr(std::min(room, mine.size())), tails, rest));
  for (std::size_t r = 0; r < ranks; ++r) all[r] += rest[r];
  return {};
}

}  // namespace mpinotify
