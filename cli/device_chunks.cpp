// DeviceChunkPool: a free list of chunks, grown (reallocated) when a larger one is asked for.
#include "device_chunks.hpp"

#include <string>

#include <clsort/error.hpp>

namespace clsort::cli {
namespace {

// Reallocates `buffer` to `bytes` (at least 1) when it holds fewer.
void ensure_capacity(const cl::Context& context, cl::Buffer& buffer, std::uint64_t& capacity,
                     std::uint64_t bytes, const char* what) {
  if (capacity >= bytes && buffer()) return;
  buffer = cl::Buffer();  // free the old one first: the device may not hold both
  cl_int status = CL_SUCCESS;
  const std::uint64_t size = std::max<std::uint64_t>(bytes, 1);
  buffer = cl::Buffer(context, CL_MEM_READ_WRITE, size, nullptr, &status);
  if (status != CL_SUCCESS)
    throw Error("allocate buffer", std::string(what) + " of " + std::to_string(size) + " bytes",
                status);
  capacity = size;
}

}  // namespace

std::shared_ptr<DeviceChunk> DeviceChunkPool::acquire(std::uint64_t key_bytes,
                                                      std::uint64_t value_bytes) {
  std::unique_ptr<DeviceChunk> chunk;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_.empty()) {
      chunk = std::move(free_.back());
      free_.pop_back();
    }
  }
  if (!chunk) chunk = std::make_unique<DeviceChunk>();
  ensure_capacity(context_, chunk->keys, chunk->key_capacity, key_bytes, "a chunk's keys");
  if (value_bytes)
    ensure_capacity(context_, chunk->values, chunk->value_capacity, value_bytes,
                    "a chunk's values");
  return std::shared_ptr<DeviceChunk>(chunk.release(), [this](DeviceChunk* returned) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.emplace_back(returned);
  });
}

}  // namespace clsort::cli
