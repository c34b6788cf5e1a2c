// Lists devices with their indices, marks the default one, and shows each one's profile.
#include "devices_command.hpp"

#include <cstdlib>

#include <clsort/clsort.hpp>

namespace clsort::cli {
namespace {

// Which profile a sort on the device would use, and why others were passed over.
void describe_profile(const cl::Device& device, std::ostream& out) {
  try {
    const ProfileSearch search = find_profile(device);
    if (search.profile)
      out << "       profile: " << search.path << " (" << search.match << ")\n";
    else
      out << "       profile: none, built-in defaults\n";
    for (const std::string& skipped : search.skipped) out << "       skipped: " << skipped << "\n";
  } catch (const Error& e) {
    out << "       profile: unusable: " << e.what() << "\n";
  }
}

}  // namespace

int run_devices(std::ostream& out) {
  const auto devices = list_devices();
  if (devices.empty()) {
    out << "No OpenCL devices found (is an OpenCL driver, e.g. pocl-opencl-icd, installed?)\n";
    return 1;
  }
  std::vector<DeviceDescription> descriptions;
  for (const auto& d : devices) descriptions.push_back(d.description);
  const char* env = std::getenv("CLSORT_DEVICE");
  const std::size_t chosen = select_device(env ? env : "", descriptions);
  int platform = -1;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const DeviceDescription& d = devices[i].description;
    if (d.platform_index != platform) {
      platform = d.platform_index;
      out << "Platform #" << platform << ": " << d.platform_name << "\n";
    }
    const char* type = d.is_gpu ? "GPU" : d.is_cpu ? "CPU" : "other";
    out << " `-- Device #" << d.device_index << ": " << d.device_name << "  [" << type << ", "
        << d.platform_index << ":" << d.device_index << "]" << (i == chosen ? "  (default)" : "")
        << "\n";
    describe_profile(devices[i].device, out);
  }
  return 0;
}

}  // namespace clsort::cli
