// Kernel parameter sets: what a profile or the built-in default chooses for a sort.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "clsort/opencl.hpp"

namespace clsort {

/// How a block of keys is ranked stably before the scatter.
enum class Ranking {
  /// A work-item owns a block of consecutive keys and walks them in order (best on CPUs).
  serial,
  /// A work-group owns a block and ranks rounds of keys with per-digit bitmasks in local memory.
  bitmask,
};

std::string_view to_string(Ranking ranking);

/// One set of kernel parameters. Every field is validated (validate(), and against a device
/// when kernels are built); the tuner searches over them.
struct Params {
  /// Bits of the key sorted per pass: 1..8 (2^radix_bits digits).
  int radix_bits = 8;
  /// Work-items per work-group of the count and scatter kernels.
  int work_group_size = 256;
  /// Keys per work-item in one block: a block is work_group_size * elements_per_thread keys for
  /// bitmask ranking, elements_per_thread keys for serial ranking.
  int elements_per_thread = 16;
  Ranking ranking = Ranking::bitmask;
  /// Work-items per work-group of the scan kernels.
  int scan_work_group_size = 256;
  /// Consecutive histogram entries each scan work-item sums serially.
  int scan_elements_per_thread = 4;

  bool operator==(const Params&) const = default;
};

/// Throws clsort::Error naming the first field outside its allowed range.
void validate(const Params& params);

/// Bytes of local memory the count and scatter kernels need with these parameters when offsets
/// are `offset_bytes` wide (4 or 8); checked against CL_DEVICE_LOCAL_MEM_SIZE.
std::size_t local_memory_bytes(const Params& params, std::size_t offset_bytes);

/// Throws clsort::Error if the device cannot run these parameters (work-group size above
/// CL_DEVICE_MAX_WORK_GROUP_SIZE, local memory above CL_DEVICE_LOCAL_MEM_SIZE).
void validate_for_device(const Params& params, const cl::Device& device);

/// The built-in default for a device: runs on any OpenCL 1.2 device (it is shrunk to fit the
/// device's work-group and local-memory limits), serial ranking on CPUs, bitmask elsewhere.
Params default_params(const cl::Device& device);

/// JSON conversion (nlohmann::json ADL hooks). from_json throws clsort::Error naming a missing
/// or out-of-range field; unknown fields are rejected so typos do not pass silently.
void to_json(nlohmann::json& json, const Params& params);
void from_json(const nlohmann::json& json, Params& params);

}  // namespace clsort
