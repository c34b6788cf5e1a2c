// Memory budgets: the default host budget, and how many items one chunk may hold.
#pragma once

#include <cstdint>

#include <clsort/opencl.hpp>

#include "chunk_sort.hpp"

namespace clsort::cli {

/// Half of the host memory available now (MemAvailable), at least 64 MiB.
std::uint64_t default_memory_budget();

/// Host bytes one item takes at the peak of sorting its chunk (items, their gathered copy,
/// keys, values, permutation and positions).
std::uint64_t host_bytes_per_item(const SortSpec& spec);

/// Most items one sort on `device` takes: its buffers (keys, what moves with them, and their
/// double buffers) stay within half the global memory and the largest single allocation.
std::uint64_t device_item_limit(const cl::Device& device, const SortSpec& spec);

/// Items per chunk: a third of the budget per chunk, since three are in flight (one read, one
/// sorted, one written), and no more than the device takes.
std::uint64_t chunk_items(std::uint64_t budget, const cl::Device& device, const SortSpec& spec);

}  // namespace clsort::cli
