// Queries device limits and the device/driver fingerprint.
#include "device_info.hpp"

#include "cl_check.hpp"

namespace clsort::detail {
namespace {

template <cl_device_info Info,
          class T = typename cl::detail::param_traits<cl::detail::cl_device_info, Info>::param_type>
T device_info(const cl::Device& device) {
  T value{};
  check(device.getInfo(Info, &value), "query device", "clGetDeviceInfo failed");
  return value;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

// NVIDIA's attribute query (cl_nv_device_attribute_query); not in the standard headers.
constexpr cl_device_info compute_capability_major_nv = 0x4000;
constexpr cl_device_info warp_size_nv = 0x4003;

bool has_nvidia_attributes(const cl::Device& device) {
  return device_info<CL_DEVICE_EXTENSIONS>(device).find("cl_nv_device_attribute_query") !=
         std::string::npos;
}

bool has_warp_match(const cl::Device& device) {
  if (!has_nvidia_attributes(device)) return false;
  cl_uint major = 0, warp = 0;
  if (clGetDeviceInfo(device(), compute_capability_major_nv, sizeof major, &major, nullptr) !=
          CL_SUCCESS ||
      clGetDeviceInfo(device(), warp_size_nv, sizeof warp, &warp, nullptr) != CL_SUCCESS)
    return false;
  return major >= 7 && warp == 32;
}

}  // namespace

DeviceLimits query_limits(const cl::Device& device) {
  DeviceLimits limits;
  limits.name = trimmed(device_info<CL_DEVICE_NAME>(device));
  limits.is_cpu = (device_info<CL_DEVICE_TYPE>(device) & CL_DEVICE_TYPE_CPU) != 0;
  limits.max_work_group_size = device_info<CL_DEVICE_MAX_WORK_GROUP_SIZE>(device);
  const auto item_sizes = device_info<CL_DEVICE_MAX_WORK_ITEM_SIZES>(device);
  if (!item_sizes.empty() && item_sizes[0] < limits.max_work_group_size)
    limits.max_work_group_size = item_sizes[0];
  limits.local_memory_bytes = device_info<CL_DEVICE_LOCAL_MEM_SIZE>(device);
  limits.max_allocation_bytes = device_info<CL_DEVICE_MAX_MEM_ALLOC_SIZE>(device);
  limits.compute_units = device_info<CL_DEVICE_MAX_COMPUTE_UNITS>(device);
  limits.has_warp_match = has_warp_match(device);
  limits.builds_ptx = has_nvidia_attributes(device);
  limits.has_64bit_integers =
      device_info<CL_DEVICE_PROFILE>(device).find("EMBEDDED_PROFILE") == std::string::npos ||
      device_info<CL_DEVICE_EXTENSIONS>(device).find("cles_khr_int64") != std::string::npos;
  return limits;
}

std::string device_fingerprint(const cl::Device& device) {
  const cl::Platform platform(device_info<CL_DEVICE_PLATFORM>(device));
  std::string platform_version;
  check(platform.getInfo(CL_PLATFORM_VERSION, &platform_version), "query platform");
  return trimmed(device_info<CL_DEVICE_VENDOR>(device)) + "|" +
         trimmed(device_info<CL_DEVICE_NAME>(device)) + "|" +
         trimmed(device_info<CL_DRIVER_VERSION>(device)) + "|" +
         trimmed(device_info<CL_DEVICE_VERSION>(device)) + "|" + trimmed(platform_version);
}

}  // namespace clsort::detail
