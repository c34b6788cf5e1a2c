// Template rendering + program building + per-kernel limit checks.
#include "kernel_build.hpp"

#include "cl_check.hpp"
#include "kernel_sources.hpp"
#include "program_cache.hpp"

namespace clsort::detail {

cl::Program build_template(const cl::Context& context, const cl::Device& device,
                           const std::string& template_name, const TemplateContext& context_vars) {
  const std::string source = render_template(template_name, find_kernel_template, context_vars);
  return build_program(context, device, source, "-cl-std=CL1.2", template_name);
}

cl::Kernel make_kernel(const cl::Program& program, const cl::Device& device, const char* name,
                       std::size_t work_group_size, const char* parameter) {
  cl_int status = CL_SUCCESS;
  cl::Kernel kernel(program, name, &status);
  check(status, "create kernel", name);
  std::size_t kernel_limit = 0;
  cl_ulong kernel_local = 0, device_local = 0;
  check(kernel.getWorkGroupInfo(device, CL_KERNEL_WORK_GROUP_SIZE, &kernel_limit), "query kernel",
        name);
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
