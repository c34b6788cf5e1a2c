// A device buffer that grows on demand and is otherwise reused across sorts.
#pragma once

#include <cstdint>

#include "cl_check.hpp"
#include "clsort/opencl.hpp"

namespace clsort::detail {

class DeviceBuffer {
 public:
  /// Returns a buffer of at least `bytes` bytes (at least 1), reallocating only to grow.
  const cl::Buffer& at_least(const cl::Context& context, std::uint64_t bytes, const char* purpose) {
    if (bytes > capacity_ || capacity_ == 0) {
      buffer_ = cl::Buffer();  // free the old one first: device memory may be tight
      cl_int status = CL_SUCCESS;
      const std::uint64_t size = bytes == 0 ? 1 : bytes;
      buffer_ = cl::Buffer(context, CL_MEM_READ_WRITE, size, nullptr, &status);
      capacity_ = status == CL_SUCCESS ? size : 0;
      check(status, "allocate buffer",
            std::string(purpose) + " of " + std::to_string(size) + " bytes");
    }
    return buffer_;
  }

 private:
  cl::Buffer buffer_;
  std::uint64_t capacity_ = 0;
};

}  // namespace clsort::detail
