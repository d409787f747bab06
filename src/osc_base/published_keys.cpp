#include "published_keys.hpp"

namespace mpinotify {

Status PublishedKeys::exchange(MPI_Comm comm, const WindowKeys &mine, bool refused,
                               const Status &local,
                               const std::function<Status(const WindowKeys &)> &gather) {
  WindowKeys next = mine;
  next.generation = generation_ + 1;
  const int previous = slot_;
  // A host error's own code is this rank's alone: every rank reports a class.
  const Status failure = local.code() == Errc::host ? error(Errc::other, local.message()) : local;
  int slot = refused || !failure.ok() ? -1 : table_.publish(slot_, next);
  // 1: published; 0: not, so gather; below 0: failed with class
  // -1 - everyone (the highest wins, as in agreement.hpp), so does everyone.
  int everyone = !failure.ok() ? -1 - static_cast<int>(failure.code()) : slot >= 0 ? 1 : 0;
  Status exchanged = host_status(PMPI_Allreduce(MPI_IN_PLACE, &everyone, 1, MPI_INT, MPI_MIN, comm),
                                 "MPI_Allreduce");
  if (exchanged.ok() && everyone < 0)
    exchanged = !failure.ok() ? failure
                              : error(static_cast<Errc>(-1 - everyone),
                                      "another rank failed before exchanging the window's keys");
  if (exchanged.ok() && everyone == 0) exchanged = gather(next);
  if (!exchanged.ok()) {
    if (previous >= 0)
      table_.publish(previous, current());
    else
      table_.withdraw(slot);
    return exchanged;
  }
  if (everyone == 0) {
    table_.withdraw(slot >= 0 ? slot : previous);
    slot = -1;
  }
  slot_ = slot;
  generation_ = next.generation;
  window_key_ = next.window_key;
  bases_ = next.bases;
  keys_ = {std::string(next.keys[0]), std::string(next.keys[1])};
  return {};
}

void PublishedKeys::withdraw() {
  table_.withdraw(slot_);
  slot_ = -1;
}

}  // namespace mpinotify
