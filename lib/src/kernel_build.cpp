// Template rendering + program building + per-kernel limit checks.
#include "kernel_build.hpp"

#include <algorithm>

#include "cl_check.hpp"
#include "kernel_sources.hpp"
#include "program_cache.hpp"

namespace clsort::detail {

cl::Program build_template(const cl::Context& context, const cl::Device& device,
                           const std::string& template_name, const TemplateContext& context_vars,
                           int groups_per_sm) {
  const std::string source = render_template(template_name, find_kernel_template, context_vars);
  return build_program(context, device, source, "-cl-std=CL1.2", template_name, groups_per_sm);
}

namespace {

constexpr cl_uint nvidia_vendor_id = 0x10DE;

// The largest work-group the kernel can run. NVIDIA's OpenCL reports CL_KERNEL_WORK_GROUP_SIZE =
// 256 for every kernel, a 10-register one too, yet launches work-groups up to the device's
// maximum: its compiler fits a kernel's registers to the reqd_work_group_size that every clsort
// kernel declares (PTX .reqntid).
std::size_t kernel_work_group_limit(const cl::Kernel& kernel, const cl::Device& device,
                                    const char* name) {
  std::size_t reported = 0, device_limit = 0;
  cl_uint vendor = 0;
  check(kernel.getWorkGroupInfo(device, CL_KERNEL_WORK_GROUP_SIZE, &reported), "query kernel",
        name);
  check(device.getInfo(CL_DEVICE_VENDOR_ID, &vendor), "query device");
  if (vendor != nvidia_vendor_id) return reported;
  check(device.getInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE, &device_limit), "query device");
  return std::max(reported, device_limit);
}

}  // namespace

cl::Kernel make_kernel(const cl::Program& program, const cl::Device& device, const char* name,
                       std::size_t work_group_size, const char* parameter) {
  cl_int status = CL_SUCCESS;
  cl::Kernel kernel(program, name, &status);
  check(status, "create kernel", name);
  const std::size_t kernel_limit = kernel_work_group_limit(kernel, device, name);
  cl_ulong kernel_local = 0, device_local = 0;
  check(kernel.getWorkGroupInfo(device, CL_KERNEL_LOCAL_MEM_SIZE, &kernel_local), "query kernel",
        name);
  check(device.getInfo(CL_DEVICE_LOCAL_MEM_SIZE, &device_local), "query device");
  if (work_group_size > kernel_limit)
    throw WorkGroupLimitError(std::string(parameter) + " = " + std::to_string(work_group_size) +
                                  " exceeds CL_KERNEL_WORK_GROUP_SIZE = " +
                                  std::to_string(kernel_limit) + " of kernel '" + name + "'",
                              kernel_limit);
  if (kernel_local > device_local)
    throw Error(
        "build kernel",
        "kernel '" + std::string(name) + "' needs " + std::to_string(kernel_local) +
            " bytes of local memory; CL_DEVICE_LOCAL_MEM_SIZE = " + std::to_string(device_local));
  return kernel;
}

}  // namespace clsort::detail
