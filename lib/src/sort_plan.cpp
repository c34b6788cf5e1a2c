// What every plan shares: pass digits, the choice of plan, copying results back from scratch.
#include "sort_plan.hpp"

#include <algorithm>

#include "fused_onesweep_plan.hpp"
#include "hybrid_plan.hpp"
#include "onesweep_plan.hpp"
#include "rank_sort_plan.hpp"
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
  if (config.params.algorithm == Algorithm::fused_onesweep)
    return std::make_unique<FusedOnesweepPlan>(context, device, config);
  if (config.params.algorithm == Algorithm::hybrid)
    return std::make_unique<HybridPlan>(context, device, config);
  if (config.params.algorithm == Algorithm::rank_sort)
    return std::make_unique<RankSortPlan>(context, device, config);
  if (sorts_in_one_group(config.params.algorithm))
    return std::make_unique<SingleGroupPlan>(context, device, config);
  return std::make_unique<ReduceThenScanPlan>(context, device, config);
}

bool same_buffers(const PassData& a, const PassData& b) {
  return a.keys() == b.keys();
}

void copy_buffer(CommandChain& chain, const cl::Buffer& from, const cl::Buffer& to,
                 std::uint64_t bytes, const char* what) {
  chain.add([&](const std::vector<cl::Event>* waits, cl::Event* event) {
    check(chain.queue().enqueueCopyBuffer(from, to, 0, 0, bytes, waits, event), "enqueue copy",
          what);
  });
}

void copy_pass_data(CommandChain& chain, const PassData& from, const PassData& to, std::uint64_t n,
                    std::size_t key_bytes, std::size_t value_bytes) {
  copy_buffer(chain, from.keys, to.keys, n * key_bytes, "keys");
  if (value_bytes > 0) copy_buffer(chain, from.values, to.values, n * value_bytes, "values");
}

}  // namespace clsort::detail
