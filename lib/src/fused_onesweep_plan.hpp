// The fused onesweep plan: every pass in one launch, after onesweep's histogram kernel unless
// every tile of a pass runs at once.
#pragma once

#include "onesweep_plan.hpp"

namespace clsort::detail {

class FusedOnesweepPlan : public OnesweepPlan {
 public:
  FusedOnesweepPlan(const cl::Context& context, const cl::Device& device,
                    const KernelConfig& config);

  /// Enqueues the passes' kernel (after a fill of the counters where a sort left them dirty),
  /// alone where its tiles run at once (resident_tiles_), else after the histogram kernel;
  /// never waits for the device.
  void run(CommandChain& chain, const PassData& input, const PassData& output, std::uint64_t n,
           const SortSpec& spec) override;

 private:
  cl::Kernel kernel_;
  /// The most tiles a pass may have for the kernel to run without the histogram kernel: half the
  /// compute units on GPUs with warp_match ranking (NVIDIA's, where every compute unit holds a
  /// work-group and the work-groups that start first take the first tickets), else one.
  std::uint64_t resident_tiles_;
};

}  // namespace clsort::detail
