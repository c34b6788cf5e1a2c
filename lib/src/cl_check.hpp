// check(): turns an OpenCL return code into a clsort::Error naming the operation.
#pragma once

#include <string>

#include "clsort/error.hpp"

namespace clsort::detail {

inline void check(int cl_code, const char* operation, const std::string& detail = "failed") {
  if (cl_code != 0) throw Error(operation, detail, cl_code);
}

}  // namespace clsort::detail
