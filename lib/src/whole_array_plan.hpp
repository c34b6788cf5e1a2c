// Plans holding the whole array in local memory (single_group, rank_sort): one kernel each.
#pragma once

#include "kernel_args.hpp"
#include "sort_plan.hpp"

namespace clsort::detail {

class WholeArrayPlan : public SortPlan {
 public:
  /// Throws clsort::Error, before enqueueing anything, if n exceeds single_group_capacity().
  void run(CommandChain& chain, const PassData& input, const PassData& output, std::uint64_t n,
           const SortSpec& spec) final;
  /// Needs no scratch: the keys never leave local memory between steps.
  std::vector<cl::Buffer> reserve(std::uint64_t) override { return {}; }

 protected:
  explicit WholeArrayPlan(const KernelConfig& config) : config_(config) {}

  /// Enqueues the one kernel that sorts input into output (n within single_group_capacity()).
  virtual void launch(CommandChain& chain, const PassData& input, const PassData& output,
                      std::uint64_t n, const SortSpec& spec) = 0;

  /// The kernel's leading arguments, set: input and output keys (and values), n, begin_bit,
  /// end_bit, descending.
  KernelArgs leading_args(const PassData& input, const PassData& output, std::uint64_t n,
                          const SortSpec& spec);

  KernelConfig config_;
  cl::Kernel kernel_;
};

}  // namespace clsort::detail
