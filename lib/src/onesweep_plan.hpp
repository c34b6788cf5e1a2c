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

  /// Enqueues the histograms of every digit and their exclusive offsets, then the passes,
  /// skipping those whose digit is the same for every key as spec.constant_pass_check says.
  /// Unless it says never, returns only once the histograms are read back.
  cl::Event run(const cl::CommandQueue& queue, const PassData& data, std::uint64_t n,
                const SortSpec& spec, std::vector<cl::Event> waits) override;
  void reserve(std::uint64_t n) override;

 private:
  /// The histograms, tile tickets and look-back status: aligned sub-buffers of `whole`, which
  /// one fill of its first `cleared_bytes(...)` clears before a sort (a command costs a small
  /// GPU sort several microseconds).
  struct Counters {
    cl::Buffer whole, histogram, tickets, status;
    std::uint64_t status_offset = 0;
  };
  struct Scratch {
    PassData data;
    cl::Buffer offsets;
    Counters counters;
  };
  /// The scratch buffers for n keys, sized for every pass (a sort uses those not skipped).
  Scratch scratch_for(std::uint64_t n);
  std::uint64_t tile_count(std::uint64_t n) const;
  /// The counters for n keys: made again only when their buffer grows.
  const Counters& counters_for(std::uint64_t n);
  /// The bytes of `counters.whole` to clear before a sort of n keys in `passes` passes.
  std::uint64_t cleared_bytes(const Counters& counters, std::uint64_t n, std::size_t passes) const;
  /// Clears the counters, then enqueues the histogram kernel and the digit offsets of every
  /// pass after `waits`.
  cl::Event count_digits(const cl::CommandQueue& queue, const Scratch& scratch,
                         const cl::Buffer& keys, std::uint64_t n, const SortSpec& spec,
                         std::size_t passes, std::vector<cl::Event> waits);
  /// Reads the histograms back once `counted` completes, through the plan's own queue so that
  /// the read does not wait for what `queue` runs after it, and returns the passes (from
  /// `first` on) whose digit varies.
  std::vector<std::size_t> varying_passes(const cl::CommandQueue& queue, const Scratch& scratch,
                                          std::uint64_t n, std::size_t first, std::size_t passes,
                                          const cl::Event& counted);
  /// Enqueues pass `pass` (digit `digit`) from `from` to `to` after `waits`.
  cl::Event enqueue_pass(const cl::CommandQueue& queue, const Scratch& scratch,
                         const PassData& from, const PassData& to, std::uint64_t n,
                         const SortSpec& spec, std::size_t pass, const PassDigit& digit,
                         const std::vector<cl::Event>& waits);
  cl::Event zero(const cl::CommandQueue& queue, const cl::Buffer& buffer, std::uint64_t bytes,
                 const std::vector<cl::Event>& waits) const;

  cl::Context context_;
  KernelConfig config_;
  std::size_t radix_;
  std::size_t max_passes_;
  std::size_t compute_units_;
  std::uint64_t sub_buffer_alignment_;  // bytes; CL_DEVICE_MEM_BASE_ADDR_ALIGN is in bits
  cl::CommandQueue readback_queue_;
  cl::Kernel histogram_kernel_;
  cl::Kernel offsets_kernel_;
  cl::Kernel pass_kernel_;
  DeviceBuffer scratch_keys_, scratch_values_, offsets_, counters_buffer_;
  Counters counters_;
};

}  // namespace clsort::detail
