// Plans holding the whole array in local memory (single_group, rank_sort): one kernel each.
#pragma once

#include "kernel_args.hpp"
#include "sort_plan.hpp"

namespace clsort::detail {

class WholeArrayPlan : public SortPlan {
 public:
  /// Needs no scratch: the keys never leave local memory between steps.
  std::vector<cl::Buffer> reserve(std::uint64_t) override { return {}; }

 protected:
  explicit WholeArrayPlan(const KernelConfig& config) : config_(config) {}

  /// The kernel's leading arguments, set: input and output keys (and values), n, begin_bit,
  /// end_bit, descending. Throws clsort::Error if n exceeds single_group_capacity().
  KernelArgs leading_args(const PassData& input, const PassData& output, std::uint64_t n,
                          const SortSpec& spec);

  KernelConfig config_;
  cl::Kernel kernel_;
};

}  // namespace clsort::detail
