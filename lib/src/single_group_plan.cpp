// Single-work-group sorts: the keys stay in one work-group's local memory for every pass.
#include "single_group_plan.hpp"

#include "device_info.hpp"
#include "kernel_build.hpp"

namespace clsort::detail {

cl::Program build_single_group(const cl::Context& context, const cl::Device& device,
                               const KernelConfig& config, bool segments) {
  TemplateContext variables = kernel_template_variables(config);
  variables["segments"] = segments;
  variables["bucket_rank"] = config.params.algorithm == Algorithm::single_group_hybrid;
  const SegmentRankShape rank = segment_rank_shape(config.params);
  variables["rank_stride"] = static_cast<std::int64_t>(rank.stride);
  variables["bucket_limit"] =
      static_cast<std::int64_t>(segments ? rank.bucket_limit : single_group_bucket_limit);
  variables["wide_slots"] =
      single_group_wide_slots(config.params, key_size(config.key_type), config.value_bytes,
                              query_limits(device).local_memory_bytes);
  return build_template(context, device, "single_group.cl", variables);
}

SingleGroupPlan::SingleGroupPlan(const cl::Context& context, const cl::Device& device,
                                 const KernelConfig& config)
    : WholeArrayPlan(config) {
  validate_for_device(config.params, device, key_size(config.key_type), config.value_bytes);
  const cl::Program program = build_single_group(context, device, config, /*segments=*/false);
  kernel_ = make_kernel(program, device, "single_group_sort",
                        static_cast<std::size_t>(config.params.work_group_size), "work_group_size");
}

void SingleGroupPlan::run(CommandChain& chain, const PassData& input, const PassData& output,
                          std::uint64_t n, const SortSpec& spec) {
  leading_args(input, output, n, spec)
      .u32(single_group_rank_from_bit(config_.params, n, spec.begin_bit, spec.end_bit));
  const auto wg = static_cast<std::size_t>(config_.params.work_group_size);
  chain.launch(kernel_, wg, wg);
}

}  // namespace clsort::detail
