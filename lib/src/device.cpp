// Lists OpenCL devices and resolves device specifications ("0:1", "gpu", "nvidia").
#include "clsort/device.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "cl_check.hpp"
#include "clsort/error.hpp"

namespace clsort {
namespace {

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::optional<int> parse_index(std::string_view s) {
  int value = -1;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (error != std::errc() || end != s.data() + s.size() || value < 0) return std::nullopt;
  return value;
}

[[noreturn]] void no_match(std::string_view spec, const std::string& why) {
  throw Error("select device", "device specification '" + std::string(spec) + "': " + why);
}

std::size_t select_by_indices(std::string_view spec, std::size_t colon,
                              const std::vector<DeviceDescription>& devices) {
  const auto platform = parse_index(spec.substr(0, colon));
  const auto device = parse_index(spec.substr(colon + 1));
  if (!platform || !device) no_match(spec, "expected P:D with non-negative integers");
  for (std::size_t i = 0; i < devices.size(); ++i)
    if (devices[i].platform_index == *platform && devices[i].device_index == *device) return i;
  no_match(spec, "no device " + std::to_string(*device) + " on platform " +
                     std::to_string(*platform) + " (see 'clsort devices')");
}

}  // namespace

std::size_t select_device(std::string_view spec, const std::vector<DeviceDescription>& devices) {
  if (devices.empty())
    throw Error("select device", "no OpenCL device found (is an ICD installed?)");
  const std::string wanted = lowercase(spec);
  if (wanted.empty()) {
    const auto gpu = std::find_if(devices.begin(), devices.end(),
                                  [](const DeviceDescription& d) { return d.is_gpu; });
    return gpu == devices.end() ? 0 : static_cast<std::size_t>(gpu - devices.begin());
  }
  if (const auto colon = wanted.find(':');
      colon != std::string::npos && parse_index(wanted.substr(0, colon)))
    return select_by_indices(spec, colon, devices);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    const bool type_match = (wanted == "gpu" && d.is_gpu) || (wanted == "cpu" && d.is_cpu);
    if (type_match) return i;
    if (wanted == "gpu" || wanted == "cpu") continue;
    if (lowercase(d.device_name).find(wanted) != std::string::npos ||
        lowercase(d.platform_name).find(wanted) != std::string::npos)
      return i;
  }
  no_match(spec, "no device matches (see 'clsort devices')");
}

std::vector<DeviceEntry> list_devices() {
  std::vector<cl::Platform> platforms;
  const cl_int status = cl::Platform::get(&platforms);
  // The ICD loader reports CL_PLATFORM_NOT_FOUND_KHR when no platform is installed: no devices.
  if (status == -1001) return {};
  detail::check(status, "list platforms", "clGetPlatformIDs failed");
  std::vector<DeviceEntry> entries;
  for (std::size_t p = 0; p < platforms.size(); ++p) {
    std::vector<cl::Device> devices;
    if (platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices) != CL_SUCCESS) continue;
    for (std::size_t d = 0; d < devices.size(); ++d) {
      DeviceDescription description;
      description.platform_index = static_cast<int>(p);
      description.device_index = static_cast<int>(d);
      platforms[p].getInfo(CL_PLATFORM_NAME, &description.platform_name);
      devices[d].getInfo(CL_DEVICE_NAME, &description.device_name);
      cl_device_type type = 0;
      devices[d].getInfo(CL_DEVICE_TYPE, &type);
      description.is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
      description.is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
      for (auto* name : {&description.platform_name, &description.device_name})
        while (!name->empty() && name->back() == '\0') name->pop_back();
      entries.push_back({description, platforms[p], devices[d]});
    }
  }
  return entries;
}

DeviceEntry find_device(std::string_view spec) {
  const auto entries = list_devices();
  std::vector<DeviceDescription> descriptions;
  for (const auto& e : entries) descriptions.push_back(e.description);
  return entries[select_device(spec, descriptions)];
}

cl::CommandQueue make_queue(const cl::Device& device, cl_command_queue_properties properties) {
  cl_int status = CL_SUCCESS;
  cl::Context context(device, nullptr, nullptr, nullptr, &status);
  detail::check(status, "create context");
  cl::CommandQueue queue(context, device, properties, &status);
  detail::check(status, "create command queue");
  return queue;
}

}  // namespace clsort
