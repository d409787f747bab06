#include "key_slots.hpp"

#include <atomic>
#include <cstring>

namespace mpinotify {
namespace {

std::atomic_ref<std::uint64_t> version_of(KeySlot &slot) {
  return std::atomic_ref<std::uint64_t>(slot.version);
}

}  // namespace

int KeySlots::publish(int slot, const WindowKeys &keys) {
  if (keys.window_key == 0 || count_ == 0 ||
      keys.keys[0].size() + keys.keys[1].size() > kKeySlotKeyBytes)
    return -1;
  std::lock_guard guard(mutex_);
  if (slot >= 0) {
    write(slots_[static_cast<std::size_t>(slot)], keys);
    return slot;
  }
  int free = -1;
  for (std::size_t i = 0; i < kProbes && i < count_; ++i) {
    const std::size_t at = probe(keys.window_key, i, count_);
    if (slots_[at].window_key == keys.window_key) return -1;
    if (free < 0 && slots_[at].window_key == 0) free = static_cast<int>(at);
  }
  if (free >= 0) write(slots_[static_cast<std::size_t>(free)], keys);
  return free;
}

void KeySlots::withdraw(int slot) {
  if (slot < 0) return;
  std::lock_guard guard(mutex_);
  KeySlot &s = slots_[static_cast<std::size_t>(slot)];
  const std::uint64_t before = version_of(s).load(std::memory_order_relaxed);
  version_of(s).store(before + 1, std::memory_order_release);
  s.window_key = 0;
  version_of(s).store(before + 2, std::memory_order_release);
}

void KeySlots::write(KeySlot &slot, const WindowKeys &keys) {
  // Odd first, visible before any field it guards (x86 keeps stores in
  // order; the fence keeps the compiler from moving them).
  const std::uint64_t before = version_of(slot).load(std::memory_order_relaxed);
  version_of(slot).store(before + 1, std::memory_order_release);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  slot.window_key = keys.window_key;
  slot.generation = keys.generation;
  slot.bases = keys.bases;
  std::size_t at = 0;
  for (std::size_t k = 0; k < 2; ++k) {
    slot.key_bytes[k] = static_cast<std::uint32_t>(keys.keys[k].size());
    if (keys.keys[k].empty()) continue;  // its data() may be null
    std::memcpy(slot.keys.data() + at, keys.keys[k].data(), keys.keys[k].size());
    at += keys.keys[k].size();
  }
  version_of(slot).store(before + 2, std::memory_order_release);
}

bool read_slot(const KeySlot &slot, std::uint64_t window_key, std::uint64_t generation,
               WindowKeys &out) {
  if (slot.version % 2 != 0 || window_key == 0 || slot.window_key != window_key ||
      slot.generation != generation)
    return false;
  const std::size_t first = slot.key_bytes[0];
  const std::size_t second = slot.key_bytes[1];
  if (first > slot.keys.size() || second > slot.keys.size() - first) return false;
  out.window_key = window_key;
  out.generation = generation;
  out.bases = slot.bases;
  out.keys[0] = std::string_view(slot.keys.data(), first);
  out.keys[1] = std::string_view(slot.keys.data() + first, second);
  return true;
}

}  // namespace mpinotify
