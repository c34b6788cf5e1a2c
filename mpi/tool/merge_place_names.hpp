// The merge places by name: clsort-mpi's --merge values and the merge column of its bench's CSV.
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

#include <clsort/mpi.hpp>

namespace clsort::mpi {

inline constexpr std::array<std::pair<const char*, MergePlace>, 3> merge_place_names{{
    {"auto", MergePlace::automatic},
    {"host", MergePlace::host},
    {"device", MergePlace::device},
}};

/// Every name, in --merge's order.
inline std::vector<std::string> merge_place_choices() {
  std::vector<std::string> names;
  for (const auto& [name, place] : merge_place_names) names.emplace_back(name);
  return names;
}

/// The place `name` names; automatic for a name that is none of them.
inline MergePlace merge_place_named(const std::string& name) {
  for (const auto& [known, place] : merge_place_names)
    if (name == known) return place;
  return MergePlace::automatic;
}

/// The name of `place`.
inline const char* merge_place_name(MergePlace place) {
  for (const auto& [name, known] : merge_place_names)
    if (place == known) return name;
  return "auto";
}

}  // namespace clsort::mpi
