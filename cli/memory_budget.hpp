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

/// Items per chunk of an input of `total` items streamed through device memory (plain keys and
/// their values): the whole input when its data and the sort's scratch copy fit the budget
/// (peak 2x the data), else runs of a quarter of the budget each (three chunks in flight and
/// one scratch copy). The budget bounds the data held at once wherever it is held, on the host
/// or on the device, so runs are as large as both allow.
std::uint64_t streamed_chunk_items(std::uint64_t budget, const cl::Device& device,
                                   const SortSpec& spec, std::uint64_t total);

}  // namespace clsort::cli
