// The single-work-group plan: one launch sorts a small array in local memory, every pass.
#pragma once

#include "sort_plan.hpp"

namespace clsort::detail {

/// single_group.cl built for `config`: single_group_sort, or with `segments` the hybrid path's
/// segment_sort; slot counters as wide as the device's local memory holds.
cl::Program build_single_group(const cl::Context& context, const cl::Device& device,
                               const KernelConfig& config, bool segments);

class SingleGroupPlan : public SortPlan {
 public:
  SingleGroupPlan(const cl::Context& context, const cl::Device& device, const KernelConfig& config);

  /// Enqueues the one kernel; throws clsort::Error if n exceeds capacity(config.params).
  void run(CommandChain& chain, const PassData& data, std::uint64_t n,
           const SortSpec& spec) override;
  /// Needs no scratch: the keys never leave local memory between passes.
  void reserve(std::uint64_t) override {}

 private:
  KernelConfig config_;
  cl::Kernel kernel_;
};

}  // namespace clsort::detail
