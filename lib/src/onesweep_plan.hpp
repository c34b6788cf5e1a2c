// The onesweep plan: one histogram read for all passes, then one look-back kernel per pass.
#pragma once

#include "device_buffer.hpp"
#include "sort_plan.hpp"

namespace clsort::detail {

class OnesweepPlan : public SortPlan {
 public:
  /// Largest n the plan sorts: look-back counts are 30 bits wide.
  static constexpr std::uint64_t max_keys = (std::uint64_t{1} << 30) - 1;

  OnesweepPlan(const cl::Context& context, const cl::Device& device, const KernelConfig& config);

  /// Reads the histograms back to the host to skip passes whose digit is the same for every key,
  /// so the call returns only once the histogram kernel has run.
  cl::Event run(const cl::CommandQueue& queue, const PassData& data, std::uint64_t n,
                unsigned begin_bit, unsigned end_bit, bool descending,
                std::vector<cl::Event> waits) override;
  void reserve(std::uint64_t n) override;

 private:
  struct Scratch {
    PassData data;
    cl::Buffer offsets, status, tickets;
  };
  /// The scratch buffers for n keys, sized for every pass (a sort uses those not skipped).
  Scratch scratch_for(std::uint64_t n);
  std::uint64_t tile_count(std::uint64_t n) const;
  /// Enqueues the histogram kernel and returns each pass's digit counts, read back.
  std::vector<cl_uint> histograms(const cl::CommandQueue& queue, const cl::Buffer& keys,
                                  std::uint64_t n, unsigned begin_bit, unsigned end_bit,
                                  std::size_t passes, bool descending,
                                  std::vector<cl::Event>& waits);
  cl::Event zero(const cl::CommandQueue& queue, const cl::Buffer& buffer, std::uint64_t bytes,
                 const std::vector<cl::Event>& waits) const;

  cl::Context context_;
  KernelConfig config_;
  std::size_t radix_;
  std::size_t max_passes_;
  std::size_t compute_units_;
  cl::Kernel histogram_kernel_;
  cl::Kernel pass_kernel_;
  std::vector<cl_uint> offsets_host_;  // source of the non-blocking offsets upload
  DeviceBuffer scratch_keys_, scratch_values_, histogram_, offsets_, status_, tickets_;
};

}  // namespace clsort::detail
