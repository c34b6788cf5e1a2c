// The onesweep plan: one histogram read for all passes, then one look-back kernel per pass.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "device_buffer.hpp"
#include "sort_plan.hpp"
#include "template_engine.hpp"

namespace clsort::detail {

class OnesweepPlan : public SortPlan {
 public:
  /// Most keys one launch of the pass kernel sorts: look-back counts are 30 bits wide. Larger
  /// sorts run each pass as one launch per portion of at most this many keys.
  static constexpr std::uint64_t max_portion_keys = (std::uint64_t{1} << 30) - 1;
  /// Largest n the plan sorts: offsets and digit counts are 32 bits wide.
  static constexpr std::uint64_t max_keys = (std::uint64_t{1} << 32) - 1;

  /// `portion_keys` (at most max_portion_keys, rounded down to whole tiles) bounds the keys of
  /// one launch; tests make it small to cover sorts in several portions.
  OnesweepPlan(const cl::Context& context, const cl::Device& device, const KernelConfig& config,
               std::uint64_t portion_keys = max_portion_keys);

  /// Sorts of fewer keys never read their digit counts back: a pass there takes less time than
  /// the read's round trip (NVIDIA: tens of microseconds), so a constant pass costs less run on
  /// the device, where on a GPU the pass kernel finds it constant and only copies.
  /// (H200, u32 keys, with the read against without: keys varying in their low 16 bits 10%
  /// faster at 2^21 and 14% at 2^22; uniform keys 2-10% slower from 2^21 to 2^23.)
  static constexpr std::uint64_t min_keys_to_read_counts = std::uint64_t{1} << 21;

  /// Enqueues the histograms of every digit, then the passes; those whose digit is the same for
  /// every key are dropped as spec.constant_pass_check says (and copy on the device where not
  /// dropped). Returns only once the counts are read back, if they are.
  void run(CommandChain& chain, const PassData& input, const PassData& output, std::uint64_t n,
           const SortSpec& spec) override;
  std::vector<cl::Buffer> reserve(std::uint64_t n) override;

  /// Whether run() reads the digit counts of n keys sorted in `passes` passes back (see
  /// min_keys_to_read_counts; after the first pass only where there are later passes to drop).
  static bool reads_counts(const SortSpec& spec, std::uint64_t n, std::size_t passes);
  /// The digit counts of each varying pass (least significant first) of the last sort, of n
  /// keys, where it read them back; none where it did not.
  std::optional<std::vector<std::vector<std::uint64_t>>> last_varying_counts(std::uint64_t n) const;

 protected:
  /// Builds the kernel template `template_name` for the configuration into program_, and its
  /// histogram_all_passes kernel.
  OnesweepPlan(const cl::Context& context, const cl::Device& device, const KernelConfig& config,
               const std::string& template_name, std::uint64_t portion_keys);

