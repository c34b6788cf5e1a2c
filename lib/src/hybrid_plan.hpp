// The hybrid plan: onesweep passes over the top digits only, then one local-memory sort per
// segment.
#pragma once

#include <memory>
#include <optional>

#include "onesweep_plan.hpp"
#include "radix_kernels.hpp"

namespace clsort::detail {

class HybridPlan : public OnesweepPlan {
 public:
  /// Most keys a hybrid sort takes: segment_rank indexes in 32 bits, with room past n for its
  /// search windows. Larger sorts run onesweep's passes over every digit.
  static constexpr std::uint64_t max_keys = OnesweepPlan::max_keys - (std::uint64_t{1} << 24);

  /// The most keys of a sort that guesses its first pass (see guess_first_pass) though the
  /// plan's last sort, if any, was of another size: a wrong guess costs a pass, a right one saves
  /// the wait for the digit counts, and from 2^23 keys a pass costs more (H200, the first sorts of
  /// new Sorters, u64 keys and u64 + u32 at 2^24 and 2^26: without the guess tile keys ran 10-13%
  /// faster, sorted keys 5-13%, uniform keys 1-7% and heavy hitters 1-2% slower).
  static constexpr std::uint64_t max_first_guess_keys = (std::uint64_t{1} << 23) - 1;

  /// `portion_keys` as for OnesweepPlan: the most keys of one pass launch; `first_guess_keys`:
  /// max_first_guess_keys, or fewer for tests.
  HybridPlan(const cl::Context& context, const cl::Device& device, const KernelConfig& config,
             std::uint64_t portion_keys = max_portion_keys,
             std::uint64_t first_guess_keys = max_first_guess_keys);

  /// Sorts most significant digits first where that moves the keys fewer times than onesweep's
  /// passes (see Algorithm::hybrid), else as onesweep does.
  void run(CommandChain& chain, const PassData& input, const PassData& output, std::uint64_t n,
           const SortSpec& spec) override;

  /// Onesweep's scratch, the segment step's buffers and the 8-bit plan (see wide_passes).
  std::vector<cl::Buffer> reserve(std::uint64_t n) override;

  /// How many of the top varying passes (the last of `counts_of_varying`, each pass's digit
  /// counts) to run as onesweep passes: the fewest that leave buckets of at most
  /// `bucket_target` keys on average (the product of the digits present in each estimates the
  /// number of buckets), keeping at least one pass for the segment step to save; 0 (plain
  /// passes) where none does, or where one of them scatters its digits thinly (fewer present
  /// than half the span from its lowest to its highest).
  static std::size_t bucket_passes(const std::vector<std::vector<std::uint64_t>>& counts_of_varying,
                                   std::uint64_t n, std::uint64_t bucket_target);

  /// The average bucket that bucket_passes aims for with segment_rank's `bucket_limit`: a
  /// 64th of it. Ranking costs each key its bucket's size, so one more onesweep pass pays
  /// where it shrinks buckets of more than about 6 keys (H200, u64 keys: a pass 6.7 ps a key,
  /// ranking 9 ps plus 1.1 ps per key of the average bucket).
  static std::uint64_t bucket_target(std::uint64_t bucket_limit);

  /// Digits more than bucket_passes chose that a sort buckets by after a bucket of unequal keys
  /// overflows the segment kernel's tile (heavy hitters: keys crowding a few values of their top
  /// digits), in passes over all of them from the keys in bucket order, before it falls back to
  /// the usual passes. u64 keys with 3 in 8 in four values of their top 16 bits make buckets of
  /// about 6,000 keys at 2^24 after three 8-bit passes; one more digit leaves buckets of about 24,
  /// whose ranking costs about what a pass does, two leave under one key.
  static constexpr std::size_t extra_bucket_digits = 2;

  /// A sort buckets by extra_bucket_digits more digits too where segment_rank lists so many
  /// ranges for segment_sort (at least this many a compute unit, their strides covering at least
  /// an eighth of the keys) that sorting them one work-group a range would cost more: heavy
  /// hitters at 2^28 leave buckets of a few hundred keys after four 8-bit passes (H200, u64 keys
  /// with 3 in 8 in four values of their top 16 bits: 36 ms, against 9.6 for uniform keys).
  static constexpr std::uint64_t listed_ranges_per_unit = 4;

  /// Sorts that skip the buckets bucket_passes chooses after an overflow (see
  /// extra_bucket_digits; such keys tend to come again): sorts of a size of the same power of two
  /// whose keys crowd their bucket digits at least half as much (alike keys; see digit_crowding)
  /// bucket by the extra digits at once where those held the overflowing keys' buckets, else run
  /// the usual passes at once. The overflow costs the bucket passes and the rank step (H200, u64
  /// keys at 2^24 with 3 keys in 8 in four values of their top 16 bits: 1.66 ms with the usual
  /// passes after them, against 1.05 without); the sort after these tries the buckets again.
  /// 7 after one overflow, 15, 31 and then 63 after that many `in_a_row` (no sort of alike keys
  /// holding its buckets between them), so that keys which keep overflowing pay for it once in
  /// 64 sorts.
  static constexpr unsigned sorts_skipping_buckets(unsigned in_a_row) {
    return (8u << ((in_a_row < 4 ? in_a_row : 4) - 1)) - 1;
  }

