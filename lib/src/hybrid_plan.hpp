// The hybrid plan: onesweep passes over the top digits only, then one local-memory sort per
// segment.
#pragma once

#include "onesweep_plan.hpp"

namespace clsort::detail {

class HybridPlan : public OnesweepPlan {
 public:
  HybridPlan(const cl::Context& context, const cl::Device& device, const KernelConfig& config);

  /// Sorts most significant digits first where that moves the keys fewer times than onesweep's
  /// passes (see Algorithm::hybrid), else as onesweep does.
  void run(CommandChain& chain, const PassData& data, std::uint64_t n,
           const SortSpec& spec) override;

  /// How many of the top varying passes (the last of `counts_of_varying`, each pass's digit
  /// counts) to run as onesweep passes: the fewest that leave buckets of at most a quarter of
  /// the segment kernel's tile on average (the product of the digits present in each estimates
  /// the number of buckets) and at least two passes for the segment kernel to save; 0 (plain
  /// passes) where none does, or where one of them has fewer than a quarter of its digits.
  static std::size_t bucket_passes(const std::vector<std::vector<std::uint64_t>>& counts_of_varying,
                                   std::uint64_t n, std::uint64_t tile);

 private:
  /// Enqueues the segment kernel from `from` into data, then reads whether a segment overflowed.
  bool sort_segments(CommandChain& chain, const PassData& from, const PassData& data,
                     std::uint64_t n, const SortSpec& spec, unsigned bucket_shift);

  std::uint64_t segment_tile_;
  cl::Kernel segment_kernel_;
  DeviceBuffer overflow_;
};

}  // namespace clsort::detail
