// Search-space enumeration: the cartesian product of the value lists, filtered by constraints.
#include "search_space.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <sstream>

#include <clsort/error.hpp>

namespace clsort::tune {
namespace {

using nlohmann::json;

const std::vector<std::string> field_names{
    "radix_bits",      "work_group_size",      "elements_per_thread",      "ranking",
    "algorithm",       "scan_work_group_size", "scan_elements_per_thread", "prefetch_ahead",
    "prefetch_values", "resident_groups",      "occupancy_groups",         "value_rounds",
    "bucket_bits"};

// Fields a space may leave out, and the one value they then take.
const std::map<std::string, json> optional_fields{{"resident_groups", json::array({0})},
                                                  {"occupancy_groups", json::array({0})},
                                                  {"value_rounds", json::array({1})},
                                                  {"bucket_bits", json::array({0})}};

using Constraint =
    std::function<bool(const Params&, const cl::Device&, std::size_t key, std::size_t value)>;

const std::map<std::string, Constraint>& named_constraints() {
  static const std::map<std::string, Constraint> constraints{
      {"valid",
       [](const Params& p, const cl::Device&, std::size_t, std::size_t) {
         try {
           validate(p);
           return true;
         } catch (const Error&) {
           return false;
         }
       }},
      // Work-group ranking (bitmask, warp_match), single_group and rank_sort keep a block of
      // work_group_size * elements_per_thread keys in registers and local memory: a few dozen
      // per item at most (rank_sort's n^2 comparisons would not pay beyond that either).
      // reduce_then_scan's serial ranking walks long runs per work-item: short ones only add scan
      // work.
      {"sensible_blocks",
       [](const Params& p, const cl::Device&, std::size_t, std::size_t) {
         const bool serial_blocks =
             p.ranking == Ranking::serial && p.algorithm == Algorithm::reduce_then_scan;
         return serial_blocks ? p.elements_per_thread >= 64 : p.elements_per_thread <= 32;
       }},
      {"fits_device",
       [](const Params& p, const cl::Device& device, std::size_t key, std::size_t value) {
         try {
           validate_for_device(p, device, key, value);
           return true;
         } catch (const Error&) {
           return false;
         }
       }},
  };
  return constraints;
}

}  // namespace

SearchSpace default_search_space() {
  return parse_search_space(json::parse(R"({
    "radix_bits": [4, 6, 8],
    "work_group_size": [1, 64, 128, 256, 512],
    "elements_per_thread": [4, 8, 12, 16, 20, 24, 28, 32, 256, 1024, 4096, 16384, 65536],
    "ranking": ["serial", "bitmask", "warp_match"],
    "algorithm": ["reduce_then_scan", "onesweep", "single_group", "hybrid", "fused_onesweep",
                  "rank_sort"],
    "scan_work_group_size": [16, 64, 256],
    "scan_elements_per_thread": [4, 16, 256],
    "prefetch_ahead": [0, 1],
    "prefetch_values": [0, 1],
    "value_rounds": [1, 2],
    "bucket_bits": [0, 8],
    "constraints": ["valid", "sensible_blocks", "fits_device"]
  })"));
}

SearchSpace parse_search_space(const json& j) {
  if (!j.is_object()) throw Error("search space", "must be a JSON object");
  SearchSpace space;
  for (const auto& [key, value] : j.items()) {
    if (key == "constraints") continue;
    if (std::find(field_names.begin(), field_names.end(), key) == field_names.end())
      throw Error("search space", "unknown parameter '" + key + "'");
    if (!value.is_array() || value.empty())
      throw Error("search space", "'" + key + "' must be a non-empty list of values");
  }
  for (const std::string& name : field_names) {
    if (j.contains(name))
      space.values[name] = j.at(name);
    else if (optional_fields.count(name))
      space.values[name] = optional_fields.at(name);
    else
      throw Error("search space", "no value list for '" + name + "'");
  }
  if (j.contains("constraints")) {
    const json& constraints = j.at("constraints");
    if (!constraints.is_array())
      throw Error("search space", "'constraints' must be a list of names");
    for (const json& c : constraints) {
      if (!c.is_string())
        throw Error("search space", "constraint " + c.dump() + " is not a name (a string)");
      const std::string name = c.get<std::string>();
      if (!named_constraints().count(name))
        throw Error("search space", "unknown constraint '" + name +
                                        "' (known: valid, sensible_blocks, fits_device)");
      space.constraints.push_back(name);
    }
  }
  return space;
}

namespace {

// What a sort runs with these parameters: only reduce_then_scan has scan kernels, so the others
// have their scan fields blanked, and rank_sort has no digits, so its radix bits and ranking are
// blanked too; two sets that differ only in blanked fields are the same candidate.
Params effective(Params p) {
  if (p.algorithm != Algorithm::reduce_then_scan)
    p.scan_work_group_size = p.scan_elements_per_thread = 0;
  if (p.algorithm == Algorithm::rank_sort) {
    p.radix_bits = 0;
    p.ranking = Ranking::serial;
  }
  return p;
}

}  // namespace

std::vector<Params> candidates(const SearchSpace& space, const cl::Device& device,
                               std::size_t key_bytes, std::size_t value_bytes) {
  std::vector<Params> result;
  const bool takes_occupancy = takes_occupancy_groups(device);
  std::vector<std::size_t> index(field_names.size(), 0);
  while (true) {
    json fields = json::object();
    for (std::size_t f = 0; f < field_names.size(); ++f)
      fields[field_names[f]] = space.values.at(field_names[f])[index[f]];
    try {
      Params p = fields.get<Params>();
      // Keys alone have no values to prefetch: one candidate, not two alike.
      if (value_bytes == 0) p.prefetch_values = 0;
      // Values no wider than the tile buffer's slots (the keys, or a word) gain no room from
      // rounds, only their registers: staged at once.
      if (value_bytes <= std::max<std::size_t>(key_bytes, 4)) p.value_rounds = 1;
      // Only rank_sort buckets its keys.
      if (p.algorithm != Algorithm::rank_sort) p.bucket_bits = 0;
      // A compiler that takes no occupancy hint builds sets that differ only in it alike.
      if (!takes_occupancy) p.occupancy_groups = 0;
      bool keep = std::none_of(result.begin(), result.end(),
                               [&](const Params& q) { return differences(p, q) == 0; });
      for (const std::string& name : space.constraints)
        keep = keep && named_constraints().at(name)(p, device, key_bytes, value_bytes);
      if (keep) result.push_back(p);
    } catch (const Error&) {
      // a value outside a field's range: not a candidate
    }
    std::size_t f = 0;
    while (f < index.size() && ++index[f] == space.values.at(field_names[f]).size()) index[f++] = 0;
    if (f == index.size()) break;
  }
  return result;
}

int differences(const Params& params, const Params& reference) {
  // Field by field, not through the JSON of both: candidates() compares every pair of a space's
  // thousands of sets, which through JSON takes the default space about a minute.
  const Params a = effective(params), b = effective(reference);
  return (a.radix_bits != b.radix_bits) + (a.work_group_size != b.work_group_size) +
         (a.elements_per_thread != b.elements_per_thread) + (a.ranking != b.ranking) +
         (a.algorithm != b.algorithm) + (a.scan_work_group_size != b.scan_work_group_size) +
         (a.scan_elements_per_thread != b.scan_elements_per_thread) +
         (a.prefetch_ahead != b.prefetch_ahead) + (a.prefetch_values != b.prefetch_values) +
         (a.resident_groups != b.resident_groups) + (a.occupancy_groups != b.occupancy_groups) +
         (a.value_rounds != b.value_rounds) + (a.bucket_bits != b.bucket_bits);
}

std::string describe(const Params& p) {
  std::ostringstream s;
  s << to_string(p.algorithm) << "/" << to_string(p.ranking) << " r" << p.radix_bits << " wg"
    << p.work_group_size << " ept" << p.elements_per_thread;
  if (p.prefetch_ahead > 0) s << " prefetch_ahead" << p.prefetch_ahead;
  if (p.prefetch_values > 0) s << " prefetch_values";
  if (p.resident_groups > 0) s << " resident" << p.resident_groups;
  if (p.occupancy_groups > 0) s << " occupancy" << p.occupancy_groups;
  if (p.value_rounds > 1) s << " value_rounds" << p.value_rounds;
  if (p.bucket_bits > 0) s << " buckets" << p.bucket_bits;
  return s.str();
}

}  // namespace clsort::tune
