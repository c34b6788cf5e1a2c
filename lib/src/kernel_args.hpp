// Sets kernel arguments in order and enqueues 1-D launches, checking every OpenCL call.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cl_check.hpp"
#include "clsort/opencl.hpp"

namespace clsort::detail {

/// Appends arguments to a kernel in order; offsets go in as 32 or 64 bits to match offset_t.
class KernelArgs {
 public:
  KernelArgs(cl::Kernel& kernel, bool wide_offsets) : kernel_(kernel), wide_(wide_offsets) {}

  KernelArgs& buffer(const cl::Buffer& b) { return set(b); }
  KernelArgs& u32(std::uint32_t v) { return set(static_cast<cl_uint>(v)); }
  KernelArgs& offset(std::uint64_t v) {
    return wide_ ? set(static_cast<cl_ulong>(v)) : set(static_cast<cl_uint>(v));
  }

 private:
  template <class T>
  KernelArgs& set(const T& value) {
    check(kernel_.setArg(index_, value), "set kernel argument",
          kernel_.getInfo<CL_KERNEL_FUNCTION_NAME>() + " argument " + std::to_string(index_));
    ++index_;
    return *this;
  }

  cl::Kernel& kernel_;
  bool wide_;
  cl_uint index_ = 0;
};

/// Enqueues `kernel` over `global` work-items in groups of `local`, after `waits`.
inline cl::Event launch(const cl::CommandQueue& queue, const cl::Kernel& kernel,
                        std::uint64_t global, std::size_t local,
                        const std::vector<cl::Event>& waits) {
  cl::Event event;
  check(queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(global), cl::NDRange(local),
                                   waits.empty() ? nullptr : &waits, &event),
        "enqueue kernel", kernel.getInfo<CL_KERNEL_FUNCTION_NAME>());
  return event;
}

}  // namespace clsort::detail
