// Rank sorts: each key's place is the count of keys that sort before it, in one launch.
#include "rank_sort_plan.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "device_info.hpp"
#include "kernel_build.hpp"

namespace clsort::detail {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return (a + b - 1) / b;
}

std::uint64_t ceil_power_of_two(std::uint64_t v) {
  std::uint64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

}  // namespace

RankSortShape rank_sort_shape(const Params& params, std::uint64_t n, std::uint64_t max_groups,
                              std::uint64_t min_lanes) {
  const auto wg = static_cast<std::uint64_t>(params.work_group_size);
  const std::uint64_t per_group = ceil_div(n, std::max<std::uint64_t>(max_groups, 1));
  RankSortShape shape;
  shape.lanes = std::min(wg, std::max(min_lanes, ceil_power_of_two(per_group)));
  shape.block_keys = shape.lanes * ceil_div(per_group, shape.lanes);
  shape.groups = ceil_div(n, shape.block_keys);
  return shape;
}

RankSortPlan::RankSortPlan(const cl::Context& context, const cl::Device& device,
                           const KernelConfig& config)
    : WholeArrayPlan(config) {
  validate_for_device(config.params, device, key_size(config.key_type), config.value_bytes);
  const DeviceLimits limits = query_limits(device);
  compute_units_ = limits.compute_units;
  if (limits.has_warp_match) {
    max_waiting_groups_ = limits.compute_units;
    min_lanes_ = 32;
  }
  TemplateContext variables = kernel_template_variables(config);
  variables["nvidia_ptx"] = limits.has_warp_match;
  const cl::Program program = build_template(context, device, "rank_sort.cl", variables);
  kernel_ = make_kernel(program, device, "rank_sort",
                        static_cast<std::size_t>(config.params.work_group_size), "work_group_size");
  std::array<cl_uint, 2> zeros{};
  cl_int status = CL_SUCCESS;
  sync_ = cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(zeros), zeros.data(),
                     &status);
  check(status, "allocate buffer", "rank_sort's counters");
}

void RankSortPlan::run(CommandChain& chain, const PassData& input, const PassData& output,
                       std::uint64_t n, const SortSpec& spec) {
  const bool in_place = input.keys() == output.keys() ||
                        (config_.value_bytes > 0 && input.values() == output.values());
  const RankSortShape shape = rank_sort_shape(
      config_.params, n, in_place ? max_waiting_groups_ : compute_units_, min_lanes_);
  leading_args(input, output, n, spec)
      .u32(static_cast<std::uint32_t>(shape.block_keys))
      .u32(static_cast<std::uint32_t>(shape.lanes))
      .u32(in_place ? 1 : 0)
      .buffer(sync_);
  const auto wg = static_cast<std::uint64_t>(config_.params.work_group_size);
  chain.launch(kernel_, shape.groups * wg, wg);
}

}  // namespace clsort::detail