  /// Keys that do not bucket (sorted, few distinct, varying in their low bits only) tend to
  /// come again too, and counting their digits for the buckets costs them a read of every key
  /// and a round trip to the host before the usual passes (H200, u64 + u32 keys at 2^28 with
  /// 6-bit digits: about 1 ms over onesweep's 13-20 ms; at 2^22 with 8-bit digits 0.02-0.03
  /// ms over 0.15-0.4). After such a sort, sorts of a size of the same power of two run
  /// onesweep's sort at once (at 8-bit digits where wide_passes has a plan), as many as
  /// sorts_skipping_buckets gives for the unbucketed sorts in a row; where one's digit
  /// counts show keys that would bucket, the next sort checks again.
  static constexpr unsigned sorts_after_unbucketed_keys(unsigned in_a_row) {
    return sorts_skipping_buckets(in_a_row);
  }

  /// How much keys crowd their `top` bucket digits (the last of `counts_of_varying`): the
  /// largest share of n keys that one value of one of those digits holds (1/256 for uniform
  /// 8-bit digits).
  static double digit_crowding(const std::vector<std::vector<std::uint64_t>>& counts_of_varying,
                               std::size_t top, std::uint64_t n);

  /// The top passes the last sort ran before its last ranking in buckets (0: the usual passes
  /// only), whether its first ranking overflowed (a bucket larger than the segment kernel's tile
  /// holding unequal keys, or too many ranges listed for it: see listed_ranges_per_unit), whether
  /// it bucketed by extra_bucket_digits more digits (after its own overflow or an alike sort's),
  /// and whether its buckets then needed the usual passes after all; for tests and diagnostics.
  std::size_t last_bucket_passes() const { return bucket_passes_run_; }
  bool last_sort_overflowed() const { return overflowed_; }
  bool last_sort_went_deeper() const { return went_deeper_; }
  bool last_sort_fell_back() const { return fell_back_; }
  /// Whether the last sort's first pass was the one run while the digit counts were read.
  bool last_guess_held() const { return guess_held_; }
  /// Whether the last sort skipped the buckets bucket_passes chose because alike keys of the
  /// same power-of-two size overflowed lately (see sorts_skipping_buckets).
  bool last_sort_skipped_buckets() const { return skipped_buckets_; }
  /// Whether the last sort ran its usual passes through the 8-bit plan (see wide_passes).
  bool last_sort_ran_wide_passes() const { return ran_wide_passes_; }
  /// Whether the last sort ran onesweep's sort at once, without counting its digits for the
  /// buckets first, because keys of a size of the same power of two lately did not bucket (see
  /// sorts_after_unbucketed_keys).
  bool last_sort_skipped_bucket_check() const { return skipped_bucket_check_; }

 private:
  /// The segment step's buffers for n keys: how many ranges segment_rank listed and whether one
  /// overflowed (two words), and the ranges (at most two a work-group).
  struct SegmentBuffers {
    const cl::Buffer& counts;
    const cl::Buffer& ranges;
  };
  SegmentBuffers segment_buffers(std::uint64_t n);
  /// segment_rank's work-groups for n keys: one a stride.
  std::uint64_t rank_groups(std::uint64_t n) const;

  /// Enqueues segment_rank from `from` into data, reads how many ranges it left to the segment
  /// kernel and whether one overflowed, then enqueues the segment kernel over those ranges.
  /// Returns whether the keys still need passes: a range overflowed, or (where `may_go_deeper`)
  /// it listed too many ranges (see listed_ranges_per_unit) and ran no segment kernel.
  bool sort_segments(CommandChain& chain, const PassData& from, const PassData& data,
                     std::uint64_t n, const SortSpec& spec, unsigned bucket_shift,
                     bool may_go_deeper);

  /// An onesweep plan of this one's shape at 8-bit digits, built at first use, for sorts that
  /// run the usual passes where this plan's digits are narrower: 6-bit digits take 11 passes
  /// over 64-bit keys where 8-bit digits take 8 (H200, u64 + u32 at 2^26: sorted keys 4.35 ms
  /// at 6 bits, 3.13 at 8). Null where the digits are 8 bits wide already, or where the 8-bit
  /// set does not fit the device. It holds scratch buffers of its own.
  OnesweepPlan* wide_passes();

  /// Sorts `source` (data, scratch or the input of a sort out of place: every key, stably ordered
  /// so far) into data by the 8-bit plan's passes.
  void run_wide_passes(CommandChain& chain, OnesweepPlan& wide, const PassData& source,
                       const PassData& data, std::uint64_t n, const SortSpec& spec);

  /// The pass to run while the digit counts are read (an index into `digits`): the first pass
  /// the last sort of a size of n's power of two ran, else, up to first_guess_keys_ keys, the
  /// one uniform keys would run first (their first bucket pass, or the lowest digit's); none
  /// after a sort of constant keys.
  std::optional<std::size_t> guess_first_pass(const std::vector<PassDigit>& digits,
                                              std::uint64_t n) const;

