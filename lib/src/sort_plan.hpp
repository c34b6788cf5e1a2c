// A sort plan: the kernels and scratch buffers of one configuration, and its pass sequence.
#pragma once

#include <cstdint>
#include <vector>

#include "clsort/types.hpp"
#include "device_buffer.hpp"
#include "prefix_scan.hpp"
#include "radix_kernels.hpp"

namespace clsort::detail {

/// The digits of each pass for bits [begin_bit, end_bit), radix_bits at a time, low bits first.
std::vector<PassDigit> pass_digits(unsigned begin_bit, unsigned end_bit, int radix_bits);

class SortPlan {
 public:
  SortPlan(const cl::Context& context, const cl::Device& device, const KernelConfig& config);

  /// Sorts data (n keys, and values if the config has them) in place by bits
  /// [begin_bit, end_bit) of the ordered key: count, scan and scatter per pass, ping-ponging
  /// through scratch buffers, and a copy back after an odd number of passes.
  cl::Event run(const cl::CommandQueue& queue, const PassData& data, std::uint64_t n,
                unsigned begin_bit, unsigned end_bit, bool descending,
                std::vector<cl::Event> waits);

  /// Allocates the scratch buffers for n keys now (they grow on demand otherwise).
  void reserve(std::uint64_t n);

  /// Histogram entries a sort of n keys needs (all digits of all blocks).
  std::uint64_t histogram_length(std::uint64_t n) const;

 private:
  struct Scratch {
    PassData data;
    cl::Buffer histogram;
  };
  Scratch scratch_for(std::uint64_t n);
  cl::Event copy_back(const cl::CommandQueue& queue, const PassData& from, const PassData& to,
                      std::uint64_t n, const std::vector<cl::Event>& waits) const;

  cl::Context context_;
  RadixKernels radix_;
  PrefixScan scan_;
  DeviceBuffer scratch_keys_, scratch_values_, histogram_;
};

}  // namespace clsort::detail
