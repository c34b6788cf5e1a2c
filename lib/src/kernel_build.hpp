// Renders a kernel template, builds it through the program cache and checks kernel limits.
#pragma once

#include <string>

#include "clsort/error.hpp"
#include "clsort/opencl.hpp"
#include "template_engine.hpp"

namespace clsort::detail {

/// make_kernel's error when a kernel cannot run work-groups as large as asked: the driver's
/// per-kernel limit (registers, local memory) can be below the device's maximum.
class WorkGroupLimitError : public Error {
 public:
  WorkGroupLimitError(const std::string& detail, std::size_t kernel_limit)
      : Error("build kernel", detail), kernel_limit_(kernel_limit) {}
  std::size_t kernel_limit() const { return kernel_limit_; }

 private:
  std::size_t kernel_limit_;
};

/// Renders the embedded template `template_name` with `context` and builds it for `device`
/// (asking `groups_per_sm` work-groups' registers of each SM where that is not 0: build_program).
cl::Program build_template(const cl::Context& context, const cl::Device& device,
                           const std::string& template_name, const TemplateContext& context_vars,
                           int groups_per_sm = 0);

/// Creates kernel `name` and checks that it can run work-groups of `work_group_size` items
/// (CL_KERNEL_WORK_GROUP_SIZE; on NVIDIA, whose driver reports 256 for every kernel, the
/// device's maximum) within the device's local memory; `parameter` names the parameter that
/// sets the work-group size in the error (a WorkGroupLimitError).
cl::Kernel make_kernel(const cl::Program& program, const cl::Device& device, const char* name,
                       std::size_t work_group_size, const char* parameter);

}  // namespace clsort::detail
