// Device buffers for the chunks in flight, reused from chunk to chunk and from file to file.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <clsort/opencl.hpp>

namespace clsort::cli {

/// One chunk's keys (or items) and values in device memory.
struct DeviceChunk {
  cl::Buffer keys;
  cl::Buffer values;
  std::uint64_t key_capacity = 0;    ///< bytes
  std::uint64_t value_capacity = 0;  ///< bytes
};

/// Hands out device chunks of at least the asked sizes; a chunk returns to the pool when the last
/// shared_ptr to it goes. Thread-safe. The pool must outlive the chunks it hands out.
class DeviceChunkPool {
 public:
  explicit DeviceChunkPool(cl::Context context) : context_(std::move(context)) {}
  std::shared_ptr<DeviceChunk> acquire(std::uint64_t key_bytes, std::uint64_t value_bytes);

 private:
  cl::Context context_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<DeviceChunk>> free_;
};

}  // namespace clsort::cli
