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
  // The kernel's passes alternate between two buffers, from `first` to `second` and back, the
  // last ending in output. One pass into other buffers reads the input itself; otherwise the
  // passes start from the histogram kernel's copy of the input, in scratch for an odd number and
  // in output for an even one (in place, output is the input: no copy).
  const PassData* first = &scratch.data;
  const PassData* second = &output;
  if (passes == 1 && !same_buffers(input, output))
    first = &input;
  else if (passes % 2 == 0)
    std::swap(first, second);
  count_digits(chain, scratch, input, n, spec, passes, fill_counters, EventFor::nothing,
               same_buffers(input, *first) ? nullptr : first);
  KernelArgs args(kernel_, false);
  args.buffer(first->keys).buffer(second->keys);
  if (config_.value_bytes > 0) args.buffer(first->values).buffer(second->values);
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
  chain.launch(kernel_, tiles * passes * wg, wg);
  end_sort();
}

}  // namespace clsort::detail
