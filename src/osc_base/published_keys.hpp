// A window's entry in its process's key table (key_slots.hpp), and the
// collective step that tells peers a window's keys: published in the table
// where every rank's fit, gathered where some rank's do not.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>

#include "key_slots.hpp"
#include "osc_core/mpi_host.hpp"
#include "osc_core/status.hpp"

namespace mpinotify {

class PublishedKeys {
 public:
  explicit PublishedKeys(KeySlots &table) : table_(table) {}
  PublishedKeys(const PublishedKeys &) = delete;
  PublishedKeys &operator=(const PublishedKeys &) = delete;
  ~PublishedKeys() { withdraw(); }

  // Collective over `comm`, at a window's creation and at each growth:
  // publishes `mine` (its generation is the next one) unless `refused`,
  // and agrees in one allreduce, which is also a barrier, whether every
  // rank could. If not, `gather(mine)` (collective) makes peers' copy and
  // no rank keeps a slot. If the allreduce or the gather fails, the window
  // keeps its previous keys, in its previous slot.
  // `local` is a failure this rank brings (it publishes nothing then):
  // it rides the allreduce, so every rank fails and nothing changes.
  Status exchange(MPI_Comm comm, const WindowKeys &mine, bool refused, const Status &local,
                  const std::function<Status(const WindowKeys &)> &gather);

  // Whether peers find this window's keys in the table (else they were
  // gathered).
  bool in_table() const { return slot_ >= 0; }
  // How many exchanges the window had: the generation readers expect.
  std::uint64_t generation() const { return generation_; }
  // This rank's keys as exchanged last (views into this object).
  WindowKeys current() const { return {window_key_, generation_, bases_, {keys_[0], keys_[1]}}; }
  // Frees the slot (before the window's storage goes).
  void withdraw();

 private:
  KeySlots &table_;
  int slot_ = -1;
  std::uint64_t window_key_ = 0;
  std::uint64_t generation_ = 0;
  std::array<std::uint64_t, 2> bases_{};
  std::array<std::string, 2> keys_;
};

}  // namespace mpinotify
