// The reduce-then-scan plan: count -> scan -> scatter per digit, ping-ponging through scratch.
#include "reduce_then_scan_plan.hpp"

namespace clsort::detail {

ReduceThenScanPlan::ReduceThenScanPlan(const cl::Context& context, const cl::Device& device,
                                       const KernelConfig& config)
    : context_(context),
      radix_(context, device, config),
      scan_(context, device, config.wide_offsets, config.params.scan_work_group_size,
            config.params.scan_elements_per_thread) {}

std::uint64_t ReduceThenScanPlan::histogram_length(std::uint64_t n) const {
  return (std::uint64_t{1} << radix_.config().params.radix_bits) * radix_.block_count(n);
}

ReduceThenScanPlan::Scratch ReduceThenScanPlan::scratch_for(std::uint64_t n) {
  const KernelConfig& config = radix_.config();
  Scratch s;
  s.data.keys = scratch_keys_.at_least(context_, n * key_size(config.key_type), "scratch keys");
  if (config.value_bytes > 0)
    s.data.values = scratch_values_.at_least(context_, n * config.value_bytes, "scratch values");
  const std::size_t offset_bytes = config.wide_offsets ? 8 : 4;
  s.histogram = histogram_.at_least(context_, histogram_length(n) * offset_bytes, "histograms");
  return s;
}

std::vector<cl::Buffer> ReduceThenScanPlan::reserve(std::uint64_t n) {
  const Scratch scratch = scratch_for(n);
  std::vector<cl::Buffer> held = scan_.reserve(histogram_length(n));
  held.push_back(scratch.data.keys);
  held.push_back(scratch.histogram);
  if (radix_.config().value_bytes > 0) held.push_back(scratch.data.values);
  return held;
}

void ReduceThenScanPlan::run(CommandChain& chain, const PassData& input, const PassData& output,
                             std::uint64_t n, const SortSpec& spec) {
  const KernelConfig& config = radix_.config();
  const Scratch scratch = scratch_for(n);
  const cl::Buffer& hist = scratch.histogram;
  const std::vector<PassDigit> digits =
      pass_digits(spec.begin_bit, spec.end_bit, config.params.radix_bits);
  // Out of place, the first pass reads the input and writes where the last pass ends in output.
  const PassData* from = &input;
  const PassData* to =
      same_buffers(input, output) || digits.size() % 2 == 0 ? &scratch.data : &output;
  const std::uint64_t blocks = radix_.block_count(n);
  for (const PassDigit& digit : digits) {
    radix_.count(chain, from->keys, n, digit, spec.descending, hist);
    scan_.run(chain, hist, (digit.mask + std::uint64_t{1}) * blocks);
    radix_.scatter(chain, *from, *to, n, digit, spec.descending, hist);
    from = to;
    to = to == &output ? &scratch.data : &output;
  }
  if (!same_buffers(*from, output))
    copy_pass_data(chain, *from, output, n, key_size(config.key_type), config.value_bytes);
}

}  // namespace clsort::detail
