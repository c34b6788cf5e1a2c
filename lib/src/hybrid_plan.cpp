// Hybrid sorts: bucket by the top varying digits with onesweep passes, then sort each segment
// whole.
#include "hybrid_plan.hpp"

#include <algorithm>

#include "device_info.hpp"
#include "kernel_args.hpp"
#include "kernel_build.hpp"
#include "single_group_plan.hpp"

namespace clsort::detail {
namespace {

KernelConfig segment_config(const cl::Device& device, const KernelConfig& config) {
  const std::optional<Params> segment =
      hybrid_segment_params(config.params, key_size(config.key_type), config.value_bytes,
                            query_limits(device).local_memory_bytes);
  if (!segment)
    throw Error("build kernels",
                "algorithm = hybrid: not even one key per work-item of the "
                "segment kernel fits the local memory of " +
                    query_limits(device).name);
  KernelConfig result = config;
  result.params = *segment;
  return result;
}

unsigned floor_log2(std::uint64_t n) {
  unsigned log2 = 0;
  while (n >>= 1) ++log2;
  return log2;
}

}  // namespace

HybridPlan::HybridPlan(const cl::Context& context, const cl::Device& device,
                       const KernelConfig& config, std::uint64_t portion_keys,
                       std::uint64_t first_guess_keys)
    : OnesweepPlan(context, device, config, portion_keys),
      portion_keys_(portion_keys),
      first_guess_keys_(first_guess_keys) {
  const KernelConfig segment = segment_config(device, config);
  rank_shape_ = segment_rank_shape(segment.params);
  const cl::Program program = build_single_group(context, device, segment, /*segments=*/true);
  const auto wg = static_cast<std::size_t>(segment.params.work_group_size);
  rank_kernel_ = make_kernel(program, device, "segment_rank", wg, "work_group_size");
  segment_kernel_ = make_kernel(program, device, "segment_sort", wg, "work_group_size");
}

std::uint64_t HybridPlan::bucket_target(std::uint64_t bucket_limit) {
  return std::max<std::uint64_t>(bucket_limit / 64, 1);
}

std::size_t HybridPlan::bucket_passes(
    const std::vector<std::vector<std::uint64_t>>& counts_of_varying, std::uint64_t n,
    std::uint64_t bucket_target) {
  if (counts_of_varying.size() < 2) return 0;
  const std::size_t most = counts_of_varying.size() - 1;
  double buckets = 1;
  for (std::size_t top = 1; top <= most; ++top) {
    const auto& counts = counts_of_varying[counts_of_varying.size() - top];
    const auto nonzero = [](std::uint64_t c) { return c > 0; };
    const auto present = std::count_if(counts.begin(), counts.end(), nonzero);
    const auto span = (counts.rend() - std::find_if(counts.rbegin(), counts.rend(), nonzero)) -
                      (std::find_if(counts.begin(), counts.end(), nonzero) - counts.begin());
    // Digits scattered thinly over their range hint at few distinct keys, whose digits go
    // together: the product would then promise buckets that never come (and each overflow
    // costs every pass again). Digits that fill a narrow range are structure (a tile number's
    // top bits, a float depth's exponent) and divide buckets as the product says.
    if (present * 2 < span) return 0;
    buckets *= static_cast<double>(present);
    if (static_cast<double>(n) / buckets <= static_cast<double>(bucket_target)) return top;
  }
  return 0;
}

std::vector<cl::Buffer> HybridPlan::reserve(std::uint64_t n) {
  std::vector<cl::Buffer> held = OnesweepPlan::reserve(n);
  const SegmentBuffers segments = segment_buffers(n);
  held.push_back(segments.counts);
  held.push_back(segments.ranges);
  if (OnesweepPlan* wide = wide_passes()) {
    const std::vector<cl::Buffer> wide_held = wide->reserve(n);
    held.insert(held.end(), wide_held.begin(), wide_held.end());
  }
  return held;
}

HybridPlan::SegmentBuffers HybridPlan::segment_buffers(std::uint64_t n) {
  // A work-group lists at most two ranges: its buckets, and a large bucket split off them.
  return {segment_counts_.at_least(context_, 8, "segment counts"),
          segment_ranges_.at_least(context_, 16 * rank_groups(n), "segment ranges")};
}

std::uint64_t HybridPlan::rank_groups(std::uint64_t n) const {
  return (n + rank_shape_.stride - 1) / rank_shape_.stride;
}

OnesweepPlan* HybridPlan::wide_passes() {
  if (wide_passes_tried_ || config_.params.radix_bits >= 8) return wide_passes_.get();
  wide_passes_tried_ = true;
  KernelConfig wide = config_;
  wide.params.algorithm = Algorithm::onesweep;
  wide.params.radix_bits = 8;
  try {
    validate_for_device(wide.params, device_, key_size(config_.key_type), config_.value_bytes);
  } catch (const Error&) {
    return nullptr;  // the usual passes run at this plan's digits
  }
  wide_passes_ = std::make_unique<OnesweepPlan>(context_, device_, wide, portion_keys_);
  return wide_passes_.get();
}

void HybridPlan::run_wide_passes(CommandChain& chain, OnesweepPlan& wide, const PassData& source,
                                 const PassData& data, std::uint64_t n, const SortSpec& spec) {
  wide.run(chain, source, data, n, spec);
  ran_wide_passes_ = true;
}

std::optional<std::size_t> HybridPlan::guess_first_pass(const std::vector<PassDigit>& digits,
                                                        std::uint64_t n) const {
  if (last_choice_.n_log2 == floor_log2(n)) {
    if (!last_choice_.first_shift) return std::nullopt;
    for (std::size_t d = 0; d < digits.size(); ++d)
      if (digits[d].shift == *last_choice_.first_shift) return d;
    return std::nullopt;
  }
  if (n > first_guess_keys_) return std::nullopt;
  // Keys whose every digit varies and spreads, as uniform keys do: the first of their bucket
  // passes, or of the usual passes.
  const std::vector<std::vector<std::uint64_t>> spread_digits(
      digits.size(), std::vector<std::uint64_t>(radix_, 1));
  const std::size_t top = bucket_passes(spread_digits, n, bucket_target(rank_shape_.bucket_limit));
  return top > 0 ? digits.size() - top : 0;
}

void HybridPlan::run(CommandChain& chain, const PassData& input, const PassData& output,
                     std::uint64_t n, const SortSpec& spec) {
  bucket_passes_run_ = 0;
  overflowed_ = false;
  went_deeper_ = false;
  fell_back_ = false;
  guess_held_ = false;
  ran_wide_passes_ = false;
  skipped_buckets_ = false;
  skipped_bucket_check_ = false;
  if (spec.constant_pass_check == ConstantPassCheck::never || n > max_keys || n < 2)
    return OnesweepPlan::run(chain, input, output, n, spec);
  if (unbucketed_.take(floor_log2(n)))
    return run_without_bucket_check(chain, input, output, n, spec);
  // The first pass reads the input (which out of place it only reads); the others move the keys
  // between output and scratch.
  const PassData& data = output;
  const std::vector<PassDigit> digits =
      pass_digits(spec.begin_bit, spec.end_bit, config_.params.radix_bits);
  const Scratch scratch = scratch_for(n);
  const bool fill_counters = begin_sort();
  const cl::Event counted =
      count_digits(chain, scratch, input, n, spec, digits.size(), fill_counters, EventFor::host);
  // The device runs a guess at the first pass while the host reads the digit counts, which it
  // would otherwise wait for idle. The pass writes only scratch: a wrong guess is dropped.
  const std::optional<std::size_t> guessed = guess_first_pass(digits, n);
  if (guessed)
    enqueue_pass(chain, scratch, input, scratch.data, n, spec, *guessed, 0, digits[*guessed]);
  const std::vector<cl_uint> digits_counted =
      read_counts(chain.queue(), scratch, digits.size(), counted);
  const std::vector<std::size_t> varying = varying_passes(digits_counted, n, 0, digits.size());
  const std::vector<std::vector<std::uint64_t>> counts = digit_counts(digits_counted, varying);
  std::size_t top = bucket_passes(counts, n, bucket_target(rank_shape_.bucket_limit));
  if (!varying.empty()) remember_bucket_check(n, spec, digits.size(), top > 0);
  const double crowding = digit_crowding(counts, top, n);
  skipped_buckets_ = top > 0 && skip_buckets_after_fallback(n, crowding);
  if (skipped_buckets_) top = depth_after_overflow(top, varying.size());
  const std::vector<std::size_t> first_passes =
      top > 0 ? std::vector<std::size_t>(varying.end() - top, varying.end()) : varying;
  OnesweepPlan* wide = top == 0 && !varying.empty() ? wide_passes() : nullptr;
  last_choice_ = {floor_log2(n), first_passes.empty() || wide
                                     ? std::nullopt
                                     : std::optional(digits[first_passes.front()].shift)};
  guess_held_ = guessed && !first_passes.empty() && !wide && *guessed == first_passes.front();
  const Passes passes{digits, counted, guessed && !guess_held_ ? 1u : 0u};
  if (wide)
    run_wide_passes(chain, *wide, input, data, n, spec);
  else if (top == 0)
    enqueue_usual_passes(chain, scratch, input, data, n, spec, passes, varying);
  else {
    enqueue_bucket_sort(chain, scratch, input, data, n, spec, passes, varying, first_passes);
    remember_bucket_sort(n, crowding);
  }
  end_sort();
}

void HybridPlan::run_without_bucket_check(CommandChain& chain, const PassData& input,
                                          const PassData& output, std::uint64_t n,
                                          const SortSpec& spec) {
  skipped_bucket_check_ = true;
  OnesweepPlan* wide = wide_passes();
  if (wide)
    run_wide_passes(chain, *wide, input, output, n, spec);
  else
    OnesweepPlan::run(chain, input, output, n, spec);
  const OnesweepPlan& ran = wide ? *wide : *this;
  const auto counts = ran.last_varying_counts(n);
  if (counts && bucket_passes(*counts, n, bucket_target(rank_shape_.bucket_limit)) > 0) {
    unbucketed_.sorts_left = 0;
    last_choice_ = {};  // the next sort guesses as after a sort of another size
  }
}

void HybridPlan::remember_bucket_check(std::uint64_t n, const SortSpec& spec, std::size_t passes,
                                       bool bucketed) {
  const unsigned n_log2 = floor_log2(n);
  if (bucketed) {
    if (unbucketed_.n_log2 == n_log2) unbucketed_.in_a_row = 0;
    return;
  }
  if (!reads_counts(spec, n, passes)) return;  // the skipping sorts could not see the keys change
  unbucketed_.after_miss(n_log2, unbucketed_.n_log2 == n_log2);
}

void HybridPlan::SkipRun::after_miss(unsigned log2, bool continues) {
  in_a_row = continues ? in_a_row + 1 : 1;
  n_log2 = log2;
  sorts_left = sorts_skipping_buckets(in_a_row);
}

bool HybridPlan::SkipRun::take(unsigned log2) {
  if (sorts_left == 0 || log2 != n_log2) return false;
  --sorts_left;
  return true;
}

bool HybridPlan::alike_last_fallback(std::uint64_t n, double crowding) const {
  return fallback_.skips.n_log2 == floor_log2(n) && crowding >= fallback_.crowding / 2;
}

void HybridPlan::remember_bucket_sort(std::uint64_t n, double crowding) {
  if (skipped_buckets_) {  // bucketed by the extra digits at once
    if (fell_back_) fallback_.extra_digits = 0;
    return;
  }
  const bool alike = alike_last_fallback(n, crowding);
  if (!overflowed_) {
    if (alike) fallback_.skips.in_a_row = 0;
    return;
  }
  fallback_.skips.after_miss(floor_log2(n), alike);
  fallback_.crowding = crowding;
  fallback_.extra_digits = went_deeper_ && !fell_back_ ? extra_bucket_digits : 0;
}

double HybridPlan::digit_crowding(const std::vector<std::vector<std::uint64_t>>& counts_of_varying,
                                  std::size_t top, std::uint64_t n) {
  std::uint64_t most = 0;
  for (std::size_t d = counts_of_varying.size() - std::min(top, counts_of_varying.size());
       d < counts_of_varying.size(); ++d)
    for (std::uint64_t count : counts_of_varying[d]) most = std::max(most, count);
  return n > 0 ? static_cast<double>(most) / static_cast<double>(n) : 0;
}

std::size_t HybridPlan::depth_after_overflow(std::size_t top, std::size_t varying) {
  const std::size_t deeper = top + fallback_.extra_digits;
  went_deeper_ = fallback_.extra_digits > 0 && deeper < varying;
  return went_deeper_ ? deeper : 0;
}

bool HybridPlan::skip_buckets_after_fallback(std::uint64_t n, double crowding) {
  return alike_last_fallback(n, crowding) && fallback_.skips.take(floor_log2(n));
}

void HybridPlan::enqueue_usual_passes(CommandChain& chain, const Scratch& scratch,
                                      const PassData& input, const PassData& data, std::uint64_t n,
                                      const SortSpec& spec, const Passes& passes,
                                      const std::vector<std::size_t>& varying) {
  if (guess_held_)
    enqueue_passes(chain, scratch, scratch.data, data, n, spec, passes.digits,
                   {varying.begin() + 1, varying.end()}, passes.counted, false, 1);
  else if (!varying.empty())
    enqueue_passes(chain, scratch, input, data, n, spec, passes.digits, varying, passes.counted,
                   false, passes.first_run);
  else if (!same_buffers(input, data))
    copy_pass_data(chain, input, data, n, key_size(config_.key_type), config_.value_bytes);
}

void HybridPlan::enqueue_bucket_sort(CommandChain& chain, const Scratch& scratch,
                                     const PassData& input, const PassData& data, std::uint64_t n,
                                     const SortSpec& spec, const Passes& passes,
                                     const std::vector<std::size_t>& varying,
                                     const std::vector<std::size_t>& bucket_digits) {
  // After the first pass (from the input, or the guess's in scratch) the keys move between data
  // and scratch.
  const PassData* from = guess_held_ ? &scratch.data : &input;
  const PassData* to = guess_held_ ? &data : &scratch.data;
  std::size_t run = passes.first_run + (guess_held_ ? 1 : 0);
  const std::size_t deeper = bucket_digits.size() + extra_bucket_digits;
  const bool may_go_deeper = !went_deeper_ && deeper < varying.size();
  // Passes over `digits` from `first` on, then the segment step; whether the keys need more.
  const auto bucket_by = [&](const std::vector<std::size_t>& digits, std::size_t first) {
    for (std::size_t d = first; d < digits.size(); ++d) {
      enqueue_pass(chain, scratch, *from, *to, n, spec, digits[d], run++, passes.digits[digits[d]]);
      from = to;
      to = to == &data ? &scratch.data : &data;
    }
    bucket_passes_run_ = digits.size();
    return sort_segments(chain, *from, data, n, spec, passes.digits[digits.front()].shift,
                         may_go_deeper && digits.size() < deeper);
  };
  // A segment step that overflows (or lists too many ranges) leaves `from` holding every key in
  // bucket order, each equal key still after those before it in the input: passes over any
  // digits from there sort stably.
  fell_back_ = overflowed_ = bucket_by(bucket_digits, guess_held_ ? 1 : 0);
  if (overflowed_ && may_go_deeper) {
    went_deeper_ = true;
    fell_back_ = bucket_by({varying.end() - static_cast<std::ptrdiff_t>(deeper), varying.end()}, 0);
  }
  if (!fell_back_) return;
  if (OnesweepPlan* wide = wide_passes())
    run_wide_passes(chain, *wide, *from, data, n, spec);
  else
    enqueue_passes(chain, scratch, *from, data, n, spec, passes.digits, varying, passes.counted,
                   false, run);
}

bool HybridPlan::sort_segments(CommandChain& chain, const PassData& from, const PassData& data,
                               std::uint64_t n, const SortSpec& spec, unsigned bucket_shift,
                               bool may_go_deeper) {
  const std::uint64_t groups = rank_groups(n);
  const SegmentBuffers segments = segment_buffers(n);
  const cl::Buffer& counts = segments.counts;  // C++17 lambdas cannot capture a structured binding
  const cl::Buffer& ranges = segments.ranges;
  chain.add([&](const std::vector<cl::Event>* waits, cl::Event* event) {
    check(chain.queue().enqueueFillBuffer(counts, cl_uint{0}, 0, 8, waits, event), "enqueue fill",
          "segment counts");
  });
  KernelArgs rank(rank_kernel_, false);
  rank.buffer(from.keys).buffer(data.keys);
  if (config_.value_bytes > 0) rank.buffer(from.values).buffer(data.values);
  rank.u32(static_cast<std::uint32_t>(n))
      .u32(spec.begin_bit)
      .u32(spec.end_bit)
      .u32(spec.descending)
      .u32(bucket_shift)
      .buffer(counts)
      .buffer(ranges);
  const auto wg = static_cast<std::uint64_t>(config_.params.work_group_size);
  const cl::Event ranked = chain.launch(rank_kernel_, groups * wg, wg, EventFor::host);
  const std::vector<cl_uint> listed_and_overflowed =
      read_back(chain.queue(), counts, 2, ranked, "segment counts");
  if (listed_and_overflowed[1] != 0) return true;
  const std::uint64_t listed = listed_and_overflowed[0];
  if (listed == 0) return false;
  if (may_go_deeper && listed >= listed_ranges_per_unit * compute_units_ &&
      listed * rank_shape_.stride >= n / 8)
    return true;
  KernelArgs sort(segment_kernel_, false);
  sort.buffer(from.keys).buffer(data.keys);
  if (config_.value_bytes > 0) sort.buffer(from.values).buffer(data.values);
  sort.u32(spec.begin_bit).u32(spec.end_bit).u32(spec.descending).buffer(ranges);
  chain.launch(segment_kernel_, listed_and_overflowed[0] * wg, wg);
  return false;
}

}  // namespace clsort::detail
