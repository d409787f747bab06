// This process's UCX registrations: one piece of registered memory, and
// the pool that window counters come from.
//
// Registering counters per window cost every window a UCX allocation (with
// shared-memory transports a segment made, mapped and removed) and its
// unmapping: a quarter of the library's share of creating a window. Small
// counter blocks are cut from pooled registrations instead, whose packed key
// is made once; a freed block waits for the next window of its size class.
#pragma once

#include <ucp/api/ucp.h>

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "osc_core/status.hpp"

namespace mpinotify::ucx {

// This process's registration of some memory, and what peers need of it.
struct LocalMemory {
  ucp_mem_h handle = nullptr;
  void *base = nullptr;
  std::size_t bytes = 0;
  bool pooled = false;  // a block of a CounterPool, given back rather than unmapped
};

// Registers `bytes` at `address`, or (allocate) memory UCX allocates.
Status map_memory(ucp_context_h context, void *address, std::size_t bytes, bool allocate,
                  LocalMemory &out);
// The packed rkey of a registration; empty if UCX cannot pack it.
std::string packed_key(ucp_context_h context, const LocalMemory &local);

class CounterPool {
 public:
  explicit CounterPool(ucp_context_h context) : context_(context) {}
  CounterPool(const CounterPool &) = delete;
  CounterPool &operator=(const CounterPool &) = delete;
  ~CounterPool();  // unmaps everything: every block must be back

  // At least `bytes` of zeroed registered memory, and the packed key of its
  // registration. Blocks above kLargestPooled get a registration of their own.
  Status take(std::size_t bytes, LocalMemory &out, std::string &key);
  // Returns a block from take (none of its operations may still be in flight).
  void give_back(LocalMemory &block);

  static constexpr std::size_t kSmallestBlock = 128;
  static constexpr std::size_t kLargestPooled = 16 * 1024;
  static constexpr std::size_t kChunkBytes = 64 * 1024;

 private:
  struct Chunk {
    LocalMemory memory;
    std::string key;
    std::size_t used = 0;  // bytes handed out from the start, ever
  };

  ucp_context_h context_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Chunk>> chunks_;
  std::map<ucp_mem_h, Chunk *> by_handle_;
  std::map<std::size_t, std::vector<LocalMemory>> free_;  // by block size
};

}  // namespace mpinotify::ucx
