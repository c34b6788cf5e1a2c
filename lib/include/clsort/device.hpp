// Finding OpenCL devices: listing them and choosing one from a user's device specification.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "clsort/opencl.hpp"

namespace clsort {

/// What device selection needs to know of one device.
struct DeviceDescription {
  int platform_index = 0;
  int device_index = 0;
  std::string platform_name;
  std::string device_name;
  bool is_gpu = false;
  bool is_cpu = false;
};

/// Every device of every platform, numbered as `clinfo -l` numbers them.
struct DeviceEntry {
  DeviceDescription description;
  cl::Platform platform;
  cl::Device device;
};
std::vector<DeviceEntry> list_devices();

/// Chooses a device by a specification:
///   ""        the default: the first GPU, else the first device;
///   "P:D"     platform P, device D (indices as listed);
///   "cpu", "gpu"  the first device of that type;
///   otherwise a case-insensitive substring of the platform or device name (first match).
/// Returns the index into `devices`; throws clsort::Error naming the specification if nothing
/// matches or it is malformed.
std::size_t select_device(std::string_view spec, const std::vector<DeviceDescription>& devices);

/// list_devices() + select_device(): the chosen device, or clsort::Error.
DeviceEntry find_device(std::string_view spec);

/// A context and an in-order queue on `device` with `properties` (e.g. CL_QUEUE_PROFILING_ENABLE
/// for event timing; off by default because NVIDIA's driver then adds latency to every command).
cl::CommandQueue make_queue(const cl::Device& device, cl_command_queue_properties properties = 0);

}  // namespace clsort
