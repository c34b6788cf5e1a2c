// The tuner's search space as data: a value list per parameter and named constraints.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <clsort/opencl.hpp>
#include <clsort/params.hpp>

namespace clsort::tune {

/// {"radix_bits": [...], "work_group_size": [...], ..., "constraints": ["valid", ...]}: every
/// Params field has a list of values; candidates are their combinations that satisfy every
/// named constraint. Constraints: "valid" (the fields go together, as validate() says),
/// "sensible_blocks" (short blocks per item for work-group ranking, long ones for serial),
/// "fits_device" (work-group sizes, local memory, warp_match capability of the device).
struct SearchSpace {
  nlohmann::json values;  ///< field name -> array of values
  std::vector<std::string> constraints;
};

/// The built-in space: every kernel variant, the radix widths and block shapes worth trying.
SearchSpace default_search_space();

/// Parses a space; throws clsort::Error naming an unknown field, a missing list or an unknown
/// constraint.
SearchSpace parse_search_space(const nlohmann::json& json);

/// Every combination of the space's values that meets its constraints for sorts of keys of
/// `key_bytes` with `value_bytes` values on `device` (pruned before anything is compiled), once
/// per distinct sort: onesweep sets that differ only in the scan fields it does not use are one.
std::vector<Params> candidates(const SearchSpace& space, const cl::Device& device,
                               std::size_t key_bytes, std::size_t value_bytes);

/// How many fields of `params` differ from `reference`, not counting fields their algorithm does
/// not use (0: the same sort): the tuner prefers the simpler of two configurations that measure
/// within 3%.
int differences(const Params& params, const Params& reference);

/// A set in a few words for the tuner's summary ("onesweep/warp_match r8 wg256 ept30"), naming
/// the optional fields that are on ("prefetch_ahead1 prefetch_values resident3 occupancy3
/// value_rounds2").
std::string describe(const Params& params);

}  // namespace clsort::tune