  /// What a sort's passes share: its digits, the event of their counts, and the launch index of
  /// its first pass after the guess (1 where a dropped guess took launch 0: launches alternate
  /// between two look-back status regions).
  struct Passes {
    const std::vector<PassDigit>& digits;
    const cl::Event& counted;
    std::size_t first_run;
  };

  /// The usual passes over every varying digit from input (or the held guess's pass in scratch)
  /// into data, after a guess held or dropped.
  void enqueue_usual_passes(CommandChain& chain, const Scratch& scratch, const PassData& input,
                            const PassData& data, std::uint64_t n, const SortSpec& spec,
                            const Passes& passes, const std::vector<std::size_t>& varying);

  /// The passes over `bucket_digits` (the top varying digits, least significant first), then
  /// the segment step, from input (or the held guess's pass in scratch) into data; where a
  /// segment overflows, the same over extra_bucket_digits more digits (unless this sort took them
  /// already), then the usual passes over `varying`.
  void enqueue_bucket_sort(CommandChain& chain, const Scratch& scratch, const PassData& input,
                           const PassData& data, std::uint64_t n, const SortSpec& spec,
                           const Passes& passes, const std::vector<std::size_t>& varying,
                           const std::vector<std::size_t>& bucket_digits);

  /// The last sort's choice: its size's power of two and its first pass's digit shift (none:
  /// its keys were all equal, or it ran the 8-bit plan's passes, which guess nothing here).
  struct Choice {
    unsigned n_log2 = 64;  // no sort yet
    std::optional<unsigned> first_shift;
  };

  /// Whether n keys crowding their bucket digits as much as `crowding` are alike the last
  /// fallback's: a size of the same power of two, at least half its crowding.
  bool alike_last_fallback(std::uint64_t n, double crowding) const;

  /// Whether n keys crowding their bucket digits as much as `crowding` skip the buckets
  /// bucket_passes chose after a recent overflow (and counts this sort against those left).
  bool skip_buckets_after_fallback(std::uint64_t n, double crowding);

  /// The top digits a sort that skips the buckets bucket_passes chose (`top` of `varying`)
  /// buckets by: the last overflow's extra digits more where those held and leave a digit to
  /// rank, else none (the usual passes).
  std::size_t depth_after_overflow(std::size_t top, std::size_t varying);

  /// Notes how the bucket sort of n keys crowding their digits as much as `crowding` ended:
  /// an overflow starts the sorts that skip the buckets (bucketing by the extra digits where
  /// those held), one of alike keys that held its buckets ends the run of overflows in a row.
  void remember_bucket_sort(std::uint64_t n, double crowding);

  /// Sorts n keys by onesweep's sort without counting for the buckets (see
  /// sorts_after_unbucketed_keys), and ends those sorts where its digit counts show keys that
  /// would bucket.
  void run_without_bucket_check(CommandChain& chain, const PassData& input, const PassData& output,
                                std::uint64_t n, const SortSpec& spec);

  /// Notes whether n keys whose digit counts were read bucket: a sort that does not starts
  /// (or, in a row, lengthens) the sorts that skip the bucket check, where they can read
  /// their own counts to see keys change (sorts of `passes` passes).
  void remember_bucket_check(std::uint64_t n, const SortSpec& spec, std::size_t passes,
                             bool bucketed);

  /// Sorts that skip a step after it did not pay (see sorts_skipping_buckets): the size (power
  /// of two) of the last sort it did not pay for, the sorts of that size left to skip it, and
  /// the sorts it did not pay for in a row.
  struct SkipRun {
    unsigned n_log2 = 64;  // none yet
    unsigned sorts_left = 0;
    unsigned in_a_row = 0;
    /// Starts the skips after a sort of size `log2` for which the step did not pay, one more in
    /// a row where `continues`.
    void after_miss(unsigned log2, bool continues);
    /// Whether a sort of size `log2` skips the step (and counts it against those left).
    bool take(unsigned log2);
  };

  /// The skips of the buckets after an overflow, that overflow's keys' digit_crowding, and the
  /// digits more than bucket_passes chose that alike sorts bucket by (0: they run the usual
  /// passes).
  struct Fallback {
    SkipRun skips;
    double crowding = 0;
    std::size_t extra_digits = 0;
  };

  std::uint64_t portion_keys_;
  std::uint64_t first_guess_keys_;
  Fallback fallback_;
  bool skipped_buckets_ = false;
  SkipRun unbucketed_;  // skips of the bucket check
  bool skipped_bucket_check_ = false;
  std::unique_ptr<OnesweepPlan> wide_passes_;
  bool wide_passes_tried_ = false;
  bool ran_wide_passes_ = false;
  SegmentRankShape rank_shape_;
  cl::Kernel rank_kernel_;
  cl::Kernel segment_kernel_;
  DeviceBuffer segment_counts_, segment_ranges_;
  std::size_t bucket_passes_run_ = 0;
  bool overflowed_ = false;
  bool went_deeper_ = false;
  bool fell_back_ = false;
  Choice last_choice_;
  bool guess_held_ = false;
};

}  // namespace clsort::detail
