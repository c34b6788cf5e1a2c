// Host-side reordering around a sort: positions for --argsort, gathering by them, --unique.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <clsort/types.hpp>

#include "array_file.hpp"

namespace clsort::cli {

/// The positions 0..n-1 as an array destined for `path`: u32 when n < 2^32, else u64.
ArrayFile make_positions(const std::string& path, std::uint64_t n);

/// Reorders `values` so that element i becomes the one at positions[i].
void gather(ArrayFile& values, const ArrayFile& positions);

/// Keeps the first of each run of sorted keys that are equal in bits [begin_bit, end_bit) of
/// their ordered bits, and the matching elements of every companion array.
void keep_first_of_equal_keys(ArrayFile& keys, const std::vector<ArrayFile*>& companions,
                              unsigned begin_bit, std::optional<unsigned> end_bit);

}  // namespace clsort::cli
