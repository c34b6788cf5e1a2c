// clsort-bench-transfer: host <-> device copy rates from pageable and pinned memory, and of
// chunked uploads through pinned memory filled by several threads.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cl_status.hpp"
#include "clsort/device.hpp"
#include "clsort/opencl.hpp"
#include "median.hpp"

namespace {

using clsort::bench::check;

constexpr int repeats = 5;

// Median host-clock seconds of `work` over `repeats` runs after one warm-up.
double median_seconds(const std::function<void()>& work) {
  work();
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    work();
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return clsort::bench::median(times);
}

// Copies `bytes` with `threads` threads, each a contiguous part.
void threaded_copy(unsigned char* to, const unsigned char* from, std::size_t bytes,
                   std::size_t threads) {
  const std::size_t part = (bytes + threads - 1) / threads;
  std::vector<std::thread> workers;
  for (std::size_t begin = 0; begin < bytes; begin += part)
    workers.emplace_back(
        [=] { std::memcpy(to + begin, from + begin, std::min(part, bytes - begin)); });
  for (std::thread& worker : workers) worker.join();
}

// Uploads `bytes` in chunks: each is copied into the pinned memory by `threads` threads while
// the device reads the one before.
void chunked_upload(const cl::CommandQueue& queue, const cl::Buffer& destination,
                    const unsigned char* source, unsigned char* pinned, std::size_t bytes,
                    std::size_t chunk, std::size_t threads) {
  for (std::size_t offset = 0; offset < bytes; offset += chunk) {
    const std::size_t length = std::min(chunk, bytes - offset);
    threaded_copy(pinned + offset, source + offset, length, threads);
    check(queue.enqueueWriteBuffer(destination, CL_FALSE, offset, length, pinned + offset),
          "write buffer");
    check(queue.flush(), "flush");
  }
  check(queue.finish(), "finish");
}

}  // namespace

// Usage: clsort-bench-transfer [DEVICE [MIB]] (clsort's device specification, the first GPU by
// default; MiB copied, 1024 by default).
int main(int argc, char** argv) try {
  const clsort::DeviceEntry entry = clsort::find_device(argc > 1 ? argv[1] : "");
  const std::size_t bytes = (argc > 2 ? std::stoull(argv[2]) : 1024) << 20;
  const cl::CommandQueue queue = clsort::make_queue(entry.device);
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const cl::Buffer device(context, CL_MEM_READ_WRITE, bytes);
  std::vector<unsigned char> pageable(bytes);
  for (std::size_t i = 0; i < bytes; ++i) pageable[i] = static_cast<unsigned char>(i * 7 + 3);
  const cl::Buffer pinned_buffer(context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes);
  cl_int status = CL_SUCCESS;
  auto* const pinned = static_cast<unsigned char*>(queue.enqueueMapBuffer(
      pinned_buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, nullptr, nullptr, &status));
  check(status, "map buffer");
  std::memset(pinned, 0, bytes);
  const auto rate = [&](const std::function<void()>& work) {
    return static_cast<double>(bytes) / median_seconds(work) / 1e9;
  };
  std::printf("device: %s, %zu MiB, GB/s (median of %d)\n", entry.description.device_name.c_str(),
              bytes >> 20, repeats);
  std::printf("pageable write %.1f\n", rate([&] {
                check(queue.enqueueWriteBuffer(device, CL_TRUE, 0, bytes, pageable.data()),
                      "write buffer");
              }));
  std::printf("pageable read %.1f\n", rate([&] {
                check(queue.enqueueReadBuffer(device, CL_TRUE, 0, bytes, pageable.data()),
                      "read buffer");
              }));
  std::printf("pinned write %.1f\n", rate([&] {
                check(queue.enqueueWriteBuffer(device, CL_TRUE, 0, bytes, pinned), "write buffer");
              }));
  std::printf("pinned read %.1f\n", rate([&] {
                check(queue.enqueueReadBuffer(device, CL_TRUE, 0, bytes, pinned), "read buffer");
              }));
  for (const std::size_t threads : {1, 2, 4, 8, 16})
    std::printf("memcpy into pinned memory, %zu threads %.1f\n", threads,
                rate([&] { threaded_copy(pinned, pageable.data(), bytes, threads); }));
  for (const std::size_t chunk_mib : {16, 64})
    for (const std::size_t threads : {1, 4, 8})
      std::printf(
          "chunked upload, %zu MiB chunks, %zu threads %.1f\n", chunk_mib, threads, rate([&] {
            chunked_upload(queue, device, pageable.data(), pinned, bytes, chunk_mib << 20, threads);
          }));
  std::vector<unsigned char> uploaded(bytes);
  check(queue.enqueueReadBuffer(device, CL_TRUE, 0, bytes, uploaded.data()), "read buffer");
  if (uploaded != pageable) throw std::runtime_error("the chunked upload did not arrive whole");
  std::printf("chunked upload checked\n");
  check(queue.enqueueUnmapMemObject(pinned_buffer, pinned), "unmap buffer");
  check(queue.finish(), "finish");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "clsort-bench-transfer: error: %s\n", e.what());
  return 1;
}
