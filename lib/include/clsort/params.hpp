// Kernel parameter sets: what a profile or the built-in default chooses for a sort.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include <nlohmann/json_fwd.hpp>

#include "clsort/opencl.hpp"

namespace clsort {

/// The pass structure of a sort.
enum class Algorithm {
  /// Per pass: count, scan, scatter kernels. Portable to every OpenCL device.
  reduce_then_scan,
  /// One histogram read up front, then one kernel per pass whose work-groups take tiles by
  /// ticket and find their offsets by decoupled look-back. Needs work-groups that make progress
  /// while others wait (true of NVIDIA GPUs and of PoCL). Look-back counts are 30 bits, so a
  /// sort of more keys than the whole tiles (work_group_size * elements_per_thread keys) below
  /// 2^30 runs each pass as one launch per portion of equal size, the last tile of each portion
  /// carrying its digits' counts to the next; sorts of 2^32 keys or more run reduce_then_scan
  /// with the same radix bits.
  onesweep,
  /// One work-group sorts the whole array in local memory, every pass in one launch with no
  /// host round trip (for small sorts: at most work_group_size * elements_per_thread keys, as
  /// local memory allows; larger sorts of a class that chose it run the built-in default).
  /// Serial ranking (each work-item counts its consecutive keys per digit in 16-bit counters:
  /// three barriers and a scan per pass, at most 65,536 keys), bitmask ranking (rounds of
  /// one key per work-item, for radix widths whose counters would not fit) or warp_match
  /// ranking (as onesweep's). The scan fields are unused.
  single_group,
  /// Most significant digits first, for wide keys: onesweep's histogram, then onesweep passes
  /// over only the top varying digits, as many as leave buckets of about 4 keys; then each key
  /// is ranked within its bucket by comparing it with the bucket's other keys and written
  /// straight to its place, so 64-bit keys move 4 times instead of 8. Buckets of more keys than
  /// the work-group size are sorted whole in local memory by a segment kernel with onesweep's
  /// radix bits, work-group size and ranking and as many keys per work-item (at most 32) as
  /// local memory holds. The call waits for the device twice (digit counts, then how many
  /// buckets were too large). A bucket larger than the segment kernel's local memory is copied
  /// through where all its keys are equal (one value repeated: NaNs, zeros), since it is then
  /// in order already; otherwise it makes the sort run onesweep's passes over the bucketed keys.
  /// From about 2^30 keys the onesweep passes run in portions as onesweep's do.
  /// ConstantPassCheck::never, and sorts of more than 2^32 - 2^24 keys (where the ranking
  /// step's 32-bit indices end), run plain onesweep.
  hybrid,
  /// single_group's launch and capacity with hybrid's order of work: passes in local memory
  /// over only the top digits, as many as leave buckets of about 4 keys for n keys (u32 keys:
  /// 2 passes of 8 bits instead of 4 at 4,096 keys, 1 at 1,024), then each key ranked within
  /// its bucket by comparison and written straight to its place. A bucket of 32 keys or more
  /// (few distinct keys, or bits that vary only low) makes the work-group run every pass after
  /// all. Still one launch and no host round trip. Faster than single_group on spread keys and
  /// up to about 2x slower on sorted or few distinct ones (the rank attempt, then the top passes
  /// again), so the tuner's built-in spaces leave it out: set it by hand or name it in a space.
  single_group_hybrid,
  /// onesweep's histogram kernel, then every pass in one launch: its work-groups take tickets
  /// in order, the first tiles' worth run the first pass, the next the second pass once the
  /// first is done, and so on, each waiting in the device for the pass before it. No host round
  /// trip and two kernel enqueues where onesweep makes one per pass and the histogram (NVIDIA's
  /// OpenCL spends about 6 us of host time on each), for small and mid-sized sorts. Needs what
  /// onesweep needs, and global memory fences that order one work-group's writes before
  /// another's reads (OpenCL's mem_fence, with PTX's membar.gl on NVIDIA GPUs). Constant passes
  /// run like any other pass: the ConstantPassCheck is ignored. Sorts of 2^30 keys or more run
  /// onesweep, which splits them into portions.
  fused_onesweep,
  /// No radix passes: each key's place is the count of keys that sort before it (smaller keys,
  /// and equal keys earlier in the array), found by comparing it with every other key, and each
  /// key and value is written straight there, in one launch. Holds
  /// single_group_capacity() keys, whose compared bits fill local memory beside a 32-bit
  /// count per key. n^2 comparisons, for the smallest sorts: on NVIDIA GPUs the work-groups of
  /// one launch share the counting, up to one per compute unit, and wait in the device for one
  /// another before writing (NVIDIA runs them all at once); elsewhere one work-group does it
  /// all. radix_bits, ranking and the scan fields are unused; work_group_size is a power of
  /// two.
  rank_sort,
};

/// Whether the algorithm runs onesweep's ticketed look-back passes (onesweep, hybrid,
/// fused_onesweep): ranking bitmask or warp_match, at most 2^32 - 1 keys.
constexpr bool runs_onesweep_passes(Algorithm algorithm) {
  return algorithm == Algorithm::onesweep || algorithm == Algorithm::hybrid ||
         algorithm == Algorithm::fused_onesweep;
}

/// Whether the algorithm's passes may prefetch tiles ahead (prefetch_ahead, with warp_match):
/// onesweep and hybrid, not fused_onesweep, which serves sorts too small for it to pay.
constexpr bool prefetches_tiles(Algorithm algorithm) {
  return algorithm == Algorithm::onesweep || algorithm == Algorithm::hybrid;
}

/// Whether the algorithm sorts the whole array in one work-group (single_group,
/// single_group_hybrid): it holds at most single_group_capacity() keys.
constexpr bool sorts_in_one_group(Algorithm algorithm) {
  return algorithm == Algorithm::single_group || algorithm == Algorithm::single_group_hybrid;
}

/// Whether the algorithm holds the whole array in local memory (single_group,
/// single_group_hybrid, rank_sort): it sorts at most single_group_capacity() keys.
constexpr bool has_key_capacity(Algorithm algorithm) {
  return sorts_in_one_group(algorithm) || algorithm == Algorithm::rank_sort;
}

/// How a block of keys is ranked stably before the scatter.
enum class Ranking {
  /// A work-item owns a block of consecutive keys and walks them in order, ordering the block
  /// by digit in local memory before it writes each digit's run out (best on CPUs;
  /// reduce_then_scan and single_group).
  serial,
  /// A work-group ranks rounds of keys with per-digit bitmasks in local memory (any device).
  bitmask,
  /// Warps find the keys sharing their digit with per-warp masks in local memory and rank them
  /// with one atomic per digit group and a shuffle through inline PTX (not reduce_then_scan; NVIDIA
  /// GPUs of compute capability 7.0 or later reporting 32-wide warps through
  /// cl_nv_device_attribute_query).
  warp_match,
};

std::string_view to_string(Algorithm algorithm);
std::string_view to_string(Ranking ranking);

/// One set of kernel parameters. Every field is validated (validate(), and against a device
/// when kernels are built); the tuner searches over them.
struct Params {
  /// Bits of the key sorted per pass: 1..8 (2^radix_bits digits).
  int radix_bits = 8;
  /// Work-items per work-group of the count and scatter kernels.
  int work_group_size = 256;
  /// Keys per work-item in one block: a block is work_group_size * elements_per_thread keys for
  /// bitmask ranking, elements_per_thread keys for serial ranking.
  int elements_per_thread = 16;
  Ranking ranking = Ranking::bitmask;
  Algorithm algorithm = Algorithm::reduce_then_scan;
  /// Work-items per work-group of the scan kernels.
  int scan_work_group_size = 256;
  /// Consecutive histogram entries each scan work-item sums serially.
  int scan_elements_per_thread = 4;
  /// onesweep with warp_match only (0 elsewhere): as a work-group takes tile t, it asks the L2
  /// cache for the keys of tile t + prefetch_ahead * (compute units), so that they are on chip
  /// when a work-group takes that tile. 0: no prefetch. H200, u32 keys: 1.02x at 2^28 and
  /// 0.985x at 2^24, slower for pairs; the tuner chooses per class.
  int prefetch_ahead = 0;
  /// onesweep, hybrid and fused_onesweep with warp_match only (0 elsewhere): 1 lets each tile of a
  /// pairs sort with integer keys ask the L2 cache for its values once its keys are ranked, so
  /// that they are on chip when the keys are out (float keys never do: slower on the H200
  /// wherever the request went). At 2^28, H200: u32 + u32 1.03x (256 x 30), u64 + u32 1.02x;
  /// H100: u32 + u32 0.94x (256 x 32), u64 + u32 0.99x; the tuner chooses per class.
  int prefetch_values = 0;
  /// onesweep only (0 elsewhere): at most this many work-groups per compute unit run each pass,
  /// each taking tiles by ticket until none is left, instead of one work-group per tile. The
  /// loop costs registers (H200, f32 + u32 at 256 x 32: 115 -> 173 a work-item, one work-group
  /// an SM, 35% slower) unless occupancy_groups caps them; the tuner chooses per class.
  /// Optional in JSON (0 where absent).
  int resident_groups = 0;
  /// onesweep only (0 elsewhere): on NVIDIA GPUs, the pass kernels are built so that this many
  /// work-groups fit each SM's registers (PTX .minnctapersm; the compiler spills what does not
  /// fit, and ignores a count whose work-items exceed an SM's); other devices build them as with
  /// 0, the compiler's own choice. H200, 256 x 30 from 2^25 keys: f32 + u32 7-10% faster with 3
  /// (the compiler's choice fits 2), u32 + u32, whose values' prefetch holds more, 1-4% slower;
  /// the tuner chooses per class. Optional in JSON (0 where absent).
  int occupancy_groups = 0;
  /// onesweep, hybrid and fused_onesweep only (1 elsewhere): 1 stages a tile's values in local
  /// memory all at once, through a buffer of the tile's keys or values, whichever are wider; 2-4
  /// hold each work-item's values in registers and stage them in that many rounds of the tile's
  /// slots, so that values wider than the keys need a buffer of only 1/value_rounds of the tile's
  /// values and tiles can be larger. H200, u32 keys + u64 values at 2^28: 256 x 17 all at once
  /// 12.3 ms, 256 x 24 in 2 rounds 9.7; the tuner chooses per class. Optional in JSON (1 where
  /// absent).
  int value_rounds = 1;
  /// rank_sort only (0 elsewhere): 0 compares each key with every key; 1-8 first bucket all keys
  /// by the top bucket_bits of the bits in which they differ, in local memory, and compare each
  /// key only with its bucket's (keys all equal skip the comparing). Holds at most 65,536 keys,
  /// and needs 2 bytes of local memory a key more. Keys crowded into few buckets compare about
  /// as many as with 0 and queue on their buckets' local atomics (H200, 4,096 u32 keys, host
  /// clock: uniform 16.9-17.2 us against 18.3-19.9 with 0, few distinct 21.3 against 17.4); the
  /// tuner chooses per class. Optional in JSON (0 where absent).
  int bucket_bits = 0;

