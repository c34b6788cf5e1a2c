// Tuning one problem class: screen candidates within a time budget (random order, then
// neighbours of the best; on a smaller input where the class's sorts are slow), confirm the best
// few at full size against the default, and rematch the winner against the default.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <clsort/profile.hpp>

#include "measurement.hpp"
#include "results_log.hpp"
#include "search_space.hpp"

namespace clsort::tune {

struct ClassTask {
  ProblemClass problem;
  std::uint64_t screen_n = 0;   ///< keys per screening run where confirm_n's sorts are slow
  std::uint64_t confirm_n = 0;  ///< keys per confirming run (the class's typical size)
  /// The set to beat in place of the built-in default: for one key type's class merged into a
  /// profile, what that profile gives the type now (the class exists to do better than that).
  std::optional<Params> incumbent;
  /// A part that split_at_capacities cut off at the most keys some small-sort sets hold: those
  /// sets, the reason the part exists, are screened before any other.
  bool ends_at_capacity = false;
  std::string id() const;  ///< "32:4:1048576" (key bits or type, value bytes, confirm size)
  /// The results file's class of a measurement on `distribution`: id() for uniform keys, else
  /// id() and the distribution ("64:4:67108864:sorted").
  std::string results_id(const std::string& distribution) const;
  /// The key type timed: the class's own, else the unsigned type of its width.
  KeyType timed_type() const;
};

/// Keys per screening run of a class whose typical size is `confirm_n`: a sixteenth, at least
/// 1,024 and at most confirm_n.
std::uint64_t screening_size(std::uint64_t confirm_n);

/// Where a class of `least` keys and up, timed at `typical` keys, splits, given the most keys
/// that each algorithm holding few keys (single_group, single_group_hybrid, rank_sort) holds:
/// at each such capacity below `typical` and at least a quarter of it that lies at least a
/// quarter above the least count of the part it would end (smaller parts, or parts far below
/// the typical size, would spend the budget on counts the class hardly stands for). Ascending.
std::vector<std::uint64_t> split_points(std::uint64_t least, std::uint64_t typical,
                                        std::vector<std::uint64_t> capacities);

/// `tasks` with each class split at its split_points: timed at its typical size alone, a class
/// would never try the small-sort sets on the key counts they hold. Each part up to a capacity
/// becomes a class of its own, timed at that count. (Timed at 4,096 keys, the H200's class of
/// 2,048-4,096 64-bit keys had kept single_group at 33 us where rank_sort, which holds 3,840,
/// sorts 2,048 in 18; timed at 16,384, the H100's class of 4,097-32,767 32-bit keys never met the
/// rank_sort sets of 6,144 keys that sort 4,097-6,144 in 18-23 us instead of 31-38.)
std::vector<ClassTask> split_at_capacities(const std::vector<ClassTask>& tasks,
                                           const SearchSpace& space, const cl::Device& device);

/// The keys a class sorts, for people: "f32" (one type) or "32-bit" (every type of the width).
std::string keys_name(const ProblemClass& problem);

struct TuningSettings {
  int repeats = 5;
  int warmup = 1;
  int confirm_count = 3;  ///< best screened candidates confirmed at full size
  /// Where the default sorts confirm_n keys in at most this many ms, candidates are screened on
  /// confirm_n keys too, not on screen_n: compiles then cost more than the runs, and fewer keys
  /// favour shapes that are not the fastest at the class's size.
  double whole_size_screening_ms = 20;
  double prefer_simpler_within = 0.03;
  int rematch_rounds = 3;     ///< alternating rounds a winner must win against the default
  double slowdown_limit = 4;  ///< stop timing a candidate this many times slower than the default
  std::chrono::seconds hang_limit{60};  ///< one measurement longer than this is a hang
  /// The key distributions each candidate is timed on; its time is the mean over them. Uniform
  /// keys alone favour sets whose other distributions take more passes (6-bit hybrid digits).
  std::vector<std::string> distributions{"uniform"};
};

/// Called before each measurement (for progress and the watchdog) with the problem it times.
using MeasurementHook = std::function<void(const ClassTask&, const Params&, const Problem&)>;

/// Tunes `task` until `deadline` (screening stops earlier to leave time to confirm). Every
/// measurement goes to `log`; ones already there are reused.
TunedClass tune_class(Bench& bench, const SearchSpace& space, const ClassTask& task,
                      const TuningSettings& settings,
                      std::chrono::steady_clock::time_point deadline, ResultsLog& log,
                      const MeasurementHook& before_measurement);

}  // namespace clsort::tune
