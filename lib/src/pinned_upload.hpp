// Uploads host arrays to GPU buffers through a pinned staging block that several threads fill.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "clsort/opencl.hpp"

namespace clsort::detail {

// NVIDIA's OpenCL reads pageable host memory at 8 GB/s on an H200 and a pinned buffer at 55;
// copying into a pinned block by several threads while the device reads the chunk before runs
// at 26-29 GB/s there. The block has two halves of `chunk_bytes`: one is filled while the
// device reads the other.
class PinnedUpload {
 public:
  static constexpr std::size_t default_chunk_bytes = std::size_t{64} << 20;
  // Where GPUs' uploads start going through the block. On an H200 a 4 MiB array took 0.7 ms
  // longer through it, 8 MiB as long, 64 MiB 1.3x-1.5x shorter.
  static constexpr std::uint64_t gpu_min_bytes = std::uint64_t{32} << 20;

  explicit PinnedUpload(std::size_t chunk_bytes = default_chunk_bytes);
  ~PinnedUpload();
  PinnedUpload(const PinnedUpload&) = delete;
  PinnedUpload& operator=(const PinnedUpload&) = delete;

  // From how many bytes uploads to `device` go through a block, if at all:
  // CLSORT_HOST_STAGING=pinned (every upload) or direct (none), else (auto, unset) GPUs' and
  // accelerators' from gpu_min_bytes, since their drivers copy pageable memory slowly.
  static std::optional<std::uint64_t> threshold_for(const cl::Device& device);

  // Copies `bytes` from `source` to the start of `destination` once `wait_events` complete and
  // returns when the copy is done. `what` names the data in errors.
  void write(const cl::CommandQueue& queue, const cl::Buffer& destination, const void* source,
             std::uint64_t bytes, const std::vector<cl::Event>& wait_events,
             const std::string& what);

 private:
  // Allocates and maps the block on first use; it stays mapped until destruction.
  void map_block(const cl::CommandQueue& queue);
  void write_chunks(const cl::CommandQueue& queue, const cl::Buffer& destination,
                    const unsigned char* source, std::uint64_t bytes,
                    const std::vector<cl::Event>& wait_events, std::vector<cl::Event>& halves,
                    const std::string& what) const;

  std::size_t chunk_bytes_;
  cl::Buffer block_;
  cl::CommandQueue queue_;            // the queue that mapped the block, which unmaps it
  unsigned char* staging_ = nullptr;  // the block's mapped host memory
};

}  // namespace clsort::detail
