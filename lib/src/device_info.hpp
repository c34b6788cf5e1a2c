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
  std::size_t compute_units = 1;
  /// NVIDIA sm_70+ with 32-wide warps, as cl_nv_device_attribute_query reports: the PTX warp
  /// primitives (shfl.sync, lane masks, bar.warp.sync) are available.
  bool has_warp_match = false;
  /// NVIDIA's OpenCL driver (cl_nv_device_attribute_query): program binaries are PTX text.
  bool builds_ptx = false;
  /// 64-bit integers in OpenCL C: always in the full profile, an extension in the embedded one.
  bool has_64bit_integers = true;
};

DeviceLimits query_limits(const cl::Device& device);

/// Identifies a device and its driver for the on-disk program cache.
std::string device_fingerprint(const cl::Device& device);

}  // namespace clsort::detail
