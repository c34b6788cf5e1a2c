// The portable plan: per pass a count kernel, a multi-level scan and a scatter kernel.
#pragma once

#include "device_buffer.hpp"
#include "prefix_scan.hpp"
#include "sort_plan.hpp"

namespace clsort::detail {

class ReduceThenScanPlan : public SortPlan {
 public:
  ReduceThenScanPlan(const cl::Context& context, const cl::Device& device,
                     const KernelConfig& config);

  /// Runs every pass: this plan never looks for constant-digit passes.
  void run(CommandChain& chain, const PassData& input, const PassData& output, std::uint64_t n,
           const SortSpec& spec) override;
  std::vector<cl::Buffer> reserve(std::uint64_t n) override;

 private:
  struct Scratch {
    PassData data;
    cl::Buffer histogram;
  };
  Scratch scratch_for(std::uint64_t n);
  /// Histogram entries a sort of n keys needs (all digits of all blocks).
  std::uint64_t histogram_length(std::uint64_t n) const;

  cl::Context context_;
  RadixKernels radix_;
  PrefixScan scan_;
  DeviceBuffer scratch_keys_, scratch_values_, histogram_;
};

}  // namespace clsort::detail
