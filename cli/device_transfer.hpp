// Streams bytes between host callbacks (file reads and writes) and device buffers, block by block.
#pragma once

#include <cstdint>
#include <functional>

#include <clsort/opencl.hpp>

namespace clsort::cli {

/// Produces the next `bytes` bytes of a stream into `into`.
using ByteSource = std::function<void(char* into, std::size_t bytes)>;
/// Consumes the next `bytes` bytes of a stream.
using ByteSink = std::function<void(const char* from, std::size_t bytes)>;

/// Seconds spent in a transfer: in the callbacks (file I/O) and waiting for the device.
struct TransferTimes {
  double host = 0;
  double device = 0;
};

/// Moves data between files and device buffers without a whole-array host copy. Where the device
/// has memory of its own, blocks pass through two pinned (CL_MEM_ALLOC_HOST_PTR) staging buffers,
/// so the file I/O of one block overlaps the DMA of the other. Where the device shares the host's
/// memory (CPU devices such as PoCL), the buffer itself is mapped and the callbacks read into it
/// and write from it directly. Uses its own in-order queue; one transfer at a time per object.
class DeviceTransfer {
 public:
  DeviceTransfer(const cl::Context& context, const cl::Device& device,
                 std::size_t block_bytes = std::size_t{32} << 20);
  ~DeviceTransfer();
  DeviceTransfer(const DeviceTransfer&) = delete;
  DeviceTransfer& operator=(const DeviceTransfer&) = delete;

  /// Fills `bytes` of `buffer` from `offset` on with what `source` produces, in order.
  void fill(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
            const ByteSource& source);
  /// Hands `bytes` of `buffer` from `offset` on to `sink`, in order.
  void drain(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
             const ByteSink& sink);

  bool maps_device_memory() const { return maps_; }
  const TransferTimes& times() const { return times_; }
  void reset_times() { times_ = {}; }

 private:
  struct Staging {
    cl::Buffer buffer;
    char* host = nullptr;
    cl::Event busy;
  };
  void fill_mapped(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                   const ByteSource& source);
  void drain_mapped(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                    const ByteSink& sink);
  // Maps `bytes` from `offset` block by block and hands each block to `use` (host time counted).
  void for_each_mapped_block(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                             cl_map_flags flags, const char* what,
                             const std::function<void(char*, std::size_t)>& use);
  void fill_staged(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                   const ByteSource& source);
  void drain_staged(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                    const ByteSink& sink);
  void wait(cl::Event& event);
  void settle();  // waits for every staging block, ignoring errors (after a failure)

  cl::CommandQueue queue_;
  std::size_t block_;
  bool maps_ = false;
  Staging staging_[2];
  TransferTimes times_;
};

}  // namespace clsort::cli
