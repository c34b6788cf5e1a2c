// Measuring one candidate: a checked sort on the device, timed by the host clock around the sort
// and its wait (median of the timed runs after a warm-up); failures are classified, never fatal.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>

#include <clsort/opencl.hpp>
#include <clsort/params.hpp>
#include <clsort/sorter.hpp>
#include <clsort/types.hpp>

namespace clsort::tune {

/// A problem to time: keys of `key_type`, values of `value_bytes` (0: none), n keys drawn from
/// `distribution` (one of clsort-bench's: uniform, low16, few, sorted, tiles, heavy).
struct Problem {
  KeyType key_type = KeyType::u32;
  std::size_t value_bytes = 0;
  std::uint64_t n = 0;
  std::string distribution = "uniform";
  bool operator==(const Problem& other) const {
    return key_type == other.key_type && value_bytes == other.value_bytes && n == other.n &&
           distribution == other.distribution;
  }
};

struct Measurement {
  /// "ok"; "slow" (its warm-up run alone took longer than the caller's limit: not timed
  /// further); or why the candidate is invalid: "compile", "launch", "wrong result".
  std::string status = "ok";
  std::string detail;
  double milliseconds = 0;  ///< median over the timed runs
  double gkeys_per_s() const { return milliseconds > 0 ? 1e-6 * n / milliseconds : 0; }
  std::uint64_t n = 0;
};

/// Whether a measurement takes another timed run after `timed_runs` runs that took `timed_ms` in
/// all: until it has `repeats`, and beyond that while they add up to less than 2 ms, up to 100.
/// A sort of a few thousand keys takes tens of microseconds and its median of 5 moves by 10-30%
/// from one measurement to the next (on the H100, 5 repeats kept single_group for u32 keys at
/// 1,024 where rank_sort was 1.1x faster in alternating rounds of 20); more runs cost it little.
bool wants_another_run(int timed_runs, double timed_ms, int repeats);

/// Runs candidates on one device. After a failure the context and queue are recreated, so that
/// an error does not spoil later measurements.
class Bench {
 public:
  struct Input;  ///< keys and values with their reference result
  /// `kept_inputs`: how many problems' inputs stay made (see prepare_input).
  explicit Bench(cl::Device device, std::size_t kept_inputs = 2);
  /// Sorts the problem's input with `params` `warmup` times, then as wants_another_run() says, and
  /// returns the median time of the timed runs. The result is checked bit for bit, values included,
  /// against the stable order computed on the host ((ordered key, index) pairs sorted on all its
  /// cores). A first warm-up run longer than `give_up_ms` (after an untimed sort of a few keys, see
  /// prime) ends the measurement as "slow".
  Measurement measure(const Params& params, const Problem& problem, int repeats, int warmup,
                      double give_up_ms);
  /// Makes the input and its reference result for `problem` now (host work, kept for the next
  /// measurements of the same problem and of the kept_inputs - 1 before it: a class screened on
  /// fewer keys goes back to its own size to confirm, and each size is timed on every
  /// distribution asked); measure() does it when not done before.
  void prepare_input(const Problem& problem) { input_for(problem); }
  const cl::Device& device() const { return device_; }

 private:
  void recreate();
  const Input& input_for(const Problem& problem);
  void prime(Sorter& sorter, const cl::Buffer& keys, const cl::Buffer& values,
             const Problem& problem);
  cl::Device device_;
  cl::Context context_;
  cl::CommandQueue queue_;
  // The last kept_inputs_ problems' inputs and reference results, the latest first.
  std::deque<std::pair<Problem, std::shared_ptr<Input>>> inputs_;
  std::size_t kept_inputs_;
};

}  // namespace clsort::tune
