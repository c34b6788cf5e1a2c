// Putting a tuning run's classes into an existing profile over a range of key counts, each within
// what its set can sort.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <clsort/profile.hpp>

namespace clsort::tune {

/// Key counts [min_keys, max_keys] whose classes a merge replaces.
struct KeyRange {
  std::uint64_t min_keys = 0;
  std::uint64_t max_keys = std::numeric_limits<std::uint64_t>::max();
};

/// Parses "MIN:MAX" (either side may be empty: 0, no limit); throws clsort::Error naming
/// `option` otherwise or where MIN > MAX.
KeyRange parse_key_range(const std::string& text, const std::string& option);

/// `classes` with each class of a set that holds few keys (single_group, single_group_hybrid,
/// rank_sort) cut to the key counts its set holds, and dropped where it holds none of them: above
/// its capacity the library runs the built-in default, which the class would misname.
std::vector<TunedClass> within_capacity(const std::vector<TunedClass>& classes);

/// For each key width and value size that `tuned` holds, `into`'s classes keep their key counts
/// outside `range` (cut at its edges) and `tuned`'s classes, cut to `range`, take the key counts
/// inside it; other widths and value sizes stay as they were. Classes come out within their
/// sets' capacity and ordered by key bits, value bytes and min_keys.
std::vector<TunedClass> merge_classes(const std::vector<TunedClass>& into,
                                      const std::vector<TunedClass>& tuned, KeyRange range);

}  // namespace clsort::tune
