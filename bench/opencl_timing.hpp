// Device-side timing for the benchmark: inputs restored on the device, event-bracketed runs.
#pragma once

#include <chrono>
#include <vector>

#include <clsort/opencl.hpp>

namespace clsort::bench {

/// A pristine copy of the input on the device and the buffers each run sorts.
struct DeviceInput {
  DeviceInput(const cl::CommandQueue& queue, std::vector<unsigned char>& key_bytes,
              std::vector<unsigned char>& value_bytes)
      : queue(queue), key_size(key_bytes.size()), value_size(value_bytes.size()) {
    const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
    pristine_keys =
        cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, key_size, key_bytes.data());
    keys = cl::Buffer(context, CL_MEM_READ_WRITE, key_size);
    if (value_size > 0) {
      pristine_values = cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, value_size,
                                   value_bytes.data());
      values = cl::Buffer(context, CL_MEM_READ_WRITE, value_size);
    }
  }

  void restore() {
    queue.enqueueCopyBuffer(pristine_keys, keys, 0, 0, key_size);
    if (value_size > 0) queue.enqueueCopyBuffer(pristine_values, values, 0, 0, value_size);
  }

  cl::CommandQueue queue;
  std::size_t key_size, value_size;
  cl::Buffer pristine_keys, pristine_values, keys, values;
};

/// Times what a callable enqueues on an in-order profiling queue: from the end of a tiny copy
/// enqueued before it to the start of one enqueued after it, so host stalls inside the callable
/// (a read-back, a blocking call) count, and nothing before or after does. With `wall_clock`,
/// the host's clock around the callable and a finish() instead: what a caller waiting for the
/// result sees, launch latencies included.
class Timer {
 public:
  Timer(const cl::CommandQueue& queue, bool wall_clock) : queue_(queue), wall_clock_(wall_clock) {
    const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
    a_ = cl::Buffer(context, CL_MEM_READ_WRITE, 4);
    b_ = cl::Buffer(context, CL_MEM_READ_WRITE, 4);
  }

  template <class Work>
  double measure(Work&& work) {
    if (wall_clock_) {
      queue_.finish();
      const auto start = std::chrono::steady_clock::now();
      work();
      queue_.finish();
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
          .count();
    }
    cl::Event start, end;
    queue_.enqueueCopyBuffer(a_, b_, 0, 0, 4, nullptr, &start);
    work();
    queue_.enqueueCopyBuffer(b_, a_, 0, 0, 4, nullptr, &end);
    end.wait();
    const auto opened = start.getProfilingInfo<CL_PROFILING_COMMAND_END>();
    const auto closed = end.getProfilingInfo<CL_PROFILING_COMMAND_START>();
    return static_cast<double>(closed - opened) / 1e6;
  }

 private:
  cl::CommandQueue queue_;
  bool wall_clock_;
  cl::Buffer a_, b_;
};

}  // namespace clsort::bench
