// The count and scatter kernels of one radix-sort configuration (key type, values, parameters).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "clsort/opencl.hpp"
#include "clsort/params.hpp"
#include "clsort/types.hpp"
#include "command_chain.hpp"
#include "template_engine.hpp"

namespace clsort::detail {

/// What a set of kernels is specialized for.
struct KernelConfig {
  KeyType key_type = KeyType::u32;
  std::size_t value_bytes = 0;  ///< 0: keys only
  bool wide_offsets = false;    ///< 64-bit indices and offsets (needed from 2^32 keys on)
  Params params;
};

/// The digit one pass sorts by: (ordered key >> shift) & mask.
struct PassDigit {
  unsigned shift = 0;
  unsigned mask = 0;
};

/// Keys and (optionally) values of one side of a pass.
struct PassData {
  cl::Buffer keys;
  cl::Buffer values;  ///< unused without values
};

/// The OpenCL C type of `bytes` bytes in which keys and values are moved.
const char* storage_type(std::size_t bytes);

/// Keys in one block (a histogram column): elements_per_thread per work-item for serial
/// ranking, per work-group otherwise.
std::uint64_t keys_per_block(const Params& params);

/// How onesweep's pass kernel uses its local memory.
struct OnesweepLayout {
  /// warp_match ranking writes each key to the tile buffer as it is ranked, keeping the warps'
  /// digit masks in a table of their own; otherwise the masks fill the tile buffer until
  /// ranking ends and keys wait in registers.
  bool scatter_while_ranking = false;
  /// warp_match with one digit per work-item keeps each digit's tile count and first slot in
  /// its work-item's registers instead of local tables (chosen only where that lets the tile
  /// scatter while ranking).
  bool compact_digit_tables = false;
  /// The tile's keys, then its values, or the digit masks first.
  std::size_t tile_buffer_bytes = 0;
  /// Ranking's tables, then for pairs each slot's digit.
  std::size_t scratch_bytes = 0;
  /// All of it, or the histogram kernel's counts where those need more.
  std::size_t local_bytes = 0;
};

/// Keys a work-item of the built-in rank_sort default `work_group_size` wide (512 or 256) for n
/// keys of `key_bytes`: 4,096 32-bit keys where n fits them (8 keys a work-item rank faster than
/// 15), else as many as 48 KiB hold, 7,680 32-bit and 4,608 64-bit keys.
int rank_default_elements_per_thread(std::size_t key_bytes, std::uint64_t n, int work_group_size);

/// Lowers both work-group sizes to at most the largest power of two within `limit`; returns
/// whether either changed.
bool fit_work_groups(Params& params, std::size_t limit);

/// The layout for `params`: masks in their own table where that fits `local_memory_bytes`,
/// else in the tile buffer (the layout validation asks room for).
OnesweepLayout onesweep_layout(const Params& params, std::size_t key_bytes, std::size_t value_bytes,
                               std::uint64_t local_memory_bytes);

/// Whether single_group's warp_match ranking keeps 32-bit slot counters, which a warp's leader
/// advances with one local atomic, rather than 16-bit ones (read, then written): where the
/// wider table still fits `local_memory_bytes`.
bool single_group_wide_slots(const Params& params, std::size_t key_bytes, std::size_t value_bytes,
                             std::uint64_t local_memory_bytes);

/// The hybrid path's segment-kernel parameters for `params`: single_group with its ranking, radix
/// bits and work-group size and as many keys per work-item (up to 32) as `local_memory_bytes`
/// holds; nullopt where not even one fits.
std::optional<Params> hybrid_segment_params(const Params& params, std::size_t key_bytes,
                                            std::size_t value_bytes,
                                            std::uint64_t local_memory_bytes);

/// How the hybrid path's segment_rank kernel ranks small buckets: each work-group takes the
/// buckets that start in its stretch of `stride` keys and ranks those of fewer than
/// `bucket_limit` keys by comparing keys; a stretch with a larger bucket goes to the segment
/// kernel.
struct SegmentRankShape {
  std::uint64_t stride = 0;
  std::uint64_t bucket_limit = 0;
};

/// The shape for the segment kernel's `params`: buckets of up to one key per work-item (at
/// least 32), stretches of four times that.
SegmentRankShape segment_rank_shape(const Params& params);

/// single_group_hybrid ranks buckets of fewer than this many keys by comparison; one this large
/// or larger makes the work-group run every pass.
constexpr std::uint64_t single_group_bucket_limit = 32;
/// ... and sorts by as many top digits as leave buckets of at most this many keys on average.
constexpr std::uint64_t single_group_bucket_target = 4;

/// The lowest bit of the top digits that single_group_hybrid sorts by passes for n keys and the
/// bits [begin_bit, end_bit): the fewest whole digits (at least one) that leave n /
/// 2^(their bits) <= single_group_bucket_target, or all of [begin_bit, end_bit) (then it ranks
/// nothing: equal buckets hold equal keys).
std::uint32_t single_group_rank_from_bit(const Params& params, std::uint64_t n,
                                         std::uint32_t begin_bit, std::uint32_t end_bit);

/// The template variables that specialize kernels for a configuration.
TemplateContext kernel_template_variables(const KernelConfig& config);

class RadixKernels {
 public:
  RadixKernels(const cl::Context& context, const cl::Device& device, const KernelConfig& config);

  const KernelConfig& config() const { return config_; }
  /// Number of blocks (histogram columns) for n keys.
  std::uint64_t block_count(std::uint64_t n) const;

  /// hist[d * blocks + b] = keys of block b whose digit is d, for d <= digit.mask.
  void count(CommandChain& chain, const cl::Buffer& keys, std::uint64_t n, PassDigit digit,
             bool descending, const cl::Buffer& hist);

  /// Moves every key (and value) of `from` to `to` at offsets[d * blocks + b] plus its stable
  /// rank among the keys of block b with digit d. `offsets` is the exclusive scan of count().
  void scatter(CommandChain& chain, const PassData& from, const PassData& to, std::uint64_t n,
               PassDigit digit, bool descending, const cl::Buffer& offsets);

 private:
  std::uint64_t global_size(std::uint64_t blocks) const;

  KernelConfig config_;
  cl::Kernel count_;
  cl::Kernel scatter_;
};

}  // namespace clsort::detail
