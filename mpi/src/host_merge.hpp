// The distributed sort's merge on the host: sorted runs, in rank order, become one sorted run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <clsort/types.hpp>

namespace clsort::mpi {

/// Merges the sorted runs that lie back to back in `keys` (run j holds run_counts[j] keys, and as
/// many values of `value_bytes` each in `values`, none when 0) into one run sorted by the sort key
/// of `options`, stably: equal keys keep the order of their runs, then their order within them.
/// Runs are merged in pairs, round after round, through a scratch copy of the keys and values;
/// each pair's merge is split among `threads` threads at balanced output positions.
void merge_runs(void* keys, void* values, const std::vector<std::uint64_t>& run_counts,
                KeyType type, std::size_t value_bytes, const SortOptions& options,
                unsigned threads);

}  // namespace clsort::mpi
