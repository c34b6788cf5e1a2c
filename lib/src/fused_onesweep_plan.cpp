// Fused onesweep: onesweep's histogram kernel, then every pass in one launch.
#include "fused_onesweep_plan.hpp"

#include <cstdint>
#include <string>

#include "kernel_args.hpp"
#include "kernel_build.hpp"

namespace clsort::detail {

FusedOnesweepPlan::FusedOnesweepPlan(const cl::Context& context, const cl::Device& device,
                                     const KernelConfig& config)
    : OnesweepPlan(context, device, config, "fused_onesweep.cl", max_portion_keys) {
  kernel_ = make_kernel(program_, device, "fused_onesweep",
                        static_cast<std::size_t>(config.params.work_group_size), "work_group_size");
}

void FusedOnesweepPlan::run(CommandChain& chain, const PassData& data, std::uint64_t n,
                            const SortSpec& spec) {
  if (n > max_portion_keys)
    throw Error("sort", "fused_onesweep handles at most " + std::to_string(max_portion_keys) +
                            " keys; use onesweep");
  const std::size_t passes =
      pass_digits(spec.begin_bit, spec.end_bit, config_.params.radix_bits).size();
  const std::uint64_t tiles = tile_count(n);
  // Tickets are 32-bit: tiny tiles of a huge sort would wrap them.
  if (tiles * passes > UINT32_MAX)
    throw Error("sort", "fused_onesweep with these parameters would launch " +
                            std::to_string(tiles * passes) + " work-groups for " +
                            std::to_string(n) + " keys, more than 2^32 - 1; use onesweep");
  const Scratch scratch = scratch_for(n);
  const bool fill_counters = begin_sort();
  count_digits(chain, scratch, data.keys, n, spec, passes, fill_counters, EventFor::nothing);
  KernelArgs args(kernel_, false);
  args.buffer(data.keys).buffer(scratch.data.keys);
  if (config_.value_bytes > 0) args.buffer(data.values).buffer(scratch.data.values);
  args.offset(n)
      .u32(spec.begin_bit)
      .u32(spec.end_bit)
      .u32(static_cast<std::uint32_t>(passes))
      .u32(spec.descending)
      .u32(static_cast<std::uint32_t>(tiles))
      .buffer(scratch.counters.histogram())
      .buffer(scratch.counters.status)
      .buffer(scratch.counters.ticket)
      .buffer(scratch.counters.finished);
  const auto wg = static_cast<std::uint64_t>(config_.params.work_group_size);
  const bool ends_in_scratch = passes % 2 == 1;
  chain.launch(kernel_, tiles * passes * wg, wg);
  if (ends_in_scratch)
    copy_pass_data(chain, scratch.data, data, n, key_size(config_.key_type), config_.value_bytes);
  end_sort();
}

}  // namespace clsort::detail
