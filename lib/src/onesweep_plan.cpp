// Onesweep: histogram all passes, skip constant-digit passes, then one ticketed pass per digit.
#include "onesweep_plan.hpp"

#include <algorithm>

#include "device_info.hpp"
#include "kernel_args.hpp"
#include "kernel_build.hpp"

namespace clsort::detail {

OnesweepPlan::OnesweepPlan(const cl::Context& context, const cl::Device& device,
                           const KernelConfig& config, std::uint64_t portion_keys)
    : OnesweepPlan(context, device, config, "onesweep.cl", portion_keys) {
  pass_kernel_ =
      make_kernel(program_, device, "onesweep_pass",
                  static_cast<std::size_t>(config.params.work_group_size), "work_group_size");
}

OnesweepPlan::OnesweepPlan(const cl::Context& context, const cl::Device& device,
                           const KernelConfig& config, const std::string& template_name,
                           std::uint64_t portion_keys)
    : context_(context),
      device_(device),
      config_(config),
      template_name_(template_name),
      radix_(std::size_t{1} << config.params.radix_bits),
      max_passes_((key_size(config.key_type) * 8 + config.params.radix_bits - 1) /
                  static_cast<std::size_t>(config.params.radix_bits)),
      compute_units_(query_limits(device).compute_units),
      sub_buffer_alignment_(device.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>() / 8) {
  cl_int status = CL_SUCCESS;
  readback_queue_ = cl::CommandQueue(context, device, 0, &status);
  check(status, "create command queue", "histogram read-back");
  validate_for_device(config.params, device, key_size(config.key_type), config.value_bytes);
  TemplateContext variables = kernel_template_variables(config);
  const std::size_t key_bytes = key_size(config.key_type);
  const DeviceLimits limits = query_limits(device);
  const OnesweepLayout layout =
      onesweep_layout(config.params, key_bytes, config.value_bytes, limits.local_memory_bytes);
  variables["scatter_while_ranking"] = layout.scatter_while_ranking;
  variables["compact_digit_tables"] = layout.compact_digit_tables;
  const bool fused = config.params.algorithm == Algorithm::fused_onesweep;
  variables["fused"] = fused;
  // fused_onesweep's work-groups must all reach the end of the kernel, past the copy's return.
  variables["copy_constant_passes"] =
      !fused && (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) != 0;
  // The devices that have warp_match ranking take PTX of compute capability 7.0.
  variables["nvidia_ptx"] = limits.has_warp_match;
  // Its widest element, at least a word, so that the buffer is aligned for all it holds.
  const std::size_t tile_element = std::max({key_bytes, config.value_bytes, std::size_t{4}});
  variables["tile_storage"] = std::string(storage_type(tile_element));
  variables["tile_buffer_elements"] =
      static_cast<std::int64_t>((layout.tile_buffer_bytes + tile_element - 1) / tile_element);
  variables["scratch_words"] = static_cast<std::int64_t>(layout.scratch_bytes / 4);
  variables["prefetch_tiles"] = static_cast<std::int64_t>(config.params.prefetch_ahead) *
                                static_cast<std::int64_t>(compute_units_);
  // The values' L2 prefetch ahead of the look-back where the parameters ask for it, with
  // integer keys only (see Params::prefetch_values).
  variables["prefetch_values"] = config.params.prefetch_values > 0 && config.value_bytes > 0 &&
                                 key_kind(config.key_type) != KeyKind::floating_point;
  variables["resident_groups"] = config.params.resident_groups > 0;
  // Values staged in rounds: the tile's slots each round holds.
  const std::uint64_t rounds = config.params.value_rounds;
  variables["value_rounds"] = static_cast<std::int64_t>(config.value_bytes > 0 ? rounds : 1);
  variables["round_slots"] = static_cast<std::int64_t>((tile_keys() + rounds - 1) / rounds);
  variables["portions"] = false;
  variables["stages_values"] = false;
  template_variables_ = variables;
  program_ =
      build_template(context, device, template_name, variables, config.params.occupancy_groups);
  histogram_kernel_ =
      make_kernel(program_, device, "histogram_all_passes",
                  static_cast<std::size_t>(config.params.work_group_size), "work_group_size");
  const std::uint64_t tile = tile_keys();
  portion_limit_ =
      std::max<std::uint64_t>(std::min(portion_keys, max_portion_keys) / tile, 1) * tile;
}

void OnesweepPlan::build_portion_kernels() {
  if (portion_pass_kernel_()) return;
  const cl::Program program = build_variant("portions");
  const auto wg = static_cast<std::size_t>(config_.params.work_group_size);
  portion_histogram_kernel_ =
      make_kernel(program, device_, "histogram_all_passes", wg, "work_group_size");
  portion_pass_kernel_ = make_kernel(program, device_, "onesweep_pass", wg, "work_group_size");
}

cl::Program OnesweepPlan::build_variant(const char* flag) const {
  TemplateContext variables = template_variables_;
  variables[flag] = true;
  return build_template(context_, device_, template_name_, variables,
                        config_.params.occupancy_groups);
}

std::uint64_t OnesweepPlan::tile_keys() const {
  return static_cast<std::uint64_t>(config_.params.work_group_size) *
         static_cast<std::uint64_t>(config_.params.elements_per_thread);
}

std::uint64_t OnesweepPlan::tile_count(std::uint64_t n) const {
  return (n + tile_keys() - 1) / tile_keys();
}

std::uint64_t OnesweepPlan::pass_groups(std::uint64_t tiles) const {
  const auto resident = static_cast<std::uint64_t>(config_.params.resident_groups);
  return resident > 0 ? std::min(tiles, resident * compute_units_) : tiles;
}

std::uint64_t OnesweepPlan::portion_count(std::uint64_t n) const {
  return std::max<std::uint64_t>((n + portion_limit_ - 1) / portion_limit_, 1);
}

std::uint64_t OnesweepPlan::portion_keys(std::uint64_t n) const {
  // Portions of about equal size: a last portion of a few tiles would clear the status rows of
  // the largest by those few work-groups alone (H100, 2^30 u32 keys in a portion of 2^30 - 7,680
  // keys and one of a tile: 54 ms, against 20 in two equal portions).
  const std::uint64_t portions = portion_count(n);
  const std::uint64_t even = (n + portions - 1) / portions;
  return std::max<std::uint64_t>(tile_count(even), 1) * tile_keys();
}

OnesweepPlan::PortionRange OnesweepPlan::portion_range(std::uint64_t n,
                                                       std::uint64_t portion) const {
  const std::uint64_t first = portion * portion_keys(n);
  return {first, std::min(portion_keys(n), n - first)};
}

namespace {

// A copy of the handle: createSubBuffer is not const in CLHPP.
cl::Buffer sub_buffer(cl::Buffer whole, std::uint64_t offset, std::uint64_t bytes,
                      const char* purpose) {
  const cl_buffer_region region{offset, bytes};
  cl_int status = CL_SUCCESS;
  cl::Buffer part =
      whole.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
  check(status, "create sub-buffer", purpose);
  return part;
}

}  // namespace

const OnesweepPlan::Counters& OnesweepPlan::counters_for(std::uint64_t launch) {
  const auto aligned = [&](std::uint64_t bytes) {
    return (bytes + sub_buffer_alignment_ - 1) / sub_buffer_alignment_ * sub_buffer_alignment_;
  };
  const std::uint64_t histogram_bytes = max_passes_ * radix_ * 4;
  const std::uint64_t second_histogram_offset = aligned(histogram_bytes);
  const std::uint64_t ticket_offset = aligned(second_histogram_offset + histogram_bytes);
  const std::uint64_t finished_offset = aligned(ticket_offset + 4);
  const std::uint64_t finished_bytes = (max_passes_ + 1) * 4;  // and fused_onesweep's `counted`
  const std::uint64_t carried_offset = aligned(finished_offset + finished_bytes);
  const std::uint64_t carried_bytes = 2 * radix_ * 4;
  const std::uint64_t status_offset = aligned(carried_offset + carried_bytes);
  const std::uint64_t bytes = status_offset + 2 * tile_count(launch) * radix_ * 4;
  // Drop the old sub-buffers before the buffer grows, so that its memory is freed first.
  if (counters_.whole() && bytes > counters_.whole.getInfo<CL_MEM_SIZE>()) counters_ = Counters{};
  const cl::Buffer& whole =
      counters_buffer_.at_least(context_, bytes, "histograms, tickets and look-back status");
  if (whole() != counters_.whole()) {
    const auto size = whole.getInfo<CL_MEM_SIZE>();
    counters_.whole = whole;
    counters_.histograms[0] = sub_buffer(whole, 0, histogram_bytes, "histograms");
    counters_.histograms[1] =
        sub_buffer(whole, second_histogram_offset, histogram_bytes, "histograms");
    counters_.ticket = sub_buffer(whole, ticket_offset, 4, "tile ticket");
    counters_.finished = sub_buffer(whole, finished_offset, finished_bytes, "passes finished");
    counters_.carried = sub_buffer(whole, carried_offset, carried_bytes, "portions' counts");
    counters_.status = sub_buffer(whole, status_offset, size - status_offset, "look-back status");
    counters_.self_cleaning_bytes = status_offset;
    counters_.clean = false;
  }
  return counters_;
}

OnesweepPlan::Scratch OnesweepPlan::scratch_for(std::uint64_t n) {
  Scratch s;
  s.data.keys = scratch_keys_.at_least(context_, n * key_size(config_.key_type), "scratch keys");
  if (config_.value_bytes > 0)
    s.data.values = scratch_values_.at_least(context_, n * config_.value_bytes, "scratch values");
  s.counters = counters_for(portion_keys(n));
  return s;
}

std::vector<cl::Buffer> OnesweepPlan::reserve(std::uint64_t n) {
  const Scratch scratch = scratch_for(n);
  if (portion_count(n) > 1) build_portion_kernels();
  std::vector<cl::Buffer> held{scratch.data.keys, scratch.counters.whole};
  if (config_.value_bytes > 0) held.push_back(scratch.data.values);
  return held;
}

void OnesweepPlan::fill_dirty_counters(CommandChain& chain, const Scratch& scratch) {
  chain.add([&](const std::vector<cl::Event>* waits, cl::Event* event) {
    check(chain.queue().enqueueFillBuffer(scratch.counters.whole, cl_uint{0}, 0,
                                          scratch.counters.self_cleaning_bytes, waits, event),
          "enqueue fill", "histograms and tickets");
  });
}

cl::Event OnesweepPlan::count_digits(CommandChain& chain, const Scratch& scratch,
                                     const PassData& data, std::uint64_t n, const SortSpec& spec,
                                     std::size_t passes, bool fill_counters, EventFor use,
                                     const PassData* copy_into) {
  if (fill_counters) fill_dirty_counters(chain, scratch);
  // Enough work-groups to fill the device, each striding over many keys so that few flush
  // their local counts into the global atomics. H200, u32 at 2^28: 52.0 Gkeys/s with up to 16
  // work-groups per compute unit, 51.7 with 4, 50.8 with 2. Small sorts still spread over up
  // to one work-group per compute unit, down to one batch of keys a work-item: a single
  // work-group counting every key would run alone before the first pass can start.
  // A sort in portions counts each portion by a launch of its own, so that no index passes
  // 32 bits.
  const std::uint64_t portions = portion_count(n);
  if (portions > 1) build_portion_kernels();
  cl::Kernel& kernel = portions > 1 ? portion_histogram_kernel_ : histogram_kernel_;
  const auto wg = static_cast<std::uint64_t>(config_.params.work_group_size);
  const PassData& copy_target = copy_into ? *copy_into : scratch.data;  // unused without a copy
  cl::Event counted;
  for (std::uint64_t portion = 0; portion < portions; ++portion) {
    const PortionRange range = portion_range(n, portion);
    const auto groups_of = [&](std::uint64_t keys_per_item) {
      return (range.count + wg * keys_per_item - 1) / (wg * keys_per_item);
    };
    constexpr std::uint64_t batch = 8;  // HISTOGRAM_BATCH in onesweep_common.cl
    const std::uint64_t groups = std::clamp<std::uint64_t>(
        std::max(groups_of(64), std::min(groups_of(batch), compute_units_)), 1,
        compute_units_ * 16);
    KernelArgs args(kernel, false);
    args.buffer(data.keys)
        .offset(range.count)
        .u32(spec.begin_bit)
        .u32(spec.end_bit)
        .u32(static_cast<std::uint32_t>(passes))
        .u32(spec.descending)
        .buffer(scratch.counters.histogram())
        .buffer(scratch.counters.next_histogram())
        .buffer(scratch.counters.status)
        .offset(tile_count(portion_keys(n)) * radix_)
        .u32(copy_into != nullptr)
        .buffer(copy_target.keys);
    if (config_.value_bytes > 0) args.buffer(data.values).buffer(copy_target.values);
    if (portions > 1) args.offset(range.first);
    counted =
        chain.launch(kernel, groups * wg, wg, portion + 1 == portions ? use : EventFor::nothing);
  }
  return counted;
}

std::vector<cl_uint> OnesweepPlan::read_back(const cl::CommandQueue& queue,
                                             const cl::Buffer& buffer, std::size_t words,
                                             const cl::Event& after, const char* what) {
  check(queue.flush(), "flush");  // the read waits for `after`, which must be submitted
  std::vector<cl_uint> result(words);
  const std::vector<cl::Event> waits{after};
  check(readback_queue_.enqueueReadBuffer(buffer, CL_TRUE, 0, words * 4, result.data(), &waits),
        "read buffer", what);
  return result;
}

std::vector<cl_uint> OnesweepPlan::read_counts(const cl::CommandQueue& queue,
                                               const Scratch& scratch, std::size_t passes,
                                               const cl::Event& counted) {
  last_counts_ =
      read_back(queue, scratch.counters.histogram(), passes * radix_, counted, "digit counts");
  return last_counts_;
}

std::optional<std::vector<std::vector<std::uint64_t>>> OnesweepPlan::last_varying_counts(
    std::uint64_t n) const {
  if (last_counts_.empty()) return std::nullopt;
  return digit_counts(last_counts_,
                      varying_passes(last_counts_, n, 0, last_counts_.size() / radix_));
}

std::vector<std::uint64_t> OnesweepPlan::digit_counts(const std::vector<cl_uint>& counts,
                                                      std::size_t pass) const {
  const auto row = counts.begin() + static_cast<std::ptrdiff_t>(pass * radix_);
  return std::vector<std::uint64_t>(row, row + static_cast<std::ptrdiff_t>(radix_));
}

std::vector<std::vector<std::uint64_t>> OnesweepPlan::digit_counts(
    const std::vector<cl_uint>& counts, const std::vector<std::size_t>& passes) const {
  std::vector<std::vector<std::uint64_t>> rows;
  for (std::size_t pass : passes) rows.push_back(digit_counts(counts, pass));
  return rows;
}

std::vector<std::size_t> OnesweepPlan::varying_passes(const std::vector<cl_uint>& counts,
                                                      std::uint64_t n, std::size_t first,
                                                      std::size_t passes) const {
  // A pass whose digit is the same for every key would only copy.
  std::vector<std::size_t> varying;
  for (std::size_t p = first; p < passes; ++p) {
    const std::vector<std::uint64_t> row = digit_counts(counts, p);
    if (std::find(row.begin(), row.end(), n) == row.end()) varying.push_back(p);
  }
  return varying;
}

bool OnesweepPlan::begin_sort() {
  last_counts_.clear();
  const bool fill_counters = !counters_.clean;
  counters_.clean = false;
  return fill_counters;
}

void OnesweepPlan::end_sort() {
  counters_.clean = true;
  counters_.current = 1 - counters_.current;
}

void OnesweepPlan::enqueue_pass(CommandChain& chain, const Scratch& scratch, const PassData& from,
                                const PassData& to, std::uint64_t n, const SortSpec& spec,
                                std::size_t pass, std::size_t run, const PassDigit& digit) {
  const std::uint64_t portions = portion_count(n);
  cl::Kernel& kernel = portions > 1 ? portion_pass_kernel_ : pass_kernel_;
  const auto wg = static_cast<std::uint64_t>(config_.params.work_group_size);
  for (std::uint64_t portion = 0; portion < portions; ++portion) {
    const auto [first, count] = portion_range(n, portion);
    const std::uint64_t tiles = tile_count(count);
    // Launches alternate between the two status regions, each clearing the other's rows.
    const std::uint64_t launch = run * portions + portion;
    KernelArgs args(kernel, false);
    args.buffer(from.keys).buffer(to.keys);
    if (config_.value_bytes > 0) args.buffer(from.values).buffer(to.values);
    args.offset(count)
        .u32(digit.shift)
        .u32(digit.mask)
        .u32(spec.descending)
        .u32(static_cast<std::uint32_t>(pass))
        .u32(static_cast<std::uint32_t>(launch))
        .u32(static_cast<std::uint32_t>(tiles))
        .buffer(scratch.counters.histogram())
        .buffer(scratch.counters.status)
        .buffer(scratch.counters.ticket);
    if (portions > 1)
      args.offset(n)
          .offset(first)
          .u32(static_cast<std::uint32_t>(portion))
          .u32(static_cast<std::uint32_t>(tile_count(portion_keys(n))))
          .buffer(scratch.counters.carried);
    chain.launch(kernel, pass_groups(tiles) * wg, wg);
  }
}

bool OnesweepPlan::reads_counts(const SortSpec& spec, std::uint64_t n, std::size_t passes) {
  return spec.constant_pass_check == ConstantPassCheck::before_first_pass ||
         (spec.constant_pass_check == ConstantPassCheck::after_first_pass &&
          n >= min_keys_to_read_counts && passes > 1);
}

void OnesweepPlan::run(CommandChain& chain, const PassData& input, const PassData& output,
                       std::uint64_t n, const SortSpec& spec) {
  if (n > max_keys)
    throw Error("sort", "onesweep handles at most " + std::to_string(max_keys) + " keys");
  const std::vector<PassDigit> digits =
      pass_digits(spec.begin_bit, spec.end_bit, config_.params.radix_bits);
  const Scratch scratch = scratch_for(n);
  const bool fill_counters = begin_sort();
  const bool reads = reads_counts(spec, n, digits.size());
  // In place, where the passes to run are known before the histogram (none dropped after it),
  // an odd number of them starts from the histogram's copy of the keys in scratch and ends in
  // place. Out of place, the first pass reads the input.
  const bool passes_known =
      spec.constant_pass_check == ConstantPassCheck::never ||
      (spec.constant_pass_check == ConstantPassCheck::after_first_pass && !reads);
  const bool start_in_scratch =
      same_buffers(input, output) && passes_known && digits.size() % 2 == 1;
  const cl::Event counted = count_digits(chain, scratch, input, n, spec, digits.size(),
                                         fill_counters, reads ? EventFor::host : EventFor::nothing,
                                         start_in_scratch ? &scratch.data : nullptr);

  std::vector<std::size_t> passes;
  if (spec.constant_pass_check == ConstantPassCheck::before_first_pass)
    passes = varying_passes(read_counts(chain.queue(), scratch, digits.size(), counted), n, 0,
                            digits.size());
  else
    for (std::size_t p = 0; p < digits.size(); ++p) passes.push_back(p);
  const bool read_after_first_pass =
      reads && spec.constant_pass_check == ConstantPassCheck::after_first_pass;
  if (!passes.empty())
    enqueue_passes(chain, scratch, start_in_scratch ? scratch.data : input, output, n, spec, digits,
                   std::move(passes), counted, read_after_first_pass);
  else if (!same_buffers(input, output))
    copy_pass_data(chain, input, output, n, key_size(config_.key_type), config_.value_bytes);
  end_sort();
}

void OnesweepPlan::enqueue_passes(CommandChain& chain, const Scratch& scratch,
                                  const PassData& source, const PassData& output, std::uint64_t n,
                                  const SortSpec& spec, const std::vector<PassDigit>& digits,
                                  std::vector<std::size_t> passes, const cl::Event& counted,
                                  bool read_after_first_pass, std::size_t first_run) {
  // Passes alternate between output and scratch, the first writing to whichever of the two the
  // source is not, and from elsewhere to where the listed passes end in output.
  const PassData* from = &source;
  const PassData* to = same_buffers(source, output)         ? &scratch.data
                       : same_buffers(source, scratch.data) ? &output
                       : passes.size() % 2 == 1             ? &output
                                                            : &scratch.data;
  for (std::size_t run = 0; run < passes.size(); ++run) {
    const std::size_t pass = passes[run];
    const bool list_final = run > 0 || !read_after_first_pass;
    enqueue_pass(chain, scratch, *from, *to, n, spec, pass, first_run + run, digits[pass]);
    from = to;
    to = to == &output ? &scratch.data : &output;
    // The counts are read while the first pass runs; the passes after it that they show to be
    // constant are dropped.
    if (!list_final) {
      const std::vector<std::size_t> later = varying_passes(
          read_counts(chain.queue(), scratch, digits.size(), counted), n, pass + 1, digits.size());
      passes.resize(1);
      passes.insert(passes.end(), later.begin(), later.end());
    }
  }
  if (from != &output)
    copy_pass_data(chain, *from, output, n, key_size(config_.key_type), config_.value_bytes);
}

}  // namespace clsort::detail
