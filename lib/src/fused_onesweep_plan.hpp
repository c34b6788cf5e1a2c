// The fused onesweep plan: onesweep's histogram kernel, then every pass in one launch.
#pragma once

#include "onesweep_plan.hpp"

namespace clsort::detail {

class FusedOnesweepPlan : public OnesweepPlan {
 public:
  FusedOnesweepPlan(const cl::Context& context, const cl::Device& device,
                    const KernelConfig& config);

  /// Enqueues the histogram kernel (after a fill of the counters where a sort left them dirty),
  /// the passes' kernel, and with an odd number of passes a copy back from scratch; never waits
  /// for the device.
  void run(CommandChain& chain, const PassData& data, std::uint64_t n,
           const SortSpec& spec) override;

 private:
  cl::Kernel kernel_;
};

}  // namespace clsort::detail
