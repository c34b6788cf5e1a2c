// --check: whether inputs are already sorted, read in chunks without a device.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include <clsort/types.hpp>

#include "input_file.hpp"

namespace clsort::cli {

/// Reports "NAME: sorted (N keys)" or the first element out of order (each row on its own for a
/// multi-dimensional .npy) to `out`. Returns whether the input is sorted; throws InputError.
bool check_sorted(const std::string& path, const ReadOptions& read, const SortOptions& options,
                  std::uint64_t memory_budget, std::ostream& out);

}  // namespace clsort::cli
