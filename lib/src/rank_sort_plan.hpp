// The rank-sort plan: one launch ranks every key of a small array by comparison, no radix passes.
#pragma once

#include "whole_array_plan.hpp"

namespace clsort::detail {

/// How rank_sort splits n keys: `groups` work-groups each own `block_keys` consecutive keys
/// (the last fewer) and count the keys before each one in slices of `lanes` work-items.
struct RankSortShape {
  std::uint64_t groups = 1;
  std::uint64_t block_keys = 0;
  std::uint64_t lanes = 1;
};

/// The shape for n keys (1 <= n <= single_group_capacity(params), work_group_size a power of
/// two): at most `max_groups` work-groups, their blocks split into slices of at least
/// `min_lanes` work-items (a warp, so that a slice reads one key of local memory at a time).
RankSortShape rank_sort_shape(const Params& params, std::uint64_t n, std::uint64_t max_groups,
                              std::uint64_t min_lanes);

class RankSortPlan : public WholeArrayPlan {
 public:
  RankSortPlan(const cl::Context& context, const cl::Device& device, const KernelConfig& config);

  /// Enqueues the one kernel, from input into output (which may be input); throws clsort::Error
  /// if n exceeds single_group_capacity().
  void run(CommandChain& chain, const PassData& input, const PassData& output, std::uint64_t n,
           const SortSpec& spec) override;

  /// The work-groups' counters (no scratch).
  std::vector<cl::Buffer> reserve(std::uint64_t) override { return {sync_}; }

 private:
  /// Work-groups a sort in place may spread over, which wait for each other's reads: one per
  /// compute unit on NVIDIA GPUs, where each holds one at once; one elsewhere, where nothing
  /// promises that they run at the same time (PoCL runs some one after another on a thread).
  std::uint64_t max_waiting_groups_ = 1;
  /// Work-groups a sort into other buffers spreads over: none waits, so any device's compute
  /// units may share it.
  std::uint64_t compute_units_ = 1;
  /// The fewest work-items of a slice: on NVIDIA GPUs a warp (32 wide wherever warp_match is
  /// available), so that all of a warp's items read the same key at once.
  std::uint64_t min_lanes_ = 1;
  /// The work-groups' two counters, zero between sorts.
  cl::Buffer sync_;
};

}  // namespace clsort::detail
