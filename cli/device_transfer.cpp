// DeviceTransfer: mapped blocks on host-memory devices, double-buffered pinned staging elsewhere.
#include "device_transfer.hpp"

#include <algorithm>
#include <chrono>

#include <clsort/error.hpp>

namespace clsort::cli {
namespace {

using Clock = std::chrono::steady_clock;

void check(cl_int status, const char* operation, const char* what) {
  if (status != CL_SUCCESS) throw Error(operation, what, status);
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Where a buffer lives in the host's memory, mapping it costs nothing and saves a copy.
bool shares_host_memory(const cl::Device& device) {
  cl_bool unified = CL_FALSE;
  device.getInfo(CL_DEVICE_HOST_UNIFIED_MEMORY, &unified);
  return unified == CL_TRUE;
}

}  // namespace

DeviceTransfer::DeviceTransfer(const cl::Context& context, const cl::Device& device,
                               std::size_t block_bytes)
    : block_(block_bytes), maps_(shares_host_memory(device)) {
  cl_int status = CL_SUCCESS;
  queue_ = cl::CommandQueue(context, device, 0, &status);
  check(status, "create command queue", "for file transfers");
  if (maps_) return;
  for (Staging& staging : staging_) {
    staging.buffer =
        cl::Buffer(context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, block_, nullptr, &status);
    check(status, "allocate buffer", "pinned staging for file transfers");
    void* host = queue_.enqueueMapBuffer(staging.buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                         block_, nullptr, nullptr, &status);
    check(status, "map buffer", "pinned staging for file transfers");
    staging.host = static_cast<char*>(host);
  }
}

DeviceTransfer::~DeviceTransfer() {
  settle();
  for (Staging& staging : staging_)
    if (staging.host) queue_.enqueueUnmapMemObject(staging.buffer, staging.host);
  queue_.finish();
}

void DeviceTransfer::wait(cl::Event& event) {
  if (!event()) return;
  const auto start = Clock::now();
  const cl_int status = event.wait();
  event = cl::Event();
  times_.device += seconds_since(start);
  check(status, "transfer", "waiting for a copy between host and device");
}

void DeviceTransfer::settle() {
  for (Staging& staging : staging_)
    if (staging.busy()) {
      staging.busy.wait();
      staging.busy = cl::Event();
    }
}

void DeviceTransfer::fill(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                          const ByteSource& source) {
  if (bytes == 0) return;
  try {
    maps_ ? fill_mapped(buffer, offset, bytes, source) : fill_staged(buffer, offset, bytes, source);
  } catch (...) {
    settle();  // the staging blocks may still be read by the device
    throw;
  }
}

void DeviceTransfer::drain(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                           const ByteSink& sink) {
  if (bytes == 0) return;
  try {
    maps_ ? drain_mapped(buffer, offset, bytes, sink) : drain_staged(buffer, offset, bytes, sink);
  } catch (...) {
    settle();
    throw;
  }
}

void DeviceTransfer::fill_mapped(const cl::Buffer& buffer, std::uint64_t offset,
                                 std::uint64_t bytes, const ByteSource& source) {
  for_each_mapped_block(buffer, offset, bytes, CL_MAP_WRITE_INVALIDATE_REGION,
                        "device memory to read a file into",
                        [&](char* host, std::size_t length) { source(host, length); });
  check(queue_.finish(), "transfer", "finishing a file read into device memory");
}

void DeviceTransfer::drain_mapped(const cl::Buffer& buffer, std::uint64_t offset,
                                  std::uint64_t bytes, const ByteSink& sink) {
  for_each_mapped_block(buffer, offset, bytes, CL_MAP_READ, "device memory to write a file from",
                        [&](char* host, std::size_t length) { sink(host, length); });
  check(queue_.finish(), "transfer", "finishing a file write from device memory");
}

void DeviceTransfer::for_each_mapped_block(const cl::Buffer& buffer, std::uint64_t offset,
                                           std::uint64_t bytes, cl_map_flags flags,
                                           const char* what,
                                           const std::function<void(char*, std::size_t)>& use) {
  for (std::uint64_t done = 0; done < bytes;) {
    const std::size_t length =
        static_cast<std::size_t>(std::min<std::uint64_t>(block_, bytes - done));
    cl_int status = CL_SUCCESS;
    void* host = queue_.enqueueMapBuffer(buffer, CL_TRUE, flags, offset + done, length, nullptr,
                                         nullptr, &status);
    check(status, "map buffer", what);
    const auto start = Clock::now();
    try {
      use(static_cast<char*>(host), length);
    } catch (...) {
      queue_.enqueueUnmapMemObject(buffer, host);
      queue_.finish();
      throw;
    }
    times_.host += seconds_since(start);
    check(queue_.enqueueUnmapMemObject(buffer, host), "unmap buffer", "device memory");
    done += length;
  }
}

void DeviceTransfer::fill_staged(const cl::Buffer& buffer, std::uint64_t offset,
                                 std::uint64_t bytes, const ByteSource& source) {
  for (std::uint64_t done = 0, block = 0; done < bytes; ++block) {
    Staging& staging = staging_[block % 2];
    const std::size_t length =
        static_cast<std::size_t>(std::min<std::uint64_t>(block_, bytes - done));
    wait(staging.busy);  // its previous block has reached the device
    const auto start = Clock::now();
    source(staging.host, length);
    times_.host += seconds_since(start);
    check(queue_.enqueueWriteBuffer(buffer, CL_FALSE, offset + done, length, staging.host, nullptr,
                                    &staging.busy),
          "write buffer", "a block of a file to the device");
    queue_.flush();
    done += length;
  }
  for (Staging& staging : staging_) wait(staging.busy);
}

void DeviceTransfer::drain_staged(const cl::Buffer& buffer, std::uint64_t offset,
                                  std::uint64_t bytes, const ByteSink& sink) {
  const auto enqueue_read = [&](std::uint64_t block) {
    const std::uint64_t start = block * block_;
    if (start >= bytes) return;
    Staging& staging = staging_[block % 2];
    const std::size_t length =
        static_cast<std::size_t>(std::min<std::uint64_t>(block_, bytes - start));
    check(queue_.enqueueReadBuffer(buffer, CL_FALSE, offset + start, length, staging.host, nullptr,
                                   &staging.busy),
          "read buffer", "a block of sorted data from the device");
    queue_.flush();
  };
  enqueue_read(0);
  for (std::uint64_t block = 0; block * block_ < bytes; ++block) {
    enqueue_read(block + 1);  // the next block arrives while this one is written
    Staging& staging = staging_[block % 2];
    wait(staging.busy);
    const std::size_t length =
        static_cast<std::size_t>(std::min<std::uint64_t>(block_, bytes - block * block_));
    const auto start = Clock::now();
    sink(staging.host, length);
    times_.host += seconds_since(start);
  }
}

}  // namespace clsort::cli