  bool operator==(const Params& other) const;
  bool operator!=(const Params& other) const { return !(*this == other); }

 private:
  auto fields() const {
    return std::tie(radix_bits, work_group_size, elements_per_thread, ranking, algorithm,
                    scan_work_group_size, scan_elements_per_thread, prefetch_ahead, prefetch_values,
                    resident_groups, occupancy_groups, value_rounds, bucket_bits);
  }
};

inline bool Params::operator==(const Params& other) const {
  return fields() == other.fields();
}

/// Keys a single_group, single_group_hybrid or rank_sort sort with these parameters holds:
/// work_group_size * elements_per_thread.
std::uint64_t single_group_capacity(const Params& params);

/// The most keys a sort runs with these parameters: single_group_capacity() where the algorithm
/// holds the whole array (has_key_capacity()), else no limit (UINT64_MAX). A Sorter runs the
/// built-in default above it.
std::uint64_t most_keys(const Params& params);

/// Throws clsort::Error naming the first field outside its allowed range.
void validate(const Params& params);

/// Whether `device` builds onesweep's pass kernels differently for each occupancy_groups: NVIDIA's
/// OpenCL driver, whose programs are PTX. Elsewhere the field has no effect.
bool takes_occupancy_groups(const cl::Device& device);

/// Bytes of local memory the largest kernel needs with these parameters for keys of
/// `key_bytes` and values of `value_bytes` (0: none); checked against CL_DEVICE_LOCAL_MEM_SIZE.
std::size_t local_memory_bytes(const Params& params, std::size_t key_bytes,
                               std::size_t value_bytes);

/// Throws clsort::Error if the device cannot run these parameters for those key and value
/// widths (work-group size above CL_DEVICE_MAX_WORK_GROUP_SIZE, local memory above
/// CL_DEVICE_LOCAL_MEM_SIZE, warp_match ranking on a device without it).
void validate_for_device(const Params& params, const cl::Device& device, std::size_t key_bytes = 4,
                         std::size_t value_bytes = 0);

/// The built-in default for sorting keys of `key_bytes` with values of `value_bytes` on a
/// device; it runs on any OpenCL 1.2 device (shrunk to the device's work-group and local-memory
/// limits). CPUs: reduce_then_scan with serial ranking. NVIDIA GPUs with warp_match: onesweep.
/// Other devices: reduce_then_scan with bitmask ranking.
Params default_params(const cl::Device& device, std::size_t key_bytes = 4,
                      std::size_t value_bytes = 0);

/// The built-in default for sorts of at most single_group_capacity() keys of those widths: one
/// work-group with serial ranking, no host round trip. CPUs: one work-item of 4,096 keys, 8-bit
/// digits (PoCL, u64 keys at 4,096: 0.085 ms against 0.26 for default_params). NVIDIA GPUs
/// with warp_match: 256 work-items of up to 16 keys, 8-bit digits ranked by warps (H200, u32
/// keys at 1,024, host clock around sort and finish: 0.021 ms). Other devices: 256 work-items of
/// up to 16 keys, 4-bit digits, serial ranking, shrunk to the device's limits (H200: 0.039 ms).
Params default_small_params(const cl::Device& device, std::size_t key_bytes = 4,
                            std::size_t value_bytes = 0);

/// The built-in default for the smallest sorts of n keys, where the device has one: on NVIDIA
/// GPUs with warp_match, rank_sort for 4- and 8-byte keys. The largest sets (n above 4,096 32-bit
/// keys, or any n of 64-bit ones) fill 48 KiB: 512 x 15 holds 7,680 32-bit keys and 512 x 9 4,608
/// 64-bit ones (as many 256 wide where the device runs no 512-wide work-groups); up to 4,096 32-bit
/// keys 512 x 8, whose 8 keys a work-item rank 1.0-1.4 us faster than 15 (H100, host clock around
/// sort and finish, three alternating rounds: u32 keys at 1,024-4,096 15.3-17.6 us
/// against 16.3-19.0; 32-bit keys and pairs of 4,097-7,680 keys 21-32 us against fused_onesweep's
/// 35-44, 64-bit of 2,049-4,608 20-30 against 36-69). Above the largest capacity the caller takes
/// another tier. std::nullopt elsewhere and for narrower keys, whose one or two passes single_group
/// runs as fast: those sorts run default_small_params.
std::optional<Params> default_rank_params(
    const cl::Device& device, std::size_t key_bytes = 4, std::size_t value_bytes = 0,
    std::uint64_t n = std::numeric_limits<std::uint64_t>::max());

/// The largest sort default_mid_params serves.
inline constexpr std::uint64_t mid_default_max_keys = 32768;

/// The built-in default for sorts too large for default_small_params and of at most
/// mid_default_max_keys keys, where the device has one: on NVIDIA GPUs with warp_match,
/// fused_onesweep 256 x 4 for keys of 2 bytes or more, every pass in one launch (H100, host
/// clock, 2^13-2^15 keys: 1.09x-1.46x default_params' onesweep for 16-64-bit keys and their
/// pairs; onesweep wins from 2^17-2^18). std::nullopt elsewhere, and for 1-byte keys (a single pass
/// has no launches to save): those sorts run default_params.
std::optional<Params> default_mid_params(const cl::Device& device, std::size_t key_bytes = 4,
                                         std::size_t value_bytes = 0);

/// What a sort of n keys runs without a profile or parameters set: default_rank_params, else
/// default_small_params, where n fits its capacity; default_mid_params up to
/// mid_default_max_keys; else default_params.
Params built_in_params(const cl::Device& device, std::size_t key_bytes, std::size_t value_bytes,
                       std::uint64_t n);

/// JSON conversion (nlohmann::json ADL hooks). from_json throws clsort::Error naming a missing
/// or out-of-range field; unknown fields are rejected so typos do not pass silently.
void to_json(nlohmann::json& json, const Params& params);
void from_json(const nlohmann::json& json, Params& params);

}  // namespace clsort
