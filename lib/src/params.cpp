// Parameter sets: range checks, device checks, the built-in default and JSON conversion.
#include "clsort/params.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "clsort/error.hpp"
#include "device_info.hpp"
#include "radix_kernels.hpp"

namespace clsort {
namespace {

struct IntField {
  const char* name;
  int Params::*member;
  int min;
  int max;
  bool optional = false;  ///< may be absent from JSON (then the default); written always
};

constexpr std::array<IntField, 11> int_fields{{
    {"radix_bits", &Params::radix_bits, 1, 8},
    {"work_group_size", &Params::work_group_size, 1, 4096},
    {"elements_per_thread", &Params::elements_per_thread, 1, 65536},
    {"scan_work_group_size", &Params::scan_work_group_size, 1, 4096},
    {"scan_elements_per_thread", &Params::scan_elements_per_thread, 1, 65536},
    {"prefetch_ahead", &Params::prefetch_ahead, 0, 4},
    {"prefetch_values", &Params::prefetch_values, 0, 1},
    {"resident_groups", &Params::resident_groups, 0, 8, true},
    {"occupancy_groups", &Params::occupancy_groups, 0, 8, true},
    {"value_rounds", &Params::value_rounds, 1, 4, true},
    {"bucket_bits", &Params::bucket_bits, 0, 8, true},
}};

constexpr std::array<std::pair<Ranking, std::string_view>, 3> ranking_names{
    {{Ranking::serial, "serial"},
     {Ranking::bitmask, "bitmask"},
     {Ranking::warp_match, "warp_match"}}};
constexpr std::array<std::pair<Algorithm, std::string_view>, 7> algorithm_names{
    {{Algorithm::reduce_then_scan, "reduce_then_scan"},
     {Algorithm::onesweep, "onesweep"},
     {Algorithm::single_group, "single_group"},
     {Algorithm::hybrid, "hybrid"},
     {Algorithm::single_group_hybrid, "single_group_hybrid"},
     {Algorithm::fused_onesweep, "fused_onesweep"},
     {Algorithm::rank_sort, "rank_sort"}}};

template <class Enum, std::size_t N>
std::string_view name_of(Enum value,
                         const std::array<std::pair<Enum, std::string_view>, N>& names) {
  for (const auto& [v, name] : names)
    if (v == value) return name;
  return "?";
}

// Reads an enum field by name; throws naming the field and the allowed names.
template <class Enum, std::size_t N>
Enum read_enum(const nlohmann::json& json, const char* field,
               const std::array<std::pair<Enum, std::string_view>, N>& names) {
  const auto it = json.find(field);
  if (it == json.end())
    throw Error("read parameters", std::string("missing field '") + field + "'");
  std::string allowed;
  for (const auto& [value, name] : names) {
    if (it->is_string() && it->get<std::string>() == name) return value;
    allowed += (allowed.empty() ? "\"" : ", \"") + std::string(name) + "\"";
  }
  throw Error("read parameters", std::string("field '") + field + "' must be one of " + allowed +
                                     ", got " + it->dump());
}

constexpr std::size_t digit_count(const Params& p) {
  return std::size_t{1} << p.radix_bits;
}

// Largest power of two not above `limit` (limit >= 1).
int floor_power_of_two(std::size_t limit) {
  int p = 1;
  while (static_cast<std::size_t>(p) * 2 <= limit && p < 4096) p *= 2;
  return p;
}

// Local memory a kernel may need beyond its declared arrays: a compiler may add a little of its
// own (NVIDIA's adds 1 byte to the serial scatter kernel), and onesweep's pass kernel keeps its
// 4-byte tile ticket here too.
constexpr std::size_t kernel_slack = 16;

std::size_t reduce_then_scan_local_bytes(const Params& p, std::size_t key_bytes,
                                         std::size_t value_bytes) {
  const std::size_t scan = static_cast<std::size_t>(p.scan_work_group_size) * 8;
  // Serial ranking orders each work-item's block of keys and values in local memory.
  if (p.ranking == Ranking::serial)
    return std::max(scan, static_cast<std::size_t>(p.work_group_size) *
                                  static_cast<std::size_t>(p.elements_per_thread) *
                                  (key_bytes + value_bytes) +
                              kernel_slack);
  const std::size_t mask_words = (static_cast<std::size_t>(p.work_group_size) + 31) / 32;
  return std::max(scan, digit_count(p) * (mask_words * 4 + 8));
}

std::size_t onesweep_tile_keys(const Params& p) {
  return static_cast<std::size_t>(p.work_group_size) *
         static_cast<std::size_t>(p.elements_per_thread);
}

// warp_match: a table of one word per warp and digit (onesweep keeps its slot counters and its
// digit masks in two; single_group its masks, beside 16-bit counters).
std::size_t warp_table_bytes(const Params& p) {
  return static_cast<std::size_t>(p.work_group_size / 32) * digit_count(p) * 4;
}

// The pass kernel's per-digit tables and its scan's words: with compact digit tables (one digit
// per work-item) the digits' global offsets and two words per warp, else also the tile's counts
// and first slots, and one word per work-item.
std::size_t digit_tables_bytes(const Params& p, bool compact_digit_tables) {
  const auto wg = static_cast<std::size_t>(p.work_group_size);
  return compact_digit_tables ? digit_count(p) * 4 + wg / 32 * 2 * 4 : digit_count(p) * 12 + wg * 4;
}

// The pass kernel's local memory, with the warps' digit masks in a table of their own
// (scatter_while_ranking) or in the tile buffer until ranking ends.
detail::OnesweepLayout onesweep_layout_with(const Params& p, std::size_t key_bytes,
                                            std::size_t value_bytes, bool scatter_while_ranking,
                                            bool compact_digit_tables = false) {
  const auto wg = static_cast<std::size_t>(p.work_group_size);
  const std::size_t tile = onesweep_tile_keys(p);
  detail::OnesweepLayout layout;
  layout.scatter_while_ranking = scatter_while_ranking;
  layout.compact_digit_tables = compact_digit_tables;
  // Keys, then (once the keys are written out) values, take turns in one tile buffer; values
  // staged in rounds need room for one round's.
  const auto rounds = static_cast<std::size_t>(p.value_rounds);
  layout.tile_buffer_bytes = std::max(tile * key_bytes, (tile + rounds - 1) / rounds * value_bytes);
  std::size_t ranking_tables = digit_count(p) * ((wg + 31) / 32 + 1) * 4;  // bitmask ranking
  if (p.ranking == Ranking::warp_match) {
    const std::size_t warp_table = warp_table_bytes(p);
    ranking_tables = scatter_while_ranking ? 2 * warp_table : warp_table;
    if (!scatter_while_ranking)
      layout.tile_buffer_bytes = std::max(layout.tile_buffer_bytes, warp_table);
  }
  // Pairs keep each slot's digit, one byte, where ranking's tables were.
  const std::size_t slot_digits = value_bytes > 0 ? (tile + 3) / 4 * 4 : 0;
  layout.scratch_bytes = std::max(ranking_tables, slot_digits);
  // warp_match's keys-only atomics of keys past n go to a word per lane.
  const std::size_t lane_sinks = p.ranking == Ranking::warp_match && value_bytes == 0 ? 32 * 4 : 0;
  const std::size_t pass_kernel = layout.tile_buffer_bytes + layout.scratch_bytes +
                                  digit_tables_bytes(p, compact_digit_tables) + lane_sinks +
                                  kernel_slack;
  const std::size_t passes = (key_bytes * 8 + p.radix_bits - 1) / p.radix_bits;
  const std::size_t histogram_kernel = passes * digit_count(p) * 4;
  // fused_onesweep's kernel also keeps its work-group's ticket and, for sorts that need no
  // histogram kernel, the tile's digit counts of every pass and each digit's keys in the earlier
  // tiles.
  const std::size_t fused_bytes =
      p.algorithm == Algorithm::fused_onesweep ? 4 + histogram_kernel + digit_count(p) * 4 : 0;
  layout.local_bytes = std::max(pass_kernel + fused_bytes, histogram_kernel);
  return layout;
}

// single_group's ranking tables: serial, every item's 16-bit counter per digit; bitmask, the
// digit masks of one round and the digit slots; warp_match, each warp's mask and slot counter
// (16-bit, or 32-bit with `wide_slots`) per digit, and the digit starts.
std::size_t single_group_table_bytes(const Params& p, bool wide_slots) {
  const auto wg = static_cast<std::size_t>(p.work_group_size);
  switch (p.ranking) {
    case Ranking::serial:
      return digit_count(p) * wg * 2;
    case Ranking::warp_match:
      return warp_table_bytes(p) + warp_table_bytes(p) / (wide_slots ? 1 : 2) + digit_count(p) * 4;
    default:
      return digit_count(p) * ((wg + 31) / 32 + 1) * 4;
  }
}

// The whole array in local memory, the ranking's tables and the scan.
std::size_t single_group_local_bytes(const Params& p, std::size_t key_bytes,
                                     std::size_t value_bytes, bool wide_slots = false) {
  return single_group_capacity(p) * (key_bytes + value_bytes) +
         single_group_table_bytes(p, wide_slots) + static_cast<std::size_t>(p.work_group_size) * 4 +
         kernel_slack;
}

// Every key's compared bits and each owned key's count (16 bits, two a word); with buckets a
// word a count, and every key's position, the buckets' slots and a scan's words.
std::size_t rank_sort_local_bytes(const Params& p, std::size_t key_bytes) {
  const std::size_t capacity = single_group_capacity(p);
  if (p.bucket_bits == 0) return capacity * key_bytes + (capacity + 1) / 2 * 4 + kernel_slack;
  const std::size_t buckets = std::size_t{1} << p.bucket_bits;
  return capacity * (key_bytes + 4 + 2) + buckets * 4 + 8 +
         static_cast<std::size_t>(p.work_group_size) * 4 + kernel_slack;
}

// The hybrid path's segment kernel for `p`, one key per work-item: single_group with p's radix
// bits, work-group size and ranking, except that bitmask ranking becomes serial (it needs no
// barrier per round of keys: PoCL took minutes to build bitmask's rounds unrolled 32 times).
Params segment_kernel_base(const Params& p) {
  Params segment = p;
  segment.algorithm = Algorithm::single_group;
  segment.prefetch_ahead = 0;
  segment.prefetch_values = 0;
  segment.value_rounds = 1;
  segment.elements_per_thread = 1;
  if (segment.ranking == Ranking::bitmask) segment.ranking = Ranking::serial;
  return segment;
}

}  // namespace

std::uint64_t single_group_capacity(const Params& params) {
  return static_cast<std::uint64_t>(params.work_group_size) *
         static_cast<std::uint64_t>(params.elements_per_thread);
}

std::uint64_t most_keys(const Params& params) {
  return has_key_capacity(params.algorithm) ? single_group_capacity(params)
                                            : std::numeric_limits<std::uint64_t>::max();
}

namespace detail {

int rank_default_elements_per_thread(std::size_t key_bytes, std::uint64_t n, int work_group_size) {
  // The largest sets hold as many keys as their 16-bit counts leave room for in 48 KiB.
  constexpr int compact_keys = 4096;
  const int keys = key_bytes != 4 ? 4608 : n <= std::uint64_t{compact_keys} ? compact_keys : 7680;
  return keys / work_group_size;
}

bool fit_work_groups(Params& params, std::size_t limit) {
  const int cap = floor_power_of_two(limit);
  if (params.work_group_size <= cap && params.scan_work_group_size <= cap) return false;
  params.work_group_size = std::min(params.work_group_size, cap);
  params.scan_work_group_size = std::min(params.scan_work_group_size, cap);
  return true;
}

std::optional<Params> hybrid_segment_params(const Params& params, std::size_t key_bytes,
                                            std::size_t value_bytes,
                                            std::uint64_t local_memory_bytes) {
  // As many keys per work-item as local memory holds, up to the 32 that unrolled loops keep in
  // registers.
  Params segment = segment_kernel_base(params);
  for (segment.elements_per_thread = 32; segment.elements_per_thread > 0;
       --segment.elements_per_thread)
    if (single_group_local_bytes(segment, key_bytes, value_bytes) <= local_memory_bytes)
      return segment;
  return std::nullopt;
}

SegmentRankShape segment_rank_shape(const Params& params) {
  SegmentRankShape shape;
  shape.bucket_limit =
      std::max<std::uint64_t>(static_cast<std::uint64_t>(params.work_group_size), 32);
  shape.stride = 4 * shape.bucket_limit;
  return shape;
}

std::uint32_t single_group_rank_from_bit(const Params& params, std::uint64_t n,
                                         std::uint32_t begin_bit, std::uint32_t end_bit) {
  const std::uint32_t width = end_bit - begin_bit;
  std::uint32_t top_bits = 0;
  do top_bits += static_cast<std::uint32_t>(params.radix_bits);
  while (top_bits < width && top_bits < 32 && n > single_group_bucket_target << top_bits);
  return end_bit - std::min(top_bits, width);
}

bool single_group_wide_slots(const Params& params, std::size_t key_bytes, std::size_t value_bytes,
                             std::uint64_t local_memory_bytes) {
  return params.ranking == Ranking::warp_match &&
         single_group_local_bytes(params, key_bytes, value_bytes, true) <= local_memory_bytes;
}

OnesweepLayout onesweep_layout(const Params& params, std::size_t key_bytes, std::size_t value_bytes,
                               std::uint64_t local_memory_bytes) {
  if (params.ranking == Ranking::warp_match) {
    const OnesweepLayout own_masks = onesweep_layout_with(params, key_bytes, value_bytes, true);
    if (own_masks.local_bytes <= local_memory_bytes) return own_masks;
    // Compact digit tables only where they let a tile scatter while ranking (H100, host clock:
    // u32 keys at 2^28 with 30 keys a work-item 5.33-5.37 ms against 5.49-5.58 for 27, the
    // most that scatter with full tables; H200, u32 + u32 at 256 x 30 this way 7.80 ms against
    // 8.02-8.04 at 256 x 28 with full tables, f32 + u32 8.59 against 8.64).
    if (digit_count(params) == static_cast<std::size_t>(params.work_group_size)) {
      const OnesweepLayout compact =
          onesweep_layout_with(params, key_bytes, value_bytes, true, true);
      if (compact.local_bytes <= local_memory_bytes) return compact;
    }
  }
  return onesweep_layout_with(params, key_bytes, value_bytes, false);
}

}  // namespace detail

std::string_view to_string(Ranking ranking) {
  return name_of(ranking, ranking_names);
}
std::string_view to_string(Algorithm algorithm) {
  return name_of(algorithm, algorithm_names);
}

void validate(const Params& params) {
  for (const auto& field : int_fields) {
    const int value = params.*field.member;
    if (value < field.min || value > field.max)
      throw Error("validate parameters", std::string(field.name) + " = " + std::to_string(value) +
                                             " is outside [" + std::to_string(field.min) + ", " +
                                             std::to_string(field.max) + "]");
  }
  // A scan tile of one entry would never reduce the number of tile sums.
  if (params.scan_work_group_size * params.scan_elements_per_thread < 2)
    throw Error("validate parameters",
                "scan_work_group_size * scan_elements_per_thread must be at least 2");
  const bool onesweep = runs_onesweep_passes(params.algorithm);
  if (sorts_in_one_group(params.algorithm)) {
    // Serial and warp_match ranking count slots in 16 bits: serial's per-item counters reach
    // at most 65535 of 65536 keys, a warp's counter of one digit all of them.
    const std::uint64_t most_keys = params.ranking == Ranking::serial ? 65536 : 65535;
    if (params.ranking != Ranking::bitmask && single_group_capacity(params) > most_keys)
      throw Error("validate parameters",
                  "algorithm = " + std::string(to_string(params.algorithm)) +
                      " with ranking = " + std::string(to_string(params.ranking)) +
                      " holds at most " + std::to_string(most_keys) +
                      " keys; work_group_size * elements_per_thread = " +
                      std::to_string(single_group_capacity(params)));
  }
  if (params.algorithm == Algorithm::rank_sort) {
    // Its work-groups split into slices of a power of two of work-items, whose bounds are
    // 32-bit products of a slice number and n.
    const int wg = params.work_group_size;
    if ((wg & (wg - 1)) != 0)
      throw Error(
          "validate parameters",
          "algorithm = rank_sort needs work_group_size a power of two; got " + std::to_string(wg));
    const std::uint64_t slice_bound =
        static_cast<std::uint64_t>(wg) * single_group_capacity(params);
    if (slice_bound > UINT32_MAX)
      throw Error("validate parameters",
                  "algorithm = rank_sort needs work_group_size^2 * elements_per_thread below "
                  "2^32; got " +
                      std::to_string(slice_bound));
  }
  if (params.bucket_bits > 0 && params.algorithm != Algorithm::rank_sort)
    throw Error("validate parameters", "bucket_bits = " + std::to_string(params.bucket_bits) +
                                           " needs algorithm = rank_sort (0 otherwise)");
  // rank_sort keeps each key's count (and with buckets its position) in 16 bits.
  if (params.algorithm == Algorithm::rank_sort && single_group_capacity(params) > 65536)
    throw Error("validate parameters",
                "algorithm = rank_sort holds at most 65536 keys; "
                "work_group_size * elements_per_thread = " +
                    std::to_string(single_group_capacity(params)));
  if (onesweep && params.ranking == Ranking::serial)
    throw Error("validate parameters",
                "ranking = serial needs algorithm = reduce_then_scan, single_group or "
                "single_group_hybrid");
  if (params.algorithm == Algorithm::reduce_then_scan && params.ranking == Ranking::warp_match)
    throw Error("validate parameters",
                "ranking = warp_match needs algorithm = onesweep, hybrid, single_group or "
                "single_group_hybrid");
  if (params.ranking == Ranking::warp_match && params.work_group_size % 32 != 0)
    throw Error("validate parameters",
                "ranking = warp_match needs work_group_size a multiple of 32");
  // The prefetches are PTX instructions in onesweep's pass kernel beside warp_match's.
  if (params.prefetch_ahead > 0 &&
      (params.ranking != Ranking::warp_match || !prefetches_tiles(params.algorithm)))
    throw Error("validate parameters",
                "prefetch_ahead = " + std::to_string(params.prefetch_ahead) +
                    " needs ranking = warp_match and algorithm = onesweep or hybrid (0 otherwise)");
  for (const auto& [name, value] : {std::pair{"resident_groups", params.resident_groups},
                                    std::pair{"occupancy_groups", params.occupancy_groups}})
    if (value > 0 && params.algorithm != Algorithm::onesweep)
      throw Error("validate parameters", std::string(name) + " = " + std::to_string(value) +
                                             " needs algorithm = onesweep (0 otherwise)");
  if (params.prefetch_values > 0 &&
      (params.ranking != Ranking::warp_match || !runs_onesweep_passes(params.algorithm)))
    throw Error("validate parameters",
                "prefetch_values = " + std::to_string(params.prefetch_values) +
                    " needs ranking = warp_match and algorithm = onesweep, hybrid or "
                    "fused_onesweep (0 otherwise)");
  if (params.value_rounds > 1 && !runs_onesweep_passes(params.algorithm))
    throw Error("validate parameters",
                "value_rounds = " + std::to_string(params.value_rounds) +
                    " needs algorithm = onesweep, hybrid or fused_onesweep (1 otherwise)");
}

std::size_t local_memory_bytes(const Params& p, std::size_t key_bytes, std::size_t value_bytes) {
  switch (p.algorithm) {
    case Algorithm::onesweep:
    case Algorithm::fused_onesweep:
      return onesweep_layout_with(p, key_bytes, value_bytes, false).local_bytes;
    case Algorithm::single_group:
    case Algorithm::single_group_hybrid:
      return single_group_local_bytes(p, key_bytes, value_bytes);
    case Algorithm::rank_sort:
      return rank_sort_local_bytes(p, key_bytes);
    case Algorithm::hybrid: {
      // The segment kernel adapts to the device; one key per work-item is its least.
      return std::max(onesweep_layout_with(p, key_bytes, value_bytes, false).local_bytes,
                      single_group_local_bytes(segment_kernel_base(p), key_bytes, value_bytes));
    }
    default:
      return reduce_then_scan_local_bytes(p, key_bytes, value_bytes);
  }
}

bool takes_occupancy_groups(const cl::Device& device) {
  return detail::query_limits(device).builds_ptx;
}

void validate_for_device(const Params& params, const cl::Device& device, std::size_t key_bytes,
                         std::size_t value_bytes) {
  validate(params);
  const detail::DeviceLimits limits = detail::query_limits(device);
  const auto check_work_group = [&](const char* field, int value) {
    if (static_cast<std::size_t>(value) > limits.max_work_group_size)
      throw Error("validate parameters", std::string(field) + " = " + std::to_string(value) +
                                             " exceeds CL_DEVICE_MAX_WORK_GROUP_SIZE = " +
                                             std::to_string(limits.max_work_group_size) + " of " +
                                             limits.name);
  };
  check_work_group("work_group_size", params.work_group_size);
  check_work_group("scan_work_group_size", params.scan_work_group_size);
  if (params.ranking == Ranking::warp_match && !limits.has_warp_match)
    throw Error("validate parameters",
                "ranking = warp_match needs an NVIDIA GPU of compute capability 7.0 or later with "
                "32-wide warps; " +
                    limits.name + " is not one");
  const std::size_t needed = local_memory_bytes(params, key_bytes, value_bytes);
  if (needed > limits.local_memory_bytes)
    throw Error("validate parameters",
                "radix_bits = " + std::to_string(params.radix_bits) +
                    ", work_group_size = " + std::to_string(params.work_group_size) +
                    ", elements_per_thread = " + std::to_string(params.elements_per_thread) +
                    " need " + std::to_string(needed) + " bytes of local memory for " +
                    std::to_string(key_bytes) + "-byte keys and " + std::to_string(value_bytes) +
                    "-byte values; CL_DEVICE_LOCAL_MEM_SIZE = " +
                    std::to_string(limits.local_memory_bytes) + " on " + limits.name);
}

Params default_params(const cl::Device& device, std::size_t key_bytes, std::size_t value_bytes) {
  const detail::DeviceLimits limits = detail::query_limits(device);
  Params p;
  if (limits.is_cpu) {
    // A CPU runs a work-group's items one after another: long serial blocks per work-item behave
    // like a cache-friendly host radix sort and need no barriers. PoCL, u32 at 2^24: 162 ms
    // with 64K-key blocks, 183 ms with 16K.
    p.ranking = Ranking::serial;
    p.work_group_size = 1;
    p.elements_per_thread = 65536;
    p.scan_work_group_size = 16;
    p.scan_elements_per_thread = 256;
  } else if (limits.has_warp_match) {
    p.algorithm = Algorithm::onesweep;
    p.ranking = Ranking::warp_match;
    // H200 at 2^28, u32 keys: 51.8 Gkeys/s with 24 keys per work-item (scattered while ranked),
    // 49.1 with 28; u32 pairs: 33.6 with 28, 32.4 with 24, 26.0 with 16.
    p.elements_per_thread = key_bytes <= 4 ? (value_bytes == 0 ? 24 : 28) : 16;
    p.prefetch_values = value_bytes > 0 ? 1 : 0;
    // 8-byte values of narrower keys in 2 rounds (H200, u32 keys + u64 values at 2^28: 256 x 24
    // so 9.7 ms, 256 x 17, the most that stage them at once, 12.3).
    if (key_bytes <= 4 && value_bytes == 8) {
      p.elements_per_thread = 24;
      p.value_rounds = 2;
    }
  }
  const auto fits = [&] {
    return local_memory_bytes(p, key_bytes, value_bytes) <= limits.local_memory_bytes;
  };
  detail::fit_work_groups(p, limits.max_work_group_size);
  while (p.elements_per_thread > 1 && p.algorithm == Algorithm::onesweep && !fits())
    --p.elements_per_thread;
  while (p.elements_per_thread > 1 && p.ranking == Ranking::serial && !fits())
    p.elements_per_thread /= 2;
  while (p.radix_bits > 1 && !fits()) --p.radix_bits;
  while (p.work_group_size > 1 && !fits()) {
    if (p.ranking == Ranking::warp_match && p.work_group_size == 32) {
      // Warps need whole 32-item work-groups; below that only the portable path is left.
      p.ranking = Ranking::bitmask;
      p.algorithm = Algorithm::reduce_then_scan;
      p.prefetch_values = 0;
      continue;
    }
    p.work_group_size /= 2;
    p.scan_work_group_size = std::min(p.scan_work_group_size, p.work_group_size);
  }
  if (!fits())
    throw Error("default parameters",
                limits.name +
                    " has CL_DEVICE_LOCAL_MEM_SIZE = " + std::to_string(limits.local_memory_bytes) +
                    " bytes; the smallest configuration for " + std::to_string(key_bytes) +
                    "-byte keys and " + std::to_string(value_bytes) + "-byte values needs " +
                    std::to_string(local_memory_bytes(p, key_bytes, value_bytes)));
  return p;
}

Params default_small_params(const cl::Device& device, std::size_t key_bytes,
                            std::size_t value_bytes) {
  const detail::DeviceLimits limits = detail::query_limits(device);
  Params p;
  p.algorithm = Algorithm::single_group;
  p.ranking = Ranking::serial;
  p.scan_work_group_size = 1;
  p.scan_elements_per_thread = 2;  // unused; the smallest valid values
  if (limits.is_cpu) {
    p.work_group_size = 1;
    p.elements_per_thread = 4096;
  } else if (limits.has_warp_match && limits.max_work_group_size >= 256) {
    // H200, host clock around sort and finish, u32 keys at 1,024: 0.021 ms against 0.039 with
    // the serial ranking below (4 passes of 8 bits instead of 8 of 4).
    p.ranking = Ranking::warp_match;
    p.work_group_size = 256;
  } else {
    p.radix_bits = 4;
    p.work_group_size = 256;
    detail::fit_work_groups(p, limits.max_work_group_size);
  }
  const auto fits = [&] {
    return local_memory_bytes(p, key_bytes, value_bytes) <= limits.local_memory_bytes;
  };
  while (p.elements_per_thread > 1 && !fits()) p.elements_per_thread /= 2;
  while (p.work_group_size > 1 && !fits()) p.work_group_size /= 2;
  if (!fits())
    throw Error("default parameters",
                limits.name + " has too little local memory for a single_group sort of " +
                    std::to_string(key_bytes) + "-byte keys and " + std::to_string(value_bytes) +
                    "-byte values");
  return p;
}

namespace {

// A built-in tier of NVIDIA GPUs with warp_match that run `work_group_size`-wide work-groups,
// for keys of at least `min_key_bytes`: `algorithm` `work_group_size` x `elements_per_thread`
// where it fits local memory.
std::optional<Params> warp_tier(const cl::Device& device, std::size_t key_bytes,
                                std::size_t value_bytes, std::size_t min_key_bytes,
                                Algorithm algorithm, int work_group_size, int elements_per_thread) {
  const detail::DeviceLimits limits = detail::query_limits(device);
  if (!limits.has_warp_match ||
      limits.max_work_group_size < static_cast<std::size_t>(work_group_size) ||
      key_bytes < min_key_bytes)
    return std::nullopt;
  Params p;
  p.algorithm = algorithm;
  p.ranking = Ranking::warp_match;
  p.work_group_size = work_group_size;
  p.elements_per_thread = elements_per_thread;
  p.prefetch_values = runs_onesweep_passes(algorithm) && value_bytes > 0 ? 1 : 0;
  if (local_memory_bytes(p, key_bytes, value_bytes) > limits.local_memory_bytes)
    return std::nullopt;
  return p;
}

}  // namespace

std::optional<Params> default_rank_params(const cl::Device& device, std::size_t key_bytes,
                                          std::size_t value_bytes, std::uint64_t n) {
  // 512 wide where the device runs it: on an H100 u32 pairs of 6,144 keys took 27-28 us at 512 x
  // 12 and 35-38 at 256 x 24 (a work-item moves half as many values).
  for (const int work_group_size : {512, 256})
    if (std::optional<Params> rank =
            warp_tier(device, key_bytes, value_bytes, 4, Algorithm::rank_sort, work_group_size,
                      detail::rank_default_elements_per_thread(key_bytes, n, work_group_size)))
      return rank;
  return std::nullopt;
}

std::optional<Params> default_mid_params(const cl::Device& device, std::size_t key_bytes,
                                         std::size_t value_bytes) {
  // H100, 2^13-2^15 keys: 4 keys a work-item ahead of 8 or 12 for most types (more tiles, each
  // pass spread over more compute units).
  return warp_tier(device, key_bytes, value_bytes, 2, Algorithm::fused_onesweep, 256, 4);
}

Params built_in_params(const cl::Device& device, std::size_t key_bytes, std::size_t value_bytes,
                       std::uint64_t n) {
  if (std::optional<Params> rank = default_rank_params(device, key_bytes, value_bytes, n))
    if (n <= single_group_capacity(*rank)) return *rank;
  try {
    const Params small = default_small_params(device, key_bytes, value_bytes);
    if (n <= single_group_capacity(small)) return small;
  } catch (const Error&) {
    // too little local memory for a single_group sort: the larger defaults take it
  }
  if (n <= mid_default_max_keys)
    if (std::optional<Params> mid = default_mid_params(device, key_bytes, value_bytes)) return *mid;
  return default_params(device, key_bytes, value_bytes);
}

void to_json(nlohmann::json& json, const Params& params) {
  json = nlohmann::json::object();
  for (const auto& field : int_fields) json[field.name] = params.*field.member;
  json["ranking"] = std::string(to_string(params.ranking));
  json["algorithm"] = std::string(to_string(params.algorithm));
}

void from_json(const nlohmann::json& json, Params& params) {
  const auto fail = [](const std::string& detail) { throw Error("read parameters", detail); };
  if (!json.is_object()) fail("expected a JSON object, got " + std::string(json.type_name()));
  Params parsed;
  for (const auto& field : int_fields) {
    const auto it = json.find(field.name);
    if (it == json.end() && field.optional) continue;
    if (it == json.end()) fail(std::string("missing field '") + field.name + "'");
    if (!it->is_number_integer())
      fail(std::string("field '") + field.name + "' must be an integer, got " + it->dump());
    const auto value = it->get<std::int64_t>();
    if (value < field.min || value > field.max)
      fail(std::string("field '") + field.name + "' = " + std::to_string(value) + " is outside [" +
           std::to_string(field.min) + ", " + std::to_string(field.max) + "]");
    parsed.*field.member = static_cast<int>(value);
  }
  parsed.ranking = read_enum(json, "ranking", ranking_names);
  parsed.algorithm = read_enum(json, "algorithm", algorithm_names);
  for (const auto& item : json.items()) {
    const std::string& key = item.key();
    const bool known = key == "ranking" || key == "algorithm" ||
                       std::any_of(int_fields.begin(), int_fields.end(),
                                   [&](const IntField& f) { return key == f.name; });
    if (!known) fail("unknown field '" + key + "'");
  }
  validate(parsed);
  params = parsed;
}

}  // namespace clsort
