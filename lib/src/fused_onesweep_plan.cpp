// Fused onesweep: every pass in one launch, after the histogram kernel where tiles must wait.
#include "fused_onesweep_plan.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "device_info.hpp"
#include "kernel_args.hpp"
#include "kernel_build.hpp"

namespace clsort::detail {

FusedOnesweepPlan::FusedOnesweepPlan(const cl::Context& context, const cl::Device& device,
                                     const KernelConfig& config)
    : OnesweepPlan(context, device, config, "fused_onesweep.cl", max_portion_keys) {
  kernel_ = make_kernel(program_, device, "fused_onesweep",
                        static_cast<std::size_t>(config.params.work_group_size), "work_group_size");
  const DeviceLimits limits = query_limits(device);
  // Half the compute units: with a tile on every compute unit, the wait for the slowest and
  // every tile's sums over all the others cost more than the histogram kernel they save (H200,
  // 128 tiles of 1,024-4,096 u32 keys: 61-75 us against 65-86).
  resident_tiles_ =
      limits.has_warp_match ? std::max<std::uint64_t>(limits.compute_units / 2, 1) : 1;
}

void FusedOnesweepPlan::run(CommandChain& chain, const PassData& input, const PassData& output,
                            std::uint64_t n, const SortSpec& spec) {
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
  // Pass 0 reads the source and writes `second`; the passes then alternate between `second` and
  // `first`, the last ending in output: `first` is output for an even number of passes.
  const bool in_place = same_buffers(input, output);
  const bool odd_passes = passes % 2 == 1;
  const PassData* first = odd_passes ? &scratch.data : &output;
  const PassData* second = odd_passes ? &output : &scratch.data;
  // Resident tiles have all loaded their keys before any writes, so an odd number of passes in
  // place may start over the input; their values load later, so pass 0 stages them in `first`.
  const bool resident = tiles <= resident_tiles_;
  const bool stages_values = resident && odd_passes && in_place && config_.value_bytes > 0;
  cl::Kernel& kernel = stages_values ? staging_kernel() : kernel_;
  // Without resident tiles, an odd number of passes in place starts from the histogram
  // kernel's copy of the input in scratch (`first`): pass 0 writes over the input.
  const bool copy_input = !resident && odd_passes && in_place;
  const PassData& source = copy_input ? *first : input;
  if (resident) {
    if (fill_counters) fill_dirty_counters(chain, scratch);
  } else {
    count_digits(chain, scratch, input, n, spec, passes, fill_counters, EventFor::nothing,
                 copy_input ? first : nullptr);
  }
  KernelArgs args(kernel, false);
  args.buffer(source.keys).buffer(first->keys).buffer(second->keys);
  if (config_.value_bytes > 0)
    args.buffer(source.values).buffer(first->values).buffer(second->values);
  args.offset(n)
      .u32(spec.begin_bit)
      .u32(spec.end_bit)
      .u32(static_cast<std::uint32_t>(passes))
      .u32(spec.descending)
      .u32(static_cast<std::uint32_t>(tiles))
      .u32(resident)
      .buffer(scratch.counters.histogram())
      .buffer(scratch.counters.next_histogram())
      .buffer(scratch.counters.status)
      .buffer(scratch.counters.ticket)
      .buffer(scratch.counters.finished);
  const auto wg = static_cast<std::uint64_t>(config_.params.work_group_size);
  chain.launch(kernel, tiles * passes * wg, wg);
  end_sort();
}

std::vector<cl::Buffer> FusedOnesweepPlan::reserve(std::uint64_t n) {
  if (config_.value_bytes > 0 && max_passes_ % 2 == 1 && tile_count(n) <= resident_tiles_)
    staging_kernel();
  return OnesweepPlan::reserve(n);
}

cl::Kernel& FusedOnesweepPlan::staging_kernel() {
  if (!staging_kernel_())
    staging_kernel_ =
        make_kernel(build_variant("stages_values"), device_, "fused_onesweep",
                    static_cast<std::size_t>(config_.params.work_group_size), "work_group_size");
  return staging_kernel_;
}

}  // namespace clsort::detail
