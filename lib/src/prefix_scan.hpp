// Exclusive prefix scan of a device array of offsets, in place, over as many levels as needed.
#pragma once

#include <cstdint>
#include <vector>

#include "clsort/opencl.hpp"
#include "command_chain.hpp"
#include "device_buffer.hpp"

namespace clsort::detail {

class PrefixScan {
 public:
  PrefixScan(const cl::Context& context, const cl::Device& device, bool wide_offsets,
             int work_group_size, int elements_per_thread);

  /// Enqueues on `chain` the replacement of data[0, length) by its exclusive prefix sums.
  void run(CommandChain& chain, const cl::Buffer& data, std::uint64_t length);

  /// Allocates the tile sums of every level of a scan of `length` offsets now; returns them.
  std::vector<cl::Buffer> reserve(std::uint64_t length);

 private:
  /// The tile sums of `level` for a scan of `length` offsets there (grown as needed).
  const cl::Buffer& level_sums(std::size_t level, std::uint64_t length);

  void run_level(CommandChain& chain, const cl::Buffer& data, std::uint64_t length,
                 std::size_t level);

  cl::Context context_;
  bool wide_;
  std::size_t work_group_size_;
  std::uint64_t tile_;
  cl::Kernel scan_tiles_;
  cl::Kernel add_tile_offsets_;
  std::vector<DeviceBuffer> tile_sums_;  // one per level, grown as needed
};

}  // namespace clsort::detail
