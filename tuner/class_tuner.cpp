// The search within one class: the default first, then its one-field neighbours, then a
// shuffled list where each new best's neighbours jump the queue; the simplest of the confirmed
// near-best wins if it beats the default again in alternating rounds.
#include "class_tuner.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <random>

#include "rematch.hpp"

namespace clsort::tune {
namespace {

using Clock = std::chrono::steady_clock;

struct Scored {
  Params params;
  double gkeys = 0;
};

// Candidates that differ from `p` in one field, by one step in that field's list.
std::vector<Params> neighbours(const Params& p, const std::vector<Params>& all) {
  std::vector<Params> result;
  for (const Params& q : all)
    if (differences(p, q) == 1) result.push_back(q);
  return result;
}

class Search {
 public:
  Search(Bench& bench, const ClassTask& task, const TuningSettings& settings, ResultsLog& log,
         const MeasurementHook& hook)
      : bench_(bench), task_(task), settings_(settings), log_(log), hook_(hook) {}

  // Gkeys/s of `params` at n keys by its mean time over the distributions; 0 for a failed or
  // hopelessly slow candidate.
  double measure(const Params& params, std::uint64_t n) {
    double total_ms = 0;
    for (const std::string& distribution : settings_.distributions) {
      const double ms = measure_on(params, n, distribution);
      if (ms <= 0) return 0;
      total_ms += ms;
    }
    return 1e-6 * static_cast<double>(n) / (total_ms / settings_.distributions.size());
  }

  // Whether the log already holds measurements of `params` at n keys (measure() costs nothing).
  bool known(const Params& params, std::uint64_t n) const {
    return std::all_of(settings_.distributions.begin(), settings_.distributions.end(),
                       [&](const std::string& distribution) {
                         return log_.find(task_.results_id(distribution), params, n).has_value();
                       });
  }

  // A fresh measurement for round `round` of a rematch (never one from the log): the mean time
  // over the distributions in ms, 0 if one failed.
  double measure_again(const Params& params, std::uint64_t n, int round) {
    double total_ms = 0;
    for (const std::string& distribution : settings_.distributions) {
      const Problem problem = problem_at(n, distribution);
      hook_(task_, params, problem);
      const Measurement m = bench_.measure(params, problem, settings_.repeats, settings_.warmup,
                                           std::numeric_limits<double>::infinity());
      log_.add_rematch(task_.results_id(distribution), params, m, round);
      if (m.status != "ok") return 0;
      total_ms += m.milliseconds;
    }
    return total_ms / settings_.distributions.size();
  }

 private:
  Bench& bench_;
  const ClassTask& task_;
  const TuningSettings& settings_;
  ResultsLog& log_;
  const MeasurementHook& hook_;
  std::map<std::pair<std::uint64_t, std::string>, double> reference_ms_;

  Problem problem_at(std::uint64_t n, const std::string& distribution) const {
    return {task_.timed_type(), task_.problem.value_bytes, n, distribution};
  }

