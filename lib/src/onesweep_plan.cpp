// Onesweep: histogram all passes, skip constant-digit passes, then one ticketed pass per digit.
#include "onesweep_plan.hpp"

#include <algorithm>

#include "device_info.hpp"
#include "kernel_args.hpp"
#include "kernel_build.hpp"

namespace clsort::detail {

OnesweepPlan::OnesweepPlan(const cl::Context& context, const cl::Device& device,
                           const KernelConfig& config)
    : context_(context),
      config_(config),
      radix_(std::size_t{1} << config.params.radix_bits),
      max_passes_((key_size(config.key_type) * 8 + config.params.radix_bits - 1) /
                  static_cast<std::size_t>(config.params.radix_bits)),
      compute_units_(query_limits(device).compute_units) {
  validate_for_device(config.params, device, key_size(config.key_type), config.value_bytes);
  const cl::Program program =
      build_template(context, device, "onesweep.cl", kernel_template_variables(config));
  const auto wg = static_cast<std::size_t>(config.params.work_group_size);
  histogram_kernel_ = make_kernel(program, device, "histogram_all_passes", wg, "work_group_size");
  pass_kernel_ = make_kernel(program, device, "onesweep_pass", wg, "work_group_size");
}

std::uint64_t OnesweepPlan::tile_count(std::uint64_t n) const {
  const auto tile = static_cast<std::uint64_t>(config_.params.work_group_size) *
                    static_cast<std::uint64_t>(config_.params.elements_per_thread);
  return (n + tile - 1) / tile;
}

OnesweepPlan::Scratch OnesweepPlan::scratch_for(std::uint64_t n) {
  Scratch s;
  s.data.keys = scratch_keys_.at_least(context_, n * key_size(config_.key_type), "scratch keys");
  if (config_.value_bytes > 0)
    s.data.values = scratch_values_.at_least(context_, n * config_.value_bytes, "scratch values");
  s.offsets = offsets_.at_least(context_, max_passes_ * radix_ * 4, "digit offsets");
  s.status =
      status_.at_least(context_, max_passes_ * tile_count(n) * radix_ * 4, "look-back status");
  s.tickets = tickets_.at_least(context_, max_passes_ * 4, "tile tickets");
  return s;
}

void OnesweepPlan::reserve(std::uint64_t n) {
  scratch_for(n);
  histogram_.at_least(context_, max_passes_ * radix_ * 4, "histograms");
}

cl::Event OnesweepPlan::zero(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                             std::uint64_t bytes, const std::vector<cl::Event>& waits) const {
  cl::Event done;
  check(queue.enqueueFillBuffer(buffer, cl_uint{0}, 0, bytes, &waits, &done), "enqueue fill");
  return done;
}

std::vector<cl_uint> OnesweepPlan::histograms(const cl::CommandQueue& queue, const cl::Buffer& keys,
                                              std::uint64_t n, unsigned begin_bit, unsigned end_bit,
                                              std::size_t passes, bool descending,
                                              std::vector<cl::Event>& waits) {
  const cl::Buffer& hist = histogram_.at_least(context_, passes * radix_ * 4, "histograms");
  waits = {zero(queue, hist, passes * radix_ * 4, waits)};
  // Enough work-groups to fill the device, each striding over many keys so that few flush
  // their local counts into the global atomics.
  const auto wg = static_cast<std::uint64_t>(config_.params.work_group_size);
  const std::uint64_t groups =
      std::clamp<std::uint64_t>((n + wg * 64 - 1) / (wg * 64), 1, compute_units_ * 4);
  KernelArgs(histogram_kernel_, false)
      .buffer(keys)
      .offset(n)
      .u32(begin_bit)
      .u32(end_bit)
      .u32(static_cast<std::uint32_t>(passes))
      .u32(descending)
      .buffer(hist);
  waits = {launch(queue, histogram_kernel_, groups * wg, wg, waits)};
  std::vector<cl_uint> counts(passes * radix_);
  check(queue.enqueueReadBuffer(hist, CL_TRUE, 0, counts.size() * 4, counts.data(), &waits),
        "read buffer", "digit histograms");
  return counts;
}

cl::Event OnesweepPlan::run(const cl::CommandQueue& queue, const PassData& data, std::uint64_t n,
                            unsigned begin_bit, unsigned end_bit, bool descending,
                            std::vector<cl::Event> waits) {
  if (n > max_keys)
    throw Error("sort", "onesweep handles at most " + std::to_string(max_keys) + " keys");
  const std::vector<PassDigit> all = pass_digits(begin_bit, end_bit, config_.params.radix_bits);
  const std::vector<cl_uint> counts =
      histograms(queue, data.keys, n, begin_bit, end_bit, all.size(), descending, waits);

  // A pass whose digit is the same for every key would only copy: skip it. The others get
  // exclusive digit offsets, computed here from the counts already read.
  std::vector<PassDigit> passes;
  // The upload below does not block: the plan keeps its source alive. The next run rewrites it
  // only after its own histogram read, which waits for this sort to finish.
  std::vector<cl_uint>& offsets = offsets_host_;
  offsets.clear();
  for (std::size_t p = 0; p < all.size(); ++p) {
    const auto first = counts.begin() + static_cast<std::ptrdiff_t>(p * radix_);
    if (std::find(first, first + static_cast<std::ptrdiff_t>(radix_), n) !=
        first + static_cast<std::ptrdiff_t>(radix_))
      continue;
    passes.push_back(all[p]);
    cl_uint running = 0;
    for (std::size_t d = 0; d < radix_; ++d) {
      offsets.push_back(running);
      running += first[static_cast<std::ptrdiff_t>(d)];
    }
  }
  if (passes.empty()) {
    cl::Event done;
    check(queue.enqueueMarkerWithWaitList(&waits, &done), "enqueue marker");
    return done;
  }

  const Scratch scratch = scratch_for(n);
  const std::uint64_t tiles = tile_count(n);
  cl::Event uploaded;
  check(queue.enqueueWriteBuffer(scratch.offsets, CL_FALSE, 0, offsets.size() * 4, offsets.data(),
                                 &waits, &uploaded),
        "write buffer", "digit offsets");
  waits.push_back(uploaded);
  waits = {zero(queue, scratch.status, passes.size() * tiles * radix_ * 4, waits),
           zero(queue, scratch.tickets, passes.size() * 4, waits)};

  const PassData* from = &data;
  const PassData* to = &scratch.data;
  const auto wg = static_cast<std::uint64_t>(config_.params.work_group_size);
  for (std::size_t p = 0; p < passes.size(); ++p) {
    KernelArgs args(pass_kernel_, false);
    args.buffer(from->keys).buffer(to->keys);
    if (config_.value_bytes > 0) args.buffer(from->values).buffer(to->values);
    args.offset(n)
        .u32(passes[p].shift)
        .u32(passes[p].mask)
        .u32(descending)
        .u32(static_cast<std::uint32_t>(p))
        .u32(static_cast<std::uint32_t>(tiles))
        .buffer(scratch.offsets)
        .buffer(scratch.status)
        .buffer(scratch.tickets);
    waits = {launch(queue, pass_kernel_, tiles * wg, wg, waits)};
    std::swap(from, to);
  }
  if (from != &data)
    return copy_pass_data(queue, *from, data, n, key_size(config_.key_type), config_.value_bytes,
                          waits);
  return waits.front();
}

}  // namespace clsort::detail
