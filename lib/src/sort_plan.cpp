// What every plan shares: pass digits, the choice of plan, copying results back from scratch.
#include "sort_plan.hpp"

#include <algorithm>

#include "onesweep_plan.hpp"
#include "reduce_then_scan_plan.hpp"
#include "single_group_plan.hpp"

namespace clsort::detail {

std::vector<PassDigit> pass_digits(unsigned begin_bit, unsigned end_bit, int radix_bits) {
  std::vector<PassDigit> passes;
  for (unsigned shift = begin_bit; shift < end_bit; shift += static_cast<unsigned>(radix_bits)) {
    const unsigned width = std::min(static_cast<unsigned>(radix_bits), end_bit - shift);
    passes.push_back({shift, (1u << width) - 1u});
  }
  return passes;
}

std::unique_ptr<SortPlan> make_sort_plan(const cl::Context& context, const cl::Device& device,
                                         const KernelConfig& config) {
  if (config.params.algorithm == Algorithm::onesweep)
    return std::make_unique<OnesweepPlan>(context, device, config);
  if (config.params.algorithm == Algorithm::single_group)
    return std::make_unique<SingleGroupPlan>(context, device, config);
  return std::make_unique<ReduceThenScanPlan>(context, device, config);
}

cl::Event copy_pass_data(const cl::CommandQueue& queue, const PassData& from, const PassData& to,
                         std::uint64_t n, std::size_t key_bytes, std::size_t value_bytes,
                         const std::vector<cl::Event>& waits) {
  std::vector<cl::Event> copies(1);
  check(queue.enqueueCopyBuffer(from.keys, to.keys, 0, 0, n * key_bytes, &waits, &copies[0]),
        "enqueue copy", "keys back from scratch");
  if (value_bytes == 0) return copies[0];
  copies.emplace_back();
  check(queue.enqueueCopyBuffer(from.values, to.values, 0, 0, n * value_bytes, &waits, &copies[1]),
        "enqueue copy", "values back from scratch");
  cl::Event done;
  check(queue.enqueueMarkerWithWaitList(&copies, &done), "enqueue marker");
  return done;
}

}  // namespace clsort::detail