  /// Two histograms (sorts alternate between them: each sort's histogram kernel zeroes the
  /// other one for the next), the tile ticket and two regions of look-back status (runs of the
  /// pass kernel alternate between them): aligned sub-buffers of `whole`. The kernels return
  /// the ticket to zero as they finish and clear each run's status before it (a fill cost a
  /// small sort several microseconds, and at 2^28 u32 keys it wrote 180 MB of status), so only a
  /// new buffer, or one that a sort which failed half-way left, has its first
  /// `self_cleaning_bytes` filled.
  /// fused_onesweep also counts the tiles done of each pass in `finished`, and in the word after
  /// them the tiles that have counted their digits (`counted`), which its last work-group
  /// returns to zero.
  /// `carried` holds two rows of RADIX counts that portions of a pass pass on to the next.
  struct Counters {
    cl::Buffer whole, histograms[2], ticket, finished, carried, status;
    std::uint64_t self_cleaning_bytes = 0;
    bool clean = false;
    std::size_t current = 0;  // the histogram this sort counts into
    const cl::Buffer& histogram() const { return histograms[current]; }
    const cl::Buffer& next_histogram() const { return histograms[1 - current]; }
  };
  struct Scratch {
    PassData data;
    Counters counters;
  };
  /// The scratch buffers for n keys.
  Scratch scratch_for(std::uint64_t n);
  std::uint64_t tile_keys() const;
  std::uint64_t tile_count(std::uint64_t n) const;
  /// Work-groups of a pass over `tiles` tiles: one a tile, or at most resident_groups per
  /// compute unit, each taking tiles until none is left.
  std::uint64_t pass_groups(std::uint64_t tiles) const;
  /// Launches per pass (and of the histogram kernel) for n keys: 1 up to portion_limit_.
  std::uint64_t portion_count(std::uint64_t n) const;
  /// The keys of each portion of a sort of n keys (the last may hold fewer): whole tiles, at
  /// most portion_limit_; for a sort in one launch, n rounded up to whole tiles.
  std::uint64_t portion_keys(std::uint64_t n) const;
  /// Keys [first, first + count) of portion `portion` of a sort of n keys.
  struct PortionRange {
    std::uint64_t first, count;
  };
  PortionRange portion_range(std::uint64_t n, std::uint64_t portion) const;
  /// The counters for launches of up to `launch` keys: made again only when their buffer grows.
  const Counters& counters_for(std::uint64_t launch);
  /// Enqueues a fill of the counters' first `self_cleaning_bytes` (for a new buffer, or one a
  /// sort that failed half-way left).
  void fill_dirty_counters(CommandChain& chain, const Scratch& scratch);
  /// Enqueues the histogram kernel (after a fill of the counters if `fill_counters`), which
  /// counts every pass's digits of data's keys, zeroes the next sort's histogram and clears the
  /// first run's look-back status, and where `copy_into` is not null also copies data's keys and
  /// values there; returns its event where `use` asks for one.
  cl::Event count_digits(CommandChain& chain, const Scratch& scratch, const PassData& data,
                         std::uint64_t n, const SortSpec& spec, std::size_t passes,
                         bool fill_counters, EventFor use, const PassData* copy_into = nullptr);
  /// Reads `words` words of `buffer` once `after` completes, through the plan's own queue so
  /// that the read does not wait for what `queue` runs after it.
  std::vector<cl_uint> read_back(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                                 std::size_t words, const cl::Event& after, const char* what);
  /// The digit counts of `passes` passes, read back once `counted` completes.
  std::vector<cl_uint> read_counts(const cl::CommandQueue& queue, const Scratch& scratch,
                                   std::size_t passes, const cl::Event& counted);
  /// Keys of each digit of `pass`, from the counts read back.
  std::vector<std::uint64_t> digit_counts(const std::vector<cl_uint>& counts,
                                          std::size_t pass) const;
  /// digit_counts of each of `passes`.
  std::vector<std::vector<std::uint64_t>> digit_counts(
      const std::vector<cl_uint>& counts, const std::vector<std::size_t>& passes) const;
  /// The passes in [first, passes) whose digit varies among n keys, from the counts read back.
  std::vector<std::size_t> varying_passes(const std::vector<cl_uint>& counts, std::uint64_t n,
                                          std::size_t first, std::size_t passes) const;
  /// Marks a sort begun: its counters count as dirty until end_sort. Returns whether they must
  /// be filled first (a new buffer, or one a sort that failed half-way left).
  bool begin_sort();
  /// Marks every command of a sort enqueued: the counters are clean, the next sort counts into
  /// the other histogram.
  void end_sort();
  /// Enqueues `passes` as runs first_run, first_run + 1, ... from `source` (output, scratch or
  /// the input of a sort out of place) into `output`, then a copy there if they end in scratch.
  /// If `read_after_first_pass`, the counts are read once `counted` (the histogram's event)
  /// completes, while the first pass runs, and the later passes they show constant are dropped.
  void enqueue_passes(CommandChain& chain, const Scratch& scratch, const PassData& source,
                      const PassData& output, std::uint64_t n, const SortSpec& spec,
                      const std::vector<PassDigit>& digits, std::vector<std::size_t> passes,
                      const cl::Event& counted, bool read_after_first_pass,
                      std::size_t first_run = 0);
  /// Enqueues pass `pass` (digit `digit`) as the sort's run `run` (0 for the first pass not
  /// skipped) from `from` to `to`, one launch per portion.
  void enqueue_pass(CommandChain& chain, const Scratch& scratch, const PassData& from,
                    const PassData& to, std::uint64_t n, const SortSpec& spec, std::size_t pass,
                    std::size_t run, const PassDigit& digit);

  /// The kernels that sort one portion of a larger sort, built when a sort first needs them.
  void build_portion_kernels();
  /// The plan's template built with the template variable `flag` set (a variant of program_).
  cl::Program build_variant(const char* flag) const;

  cl::Context context_;
  cl::Device device_;
  KernelConfig config_;
  TemplateContext template_variables_;
  std::string template_name_;
  std::uint64_t portion_limit_;  // the most keys of a launch: whole tiles
  std::size_t radix_;
  std::size_t max_passes_;
  std::size_t compute_units_;
  std::uint64_t sub_buffer_alignment_;  // bytes; CL_DEVICE_MEM_BASE_ADDR_ALIGN is in bits
  cl::CommandQueue readback_queue_;
  cl::Program program_;
  cl::Kernel histogram_kernel_;
  cl::Kernel pass_kernel_;
  cl::Kernel portion_histogram_kernel_, portion_pass_kernel_;
  DeviceBuffer scratch_keys_, scratch_values_, counters_buffer_;
  Counters counters_;
  std::vector<cl_uint> last_counts_;  // the last sort's digit counts, where it read them
};

}  // namespace clsort::detail
