// The single-work-group plan: one launch sorts a small array in local memory, every pass.
#pragma once

#include "whole_array_plan.hpp"

namespace clsort::detail {

/// single_group.cl built for `config`: single_group_sort, or with `segments` the hybrid path's
/// segment_sort; slot counters as wide as the device's local memory holds.
cl::Program build_single_group(const cl::Context& context, const cl::Device& device,
                               const KernelConfig& config, bool segments);

class SingleGroupPlan : public WholeArrayPlan {
 public:
  SingleGroupPlan(const cl::Context& context, const cl::Device& device, const KernelConfig& config);

  /// Enqueues the one kernel, from input into output (which may be input); throws clsort::Error
  /// if n exceeds single_group_capacity().
  void run(CommandChain& chain, const PassData& input, const PassData& output, std::uint64_t n,
           const SortSpec& spec) override;
};

}  // namespace clsort::detail
