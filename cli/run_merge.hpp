// Merging the sorted runs of a RunStore on the host: key ranges merged in parallel, emitted in
// order.
#pragma once

#include <functional>
#include <vector>

#include "run_store.hpp"

namespace clsort::cli {

/// Merges each range of `runs` (equal keys in run order, then input order) on up to `workers`
/// threads at once and hands the merged ranges to `emit` in range order, on the calling thread.
/// Each merged range is a chunk whose first is its position in the merged sequence.
void merge_on_host(const RunStore& runs, const std::vector<MergeRange>& ranges, unsigned workers,
                   const std::function<void(Chunk&)>& emit);

/// Merges one range into `out` (resized to hold it).
void merge_range(const RunStore& runs, const MergeRange& range, Chunk& out);

}  // namespace clsort::cli
