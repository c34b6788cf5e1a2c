// check(): the benchmark programs' way to turn an OpenCL status into an exception.
#pragma once

#include <stdexcept>
#include <string>

#include <clsort/opencl.hpp>

namespace clsort::bench {

/// Throws naming the operation and the OpenCL status unless it is CL_SUCCESS.
inline void check(cl_int status, const char* operation) {
  if (status != CL_SUCCESS)
    throw std::runtime_error(std::string(operation) + " failed: OpenCL error " +
                             std::to_string(status));
}

}  // namespace clsort::bench
