// The device facts the library checks parameters and sizes against, queried once per use.
#pragma once

#include <cstdint>
#include <string>

#include "clsort/opencl.hpp"

namespace clsort::detail {

struct DeviceLimits {
  std::string name;
  bool is_cpu = false;
  std::size_t max_work_group_size = 1;
  std::uint64_t local_memory_bytes = 0;
  std::uint64_t max_allocation_bytes = 0;
};

DeviceLimits query_limits(const cl::Device& device);

/// Identifies a device and its driver for the on-disk program cache.
std::string device_fingerprint(const cl::Device& device);

}  // namespace clsort::detail
