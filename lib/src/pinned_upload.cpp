// PinnedUpload: host arrays to device buffers through a pinned block, chunk by chunk.
#include "pinned_upload.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <system_error>
#include <thread>

#include "cl_check.hpp"
#include "clsort/error.hpp"

namespace clsort::detail {

namespace {

// Copies with up to 8 threads: one thread's memcpy reaches 10 GB/s, several 33-39 (H200 host).
void parallel_copy(unsigned char* to, const unsigned char* from, std::size_t bytes) {
  const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
  const std::size_t part = (bytes + threads - 1) / threads;
  std::vector<std::thread> workers;
  for (std::size_t begin = part; begin < bytes; begin += part) {  // the caller copies part one
    const std::size_t length = std::min(part, bytes - begin);
    try {
      workers.emplace_back([=] { std::memcpy(to + begin, from + begin, length); });
    } catch (const std::system_error&) {
      std::memcpy(to + begin, from + begin, length);  // no thread to be had: copy it here
    }
  }
  std::memcpy(to, from, std::min(part, bytes));
  for (std::thread& worker : workers) worker.join();
}

// Waits for every transfer that was enqueued, whatever its outcome: the block may be filled
// again only once no transfer reads it.
void settle(std::vector<cl::Event>& transfers) {
  for (cl::Event& transfer : transfers)
    if (transfer()) transfer.wait();
}

}  // namespace

PinnedUpload::PinnedUpload(std::size_t chunk_bytes) : chunk_bytes_(chunk_bytes) {}

std::optional<std::uint64_t> PinnedUpload::threshold_for(const cl::Device& device) {
  const char* value = std::getenv("CLSORT_HOST_STAGING");
  const std::string_view mode = value ? value : "";
  if (mode == "pinned") return 0;
  if (mode == "direct") return std::nullopt;
  if (!mode.empty() && mode != "auto")
    throw Error("read CLSORT_HOST_STAGING",
                "'" + std::string(mode) + "' is not auto, pinned or direct");
  cl_device_type type = 0;
  check(device.getInfo(CL_DEVICE_TYPE, &type), "query device", "its type");
  if ((type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) == 0) return std::nullopt;
  return gpu_min_bytes;
}

PinnedUpload::~PinnedUpload() {
  if (!staging_) return;
  // Errors are of no use here: the queue may be the reason the Sorter is going away.
  queue_.enqueueUnmapMemObject(block_, staging_);
  queue_.finish();
}

void PinnedUpload::map_block(const cl::CommandQueue& queue) {
  if (staging_) return;
  cl::Context context;
  check(queue.getInfo(CL_QUEUE_CONTEXT, &context), "query queue");
  cl_int status = CL_SUCCESS;
  cl::Buffer block(context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_ONLY, 2 * chunk_bytes_, nullptr,
                   &status);
  check(status, "allocate buffer",
        "pinned staging block of " + std::to_string(2 * chunk_bytes_) + " bytes");
  // Mapped once for the block's life: NVIDIA's OpenCL copies the whole mapped range at each
  // unmap (5-6 ms for these 128 MiB on an H200).
  void* mapped = queue.enqueueMapBuffer(block, CL_TRUE, CL_MAP_WRITE, 0, 2 * chunk_bytes_, nullptr,
                                        nullptr, &status);
  check(status, "map buffer", "the pinned staging block");
  block_ = std::move(block);
  queue_ = queue;
  staging_ = static_cast<unsigned char*>(mapped);
}

void PinnedUpload::write(const cl::CommandQueue& queue, const cl::Buffer& destination,
                         const void* source, std::uint64_t bytes,
                         const std::vector<cl::Event>& wait_events, const std::string& what) {
  map_block(queue);
  std::vector<cl::Event> halves(2);  // the transfer out of each half of the block
  try {
    write_chunks(queue, destination, static_cast<const unsigned char*>(source), bytes, wait_events,
                 halves, what);
  } catch (...) {
    settle(halves);  // before the block is filled again
    throw;
  }
}

void PinnedUpload::write_chunks(const cl::CommandQueue& queue, const cl::Buffer& destination,
                                const unsigned char* source, std::uint64_t bytes,
                                const std::vector<cl::Event>& wait_events,
                                std::vector<cl::Event>& halves, const std::string& what) const {
  for (std::uint64_t offset = 0, chunk = 0; offset < bytes; offset += chunk_bytes_, ++chunk) {
    const auto length =
        static_cast<std::size_t>(std::min<std::uint64_t>(chunk_bytes_, bytes - offset));
    cl::Event& half = halves[chunk % 2];
    if (half()) check(half.wait(), "write buffer", what);  // its last chunk has left it
    unsigned char* const chunk_staging = staging_ + (chunk % 2) * chunk_bytes_;
    parallel_copy(chunk_staging, source + offset, length);
    check(queue.enqueueWriteBuffer(destination, CL_FALSE, offset, length, chunk_staging,
                                   &wait_events, &half),
          "write buffer", what);
    check(queue.flush(), "write buffer", what);  // start it while the next chunk is copied
  }
  for (cl::Event& half : halves)
    if (half()) check(half.wait(), "write buffer", what);
}

}  // namespace clsort::detail
