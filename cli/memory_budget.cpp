// Memory budget arithmetic; the default reads /proc/meminfo.
#include "memory_budget.hpp"

#include <algorithm>
#include <fstream>
#include <string>

namespace clsort::cli {

std::uint64_t default_memory_budget() {
  std::ifstream meminfo("/proc/meminfo");
  std::string name;
  std::uint64_t kib = 0;
  while (meminfo >> name >> kib) {
    if (name == "MemAvailable:") break;
    meminfo.ignore(64, '\n');
    kib = 0;
  }
  return std::max<std::uint64_t>(kib * 1024 / 2, std::uint64_t{64} << 20);
}

std::uint64_t host_bytes_per_item(const SortSpec& spec) {
  const std::uint64_t key = key_size(*spec.layout.key_type);
  return 2 * spec.layout.item_size + key + 2 * spec.value_size + 2 * 8 + (spec.positions ? 8 : 0);
}

std::uint64_t device_item_limit(const cl::Device& device, const SortSpec& spec) {
  const std::uint64_t key = key_size(*spec.layout.key_type);
  const std::uint64_t moved = std::max<std::uint64_t>(spec.value_size, 8);
  const auto global = device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
  const auto largest = device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
  return std::min(global / 2 / (2 * (key + moved)), largest / std::max(key, moved));
}

std::uint64_t chunk_items(std::uint64_t budget, const cl::Device& device, const SortSpec& spec) {
  const std::uint64_t host = budget / 3 / host_bytes_per_item(spec);
  return std::max<std::uint64_t>(1, std::min(host, device_item_limit(device, spec)));
}

std::uint64_t streamed_chunk_items(std::uint64_t budget, const cl::Device& device,
                                   const SortSpec& spec, std::uint64_t total) {
  const std::uint64_t item_bytes = spec.layout.item_size + spec.value_size;
  const std::uint64_t device_limit = device_item_limit(device, spec);
  if (total <= budget / 2 / item_bytes && total <= device_limit)
    return std::max<std::uint64_t>(total, 1);
  return std::max<std::uint64_t>(1, std::min(budget / 4 / item_bytes, device_limit / 2));
}

}  // namespace clsort::cli