  // The time of `params` at n keys of `distribution` in ms (from the log where it is there); 0
  // for a failed candidate. The first measurement of each (the default's) sets the limit for
  // the others: a warm-up run over `slowdown_limit` times the default's time is not worth
  // timing further.
  double measure_on(const Params& params, std::uint64_t n, const std::string& distribution) {
    const std::string id = task_.results_id(distribution);
    std::optional<Measurement> m = log_.find(id, params, n);
    const auto reference = reference_ms_.find({n, distribution});
    if (!m) {
      const Problem problem = problem_at(n, distribution);
      hook_(task_, params, problem);
      const double give_up = reference == reference_ms_.end()
                                 ? std::numeric_limits<double>::infinity()
                                 : reference->second * settings_.slowdown_limit;
      m = bench_.measure(params, problem, settings_.repeats, settings_.warmup, give_up);
      log_.add(id, params, *m);
    }
    if (m->status != "ok") return 0;
    reference_ms_.try_emplace({n, distribution}, m->milliseconds);
    return m->milliseconds;
  }
};

// Keys per screening run: the class's own size where the default sorts it quickly. Screened on
// n/16 keys, the H100's keys-only class at 2^26 kept 256 x 24 (the default), which 256 x 30
// beat by 7% at 2^26 in alternating rounds.
std::uint64_t screening_keys(const ClassTask& task, const TuningSettings& settings,
                             double default_gkeys) {
  if (default_gkeys <= 0) return task.screen_n;
  const double default_ms = 1e-6 * static_cast<double>(task.confirm_n) / default_gkeys;
  return default_ms <= settings.whole_size_screening_ms ? task.confirm_n : task.screen_n;
}

double median_gkeys(const std::vector<double>& ms, std::uint64_t n) {
  const double middle = median(ms);
  return middle > 0 ? 1e-6 * static_cast<double>(n) / middle : 0;
}

// The confirmed winner against the default in alternating rounds, each side first in turn; the
// default stays unless the winner holds (challenger_holds).
TunedClass rematch(Search& search, const ClassTask& task, const TuningSettings& settings,
                   const Params& fallback, const Params& winner) {
  std::vector<double> default_ms, winner_ms;
  for (int round = 0; round < settings.rematch_rounds; ++round) {
    if (round % 2 == 0) default_ms.push_back(search.measure_again(fallback, task.confirm_n, round));
    winner_ms.push_back(search.measure_again(winner, task.confirm_n, round));
    if (round % 2 == 1) default_ms.push_back(search.measure_again(fallback, task.confirm_n, round));
  }
  const double default_gkeys = median_gkeys(default_ms, task.confirm_n);
  if (!challenger_holds(default_ms, winner_ms, settings.prefer_simpler_within))
    return {task.problem, fallback, default_gkeys, default_gkeys};
  return {task.problem, winner, median_gkeys(winner_ms, task.confirm_n), default_gkeys};
}

}  // namespace

namespace {

// "f32" for one key type's class, "32" for a width's.
std::string keys_token(const ProblemClass& problem) {
  return problem.key_type ? std::string(to_string(*problem.key_type))
                          : std::to_string(problem.key_bits);
}

}  // namespace

std::string keys_name(const ProblemClass& problem) {
  return keys_token(problem) + (problem.key_type ? "" : "-bit");
}

std::string ClassTask::id() const {
  return keys_token(problem) + ":" + std::to_string(problem.value_bytes) + ":" +
         std::to_string(confirm_n);
}

std::string ClassTask::results_id(const std::string& distribution) const {
  return distribution == "uniform" ? id() : id() + ":" + distribution;
}

KeyType ClassTask::timed_type() const {
  return problem.key_type.value_or(*parse_key_type("u" + std::to_string(problem.key_bits)));
}

std::uint64_t screening_size(std::uint64_t confirm_n) {
  return std::min(confirm_n, std::max<std::uint64_t>(confirm_n / 16, 1024));
}

namespace {

// The most keys that the sets of each algorithm holding few keys hold at `task`'s key size.
std::vector<std::uint64_t> small_sort_capacities(const ClassTask& task, const SearchSpace& space,
                                                 const cl::Device& device) {
  std::map<Algorithm, std::uint64_t> most_by_algorithm;
  for (const Params& p :
       candidates(space, device, task.problem.key_bits / 8, task.problem.value_bytes))
    if (has_key_capacity(p.algorithm))
      most_by_algorithm[p.algorithm] = std::max(most_by_algorithm[p.algorithm], most_keys(p));
  std::vector<std::uint64_t> capacities;
  for (const auto& [algorithm, most] : most_by_algorithm) capacities.push_back(most);
  return capacities;
}

}  // namespace

std::vector<std::uint64_t> split_points(std::uint64_t least, std::uint64_t typical,
                                        std::vector<std::uint64_t> capacities) {
  std::sort(capacities.begin(), capacities.end());
  std::vector<std::uint64_t> points;
  for (const std::uint64_t most : capacities) {
    const std::uint64_t from = points.empty() ? least : points.back() + 1;
    if (most < typical && 4 * most >= typical && 4 * most >= 5 * from) points.push_back(most);
  }
  return points;
}

std::vector<ClassTask> split_at_capacities(const std::vector<ClassTask>& tasks,
                                           const SearchSpace& space, const cl::Device& device) {
  std::vector<ClassTask> split;
  for (const ClassTask& task : tasks) {
    ClassTask rest = task;
    for (const std::uint64_t most : split_points(task.problem.min_keys, task.confirm_n,
                                                 small_sort_capacities(task, space, device))) {
      ClassTask below = rest;
      below.problem.max_keys = most;
      below.confirm_n = most;
      below.screen_n = screening_size(most);
      below.ends_at_capacity = true;
      split.push_back(below);
      rest.problem.min_keys = most + 1;
    }
    split.push_back(rest);
  }
  return split;
}

TunedClass tune_class(Bench& bench, const SearchSpace& space, const ClassTask& task,
                      const TuningSettings& settings, Clock::time_point deadline, ResultsLog& log,
                      const MeasurementHook& before_measurement) {
  const std::size_t key_bytes = task.problem.key_bits / 8;
  const Params fallback =
      task.incumbent
          ? *task.incumbent
          : built_in_params(bench.device(), key_bytes, task.problem.value_bytes, task.confirm_n);
  std::vector<Params> all = candidates(space, bench.device(), key_bytes, task.problem.value_bytes);
  // Above its capacity a single_group set runs the default: measured there, it would be timed
  // as something it is not.
  const std::uint64_t largest = std::max(task.screen_n, task.confirm_n);
  all.erase(std::remove_if(all.begin(), all.end(),
                           [&](const Params& p) { return most_keys(p) < largest; }),
            all.end());
  std::shuffle(all.begin(), all.end(), std::mt19937(task.problem.key_bits + 7 * task.confirm_n));
  Search search(bench, task, settings, log, before_measurement);

  // Screening: most of the class's time; the default first, then new bests' neighbours first.
  // Its time starts after the default's first run, which makes the input: for f32 + u32 at 2^28
  // on the H200 that host work had taken the class's whole share of the budget.
  const std::uint64_t screen_n =
      screening_keys(task, settings, search.measure(fallback, task.confirm_n));
  const auto start = Clock::now();
  const auto screen_until = start + (deadline - start) * 6 / 10;
  std::vector<Scored> screened{{fallback, search.measure(fallback, screen_n)}};
  // The default was chosen by hand on some device, so its neighbours go first: with a small
  // budget per class (a 4-minute run on the H200 screened 5 candidates at 2^24 keys for its
  // 2^28 classes) random picks alone rarely came near it.
  std::deque<Params> queue(all.begin(), all.end());
  for (const Params& q : neighbours(fallback, all)) queue.push_front(q);
  // Before them the sets that a part cut off at their capacity exists for: in a 100-second run
  // on an H100 the part of 32-bit keys up to rank_sort's 7,680 spent its share on the
  // fused_onesweep default's neighbours and never timed rank_sort, which sorted the pairs' part
  // 1.5x faster.
  if (task.ends_at_capacity)
    for (const Params& q : all)
      if (has_key_capacity(q.algorithm) && most_keys(q) == task.confirm_n) queue.push_front(q);
  double best = screened[0].gkeys;
  const auto seen = [&](const Params& p) {
    return std::any_of(screened.begin(), screened.end(),
                       [&](const Scored& s) { return differences(s.params, p) == 0; });
  };
  // Past its time the screening still replays what the log knows: a run resumed with a smaller
  // budget then finds the winners its first run found (the H100's 64-bit retune, resumed, had
  // kept the default for u64 keys with u32 values because that class's time was spent).
  while (!queue.empty()) {
    const Params p = queue.front();
    queue.pop_front();
    if (seen(p) || (Clock::now() >= screen_until && !search.known(p, screen_n))) continue;
    screened.push_back({p, search.measure(p, screen_n)});
    if (screened.back().gkeys > best) {
      best = screened.back().gkeys;
      for (const Params& q : neighbours(p, all)) queue.push_front(q);
    }
  }

  // Confirmation at full size: the best few and the default.
  std::sort(screened.begin(), screened.end(),
            [](const Scored& a, const Scored& b) { return a.gkeys > b.gkeys; });
  std::vector<Scored> confirmed{{fallback, search.measure(fallback, task.confirm_n)}};
  for (const Scored& s : screened) {
    if (static_cast<int>(confirmed.size()) > settings.confirm_count || s.gkeys <= 0) break;
    if (differences(s.params, fallback) != 0)
      confirmed.push_back({s.params, search.measure(s.params, task.confirm_n)});
  }
  const double top = std::max_element(confirmed.begin(), confirmed.end(), [](auto& a, auto& b) {
                       return a.gkeys < b.gkeys;
                     })->gkeys;
  const Scored* chosen = nullptr;
  for (const Scored& s : confirmed) {
    if (s.gkeys < top * (1 - settings.prefer_simpler_within)) continue;
    if (!chosen || differences(s.params, fallback) < differences(chosen->params, fallback))
      chosen = &s;
  }
  if (differences(chosen->params, fallback) == 0)
    return {task.problem, fallback, confirmed[0].gkeys, confirmed[0].gkeys};
  return rematch(search, task, settings, fallback, chosen->params);
}

}  // namespace clsort::tune
