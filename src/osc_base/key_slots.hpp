// A process's table of what peers need to reach its windows' storage (base
// addresses and packed keys), kept in memory that peers read remotely. An
// origin learns a target's keys for a window from the target's table on its
// first operation to that target, instead of every rank receiving every
// rank's keys at creation: a rank keeps the keys of the peers it talks to.
//
// A window's slot is one of kProbes slots from its window key (the
// creation's agreed key, creation_summary.hpp) onwards. A window writes its
// slot only inside its own collective calls (creation, growth), after their
// agreement and before the collective that ends them, when no member reads
// it; a reader takes a slot only if it holds that window's key and the
// generation (the count of the window's key agreements) it expects, with an
// even version. A slot written for another window while a reader probes
// past it has an odd version or another key, so it is never taken for this
// window.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "osc_core/status.hpp"

namespace mpinotify {

inline constexpr std::size_t kKeySlotBytes = 256;
// Slots of a process's key table: windows of the process that can publish
// their keys at once (64 KiB, registered once); windows past that gather.
inline constexpr std::size_t kKeyTableSlots = 256;
inline constexpr std::size_t kKeySlotHeaderBytes = 48;  // the fields before KeySlot::keys
// Room for a window's packed keys (both of them) in one slot.
inline constexpr std::size_t kKeySlotKeyBytes = kKeySlotBytes - kKeySlotHeaderBytes;

struct KeySlot {
  std::uint64_t version;     // odd while the owner writes the slot
  std::uint64_t window_key;  // 0: free
  std::uint64_t generation;
  std::array<std::uint64_t, 2> bases;      // counters, window memory
  std::array<std::uint32_t, 2> key_bytes;  // their packed keys', in keys
  std::array<char, kKeySlotKeyBytes> keys;
};
static_assert(sizeof(KeySlot) == kKeySlotBytes);

// A window's keys, as published and as read back.
struct WindowKeys {
  std::uint64_t window_key = 0;
  std::uint64_t generation = 0;
  std::array<std::uint64_t, 2> bases{};
  std::array<std::string_view, 2> keys;  // into the slot, when read back
};

class KeySlots {
 public:
  static constexpr std::size_t kProbes = 4;

  // Over `count` zeroed slots that outlive this object.
  KeySlots(KeySlot *slots, std::size_t count) : slots_(slots), count_(count) {}

  // The i-th slot a window with `window_key` may hold.
  static std::size_t probe(std::uint64_t window_key, std::size_t i, std::size_t count) {
    return static_cast<std::size_t>((window_key + i) % count);
  }
  std::size_t count() const { return count_; }

  // Writes `keys` into `slot` (which this window published in before), or
  // into a free slot among its probes (`slot` < 0). Returns the slot, or -1
  // when the keys do not fit, no probe is free, or another live window of
  // this process holds the same key (two created at once).
  int publish(int slot, const WindowKeys &keys);
  // Frees a slot from publish.
  void withdraw(int slot);

 private:
  void write(KeySlot &slot, const WindowKeys &keys);

  std::mutex mutex_;  // windows of several threads publish at once
  KeySlot *slots_;
  std::size_t count_;
};

// Pure: whether a slot read from a peer holds `window_key`'s keys of
// `generation`, and if so what they are (views into `slot`).
bool read_slot(const KeySlot &slot, std::uint64_t window_key, std::uint64_t generation,
               WindowKeys &out);

// Finds `target`'s keys for the window `window_key`, of `generation`, in
// its table of `count` slots: `read(index, slot)` reads one slot of it
// (remotely) into `slot`, which keeps the bytes `out` views. An error if
// no probe holds them.
template <class Read>
Status find_keys(std::uint64_t window_key, std::uint64_t generation, std::size_t count, int target,
                 Read &&read, KeySlot &slot, WindowKeys &out) {
  for (std::size_t i = 0; i < KeySlots::kProbes && i < count; ++i) {
    MPINOTIFY_TRY(read(KeySlots::probe(window_key, i, count), slot));
    if (read_slot(slot, window_key, generation, out)) return {};
  }
  return error(Errc::intern, "rank " + std::to_string(target) +
                                 "'s keys for this window are not in its key table");
}

}  // namespace mpinotify
