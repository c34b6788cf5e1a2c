// Sets kernel arguments in order, checking every OpenCL call.
#pragma once

#include <cstdint>
#include <string>

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
    // The kernel's name is looked up only on failure: a launch sets a dozen arguments.
    const cl_int status = kernel_.setArg(index_, value);
    if (status != CL_SUCCESS)
      check(status, "set kernel argument",
            kernel_.getInfo<CL_KERNEL_FUNCTION_NAME>() + " argument " + std::to_string(index_));
    ++index_;
    return *this;
  }

  cl::Kernel& kernel_;
  bool wide_;
  cl_uint index_ = 0;
};

}  // namespace clsort::detail
