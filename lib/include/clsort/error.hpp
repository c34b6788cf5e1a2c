// clsort::Error: the one exception type the library throws, with the failed operation and CL code.
#pragma once

#include <stdexcept>
#include <string>

namespace clsort {

/// Thrown for every failure: OpenCL errors (code() is the CL error code, cl_error_name() its
/// name, e.g. "CL_OUT_OF_RESOURCES"), invalid arguments and parameters (code() is 0).
/// what() reads "operation: detail (CL_ERROR_NAME)".
class Error : public std::runtime_error {
 public:
  Error(std::string operation, std::string detail, int cl_code = 0);

  const std::string& operation() const noexcept { return operation_; }
  int code() const noexcept { return code_; }
  /// The symbolic name of code(), or "" when the error did not come from OpenCL.
  std::string cl_error_name() const;

 private:
  std::string operation_;
  int code_;
};

/// The symbolic name of an OpenCL error code ("CL_INVALID_VALUE"), or "CL error N" if unknown.
std::string cl_error_name(int cl_code);

}  // namespace clsort
