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
  /// Also builds the staging kernel where a sort of n pairs over every key bit would take it.
  std::vector<cl::Buffer> reserve(std::uint64_t n) override;

 private:
  /// The kernel rendered with `stages_values`, for pairs sorted in place in an odd number of
  /// passes as one launch, built when first needed: a copy behind a run-time flag slowed kernels
  /// that never took it (H200, u64 + u32 at 256 x 8, 2^15-2^19 keys: 3-15%).
  cl::Kernel& staging_kernel();

  cl::Kernel kernel_, staging_kernel_;
  /// The most tiles a pass may have for the kernel to run without the histogram kernel: half the
  /// compute units on GPUs with warp_match ranking (NVIDIA's, where every compute unit holds a
  /// work-group and the work-groups that start first take the first tickets), else one.
  std::uint64_t resident_tiles_;
};

}  // namespace clsort::detail
