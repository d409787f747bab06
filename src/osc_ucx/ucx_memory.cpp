#include "ucx_memory.hpp"

#include <bit>
#include <cstring>

namespace mpinotify::ucx {

Status map_memory(ucp_context_h context, void *address, std::size_t bytes, bool allocate,
                  LocalMemory &out) {
  ucp_mem_map_params_t params{};
  params.field_mask = UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_FLAGS |
                      (allocate ? 0 : UCP_MEM_MAP_PARAM_FIELD_ADDRESS);
  params.length = bytes;
  params.flags = allocate ? UCP_MEM_MAP_ALLOCATE : 0;
  params.address = address;
  ucp_mem_h handle = nullptr;
  const ucs_status_t status = ucp_mem_map(context, &params, &handle);
  if (status != UCS_OK)
    return error(allocate ? Errc::no_mem : Errc::other,
                 std::string("registering ") + std::to_string(bytes) +
                     " bytes with UCX failed: " + ucs_status_string(status));
  if (!allocate) {
    // The registration may start at the page below: peers need the
    // program's own base.
    out = {handle, address, bytes};
    return {};
  }
  ucp_mem_attr_t attributes{};
  attributes.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH;
  const ucs_status_t queried = ucp_mem_query(handle, &attributes);
  if (queried != UCS_OK) {
    ucp_mem_unmap(context, handle);
    return error(Errc::other, std::string("ucp_mem_query: ") + ucs_status_string(queried));
  }
  out = {handle, attributes.address, attributes.length};
  return {};
}

std::string packed_key(ucp_context_h context, const LocalMemory &local) {
  if (local.handle == nullptr) return {};
  void *buffer = nullptr;
  std::size_t bytes = 0;
  if (ucp_rkey_pack(context, local.handle, &buffer, &bytes) != UCS_OK) return {};
  std::string key(static_cast<const char *>(buffer), bytes);
  ucp_rkey_buffer_release(buffer);
  return key;
}

CounterPool::~CounterPool() {
  for (const auto &chunk : chunks_) ucp_mem_unmap(context_, chunk->memory.handle);
}

Status CounterPool::take(std::size_t bytes, LocalMemory &out, std::string &key) {
  if (bytes > kLargestPooled) {
    MPINOTIFY_TRY(map_memory(context_, nullptr, bytes, true, out));
    key = packed_key(context_, out);
    if (key.empty()) {
      ucp_mem_unmap(context_, out.handle);
      out = {};
      return error(Errc::other, "ucp_rkey_pack failed for the counters");
    }
    std::memset(out.base, 0, out.bytes);
    return {};
  }
  const std::size_t size = std::bit_ceil(std::max(bytes, kSmallestBlock));
  std::lock_guard guard(mutex_);
  std::vector<LocalMemory> &spare = free_[size];
  if (!spare.empty()) {
    out = spare.back();
    spare.pop_back();
  } else {
    Chunk *chunk = chunks_.empty() ? nullptr : chunks_.back().get();
    if (chunk == nullptr || chunk->memory.bytes - chunk->used < size) {
      auto made = std::make_unique<Chunk>();
      MPINOTIFY_TRY(map_memory(context_, nullptr, kChunkBytes, true, made->memory));
      made->key = packed_key(context_, made->memory);
      if (made->key.empty()) {
        ucp_mem_unmap(context_, made->memory.handle);
        return error(Errc::other, "ucp_rkey_pack failed for the counters");
      }
      chunk = made.get();
      by_handle_[chunk->memory.handle] = chunk;
      chunks_.push_back(std::move(made));
    }
    out = {chunk->memory.handle, static_cast<char *>(chunk->memory.base) + chunk->used, size, true};
    chunk->used += size;
  }
  key = by_handle_.at(out.handle)->key;
  std::memset(out.base, 0, out.bytes);
  return {};
}

void CounterPool::give_back(LocalMemory &block) {
  if (block.handle == nullptr) return;
  if (!block.pooled) {
    ucp_mem_unmap(context_, block.handle);
  } else {
    std::lock_guard guard(mutex_);
    free_[block.bytes].push_back(block);
  }
  block = {};
}

}  // namespace mpinotify::ucx
