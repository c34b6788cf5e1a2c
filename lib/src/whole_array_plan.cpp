// What the plans that hold the whole array share: the capacity check and the leading arguments.
#include "whole_array_plan.hpp"

#include <string>

namespace clsort::detail {

KernelArgs WholeArrayPlan::leading_args(const PassData& input, const PassData& output,
                                        std::uint64_t n, const SortSpec& spec) {
  const std::uint64_t capacity = single_group_capacity(config_.params);
  if (n > capacity)
    throw Error("sort", "algorithm = " + std::string(to_string(config_.params.algorithm)) +
                            " with these parameters sorts at most " + std::to_string(capacity) +
                            " keys; this sort has " + std::to_string(n));
  KernelArgs args(kernel_, false);
  args.buffer(input.keys).buffer(output.keys);
  if (config_.value_bytes > 0) args.buffer(input.values).buffer(output.values);
  args.u32(static_cast<std::uint32_t>(n))
      .u32(spec.begin_bit)
      .u32(spec.end_bit)
      .u32(spec.descending);
  return args;
}

}  // namespace clsort::detail
