// Copies between a rank's device buffers and host memory touched on its cores.
#pragma once

#include <algorithm>
#include <cstdint>

#include <clsort/opencl.hpp>

#include "host_threads.hpp"

namespace clsort::mpi {

/// The first `bytes` of `buffer`, read into host memory touched on `threads` threads.
inline HostBytes read_buffer(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                             std::uint64_t bytes, unsigned threads) {
  HostBytes host(bytes, threads);
  if (bytes) queue.enqueueReadBuffer(buffer, CL_TRUE, 0, bytes, host.data.get());
  return host;
}

/// A buffer holding `host` (one byte at least: OpenCL has no empty buffers).
inline cl::Buffer upload(const cl::CommandQueue& queue, const HostBytes& host) {
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  cl::Buffer buffer(context, CL_MEM_READ_WRITE, std::max<std::uint64_t>(host.size, 1));
  if (host.size) queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, host.size, host.data.get());
  return buffer;
}

}  // namespace clsort::mpi
