// The fused onesweep plan: onesweep's histogram kernel, then every pass in one launch.
#pragma once

#include "onesweep_plan.hpp"

namespace clsort::detail {

class FusedOnesweepPlan : public OnesweepPlan {
 public:
  FusedOnesweepPlan(const cl::Context& context, const cl::Device& device,
                    const KernelConfig& config);

  /// Enqueues the histogram kernel (after a fill of the counters where a sort left them dirty)
  /// and the passes' kernel; never waits for the device.
  void run(CommandChain& chain, const PassData& input, const PassData& output, std::uint64_t n,
           const SortSpec& spec) override;

 private:
  cl::Kernel kernel_;
};

}  // namespace clsort::detail
