// clsort-tune: measures kernel parameters on a device, per problem class, and writes the
// device's profile that the library then loads.
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include <clsort/clsort.hpp>

#include "bench_inputs.hpp"
#include "class_tuner.hpp"
#include "profile_merge.hpp"

namespace {

using namespace clsort;
using namespace clsort::tune;
using Clock = std::chrono::steady_clock;

constexpr const char* tuner_version = "1.0";

struct Options {
  std::string device;
  std::string budget = "10m";
  std::string classes = "8:0,16:0,32:0,32:4,32:8,64:0,64:4,64:8";
  std::string sizes = "12,16,20,24";
  std::string space_file;
  std::string output;
  std::string into;
  std::string range = ":";
  std::string results;
  int repeats = 5;
  std::vector<std::string> distributions{"uniform"};
  double min_gain_percent = 3;
  bool fresh = false;
  bool quiet = false;
};

std::chrono::seconds parse_duration(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = text.substr(used);
  const double scale = unit == "s" || unit.empty() ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
  if (used == 0 || scale < 0 || value <= 0)
    throw Error("tune", "--budget '" + text + "' is not a duration like 90s, 10m or 1h");
  return std::chrono::seconds(static_cast<long long>(std::ceil(value * scale)));
}

template <class T>
std::vector<T> parse_list(const std::string& text, const char* option) {
  std::vector<T> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    std::stringstream parse(item);
    T value{};
    if (!(parse >> value) || !parse.eof())
      throw Error("tune", std::string(option) + ": '" + item + "' is not a number");
    items.push_back(value);
  }
  return items;
}

// The keys of one --classes item: a width ("32": every type of it, timed on unsigned keys) or a
// key type ("f32": that type alone).
ProblemClass keys_of_class(const std::string& keys) {
  ProblemClass problem;
  if (const std::optional<KeyType> type = parse_key_type(keys)) {
    problem.key_type = *type;
    problem.key_bits = key_bits(*type);
  } else {
    problem.key_bits = parse_list<unsigned>(keys, "--classes")[0];
    if (!parse_key_type("u" + std::to_string(problem.key_bits)))
      throw Error("tune", "--classes: key width " + std::to_string(problem.key_bits) +
                              " is not 8, 16, 32 or 64");
  }
  return problem;
}

// Every (keys, value bytes) pair at every size; each size's class reaches halfway (on a log
// scale) to its neighbours, the first from 0, the last to any n.
std::vector<ClassTask> plan_classes(const Options& o) {
  std::vector<unsigned> log2_sizes = parse_list<unsigned>(o.sizes, "--sizes");
  std::sort(log2_sizes.begin(), log2_sizes.end());
  std::vector<ClassTask> tasks;
  std::stringstream widths(o.classes);
  for (std::string item; std::getline(widths, item, ',');) {
    const std::size_t colon = item.find(':');
    if (colon == std::string::npos)
      throw Error("tune", "--classes: '" + item + "' is not KEYS:VALUEBYTES");
    const ProblemClass keys = keys_of_class(item.substr(0, colon));
    const std::size_t values = parse_list<std::size_t>(item.substr(colon + 1), "--classes")[0];
    if (values != 0 && !is_supported_value_size(values))
      throw Error("tune",
                  "--classes: " + std::to_string(values) + "-byte values are not supported");
    for (std::size_t i = 0; i < log2_sizes.size(); ++i) {
      ClassTask t;
      t.problem = keys;
      t.problem.value_bytes = values;
      t.confirm_n = std::uint64_t{1} << log2_sizes[i];
      t.screen_n = screening_size(t.confirm_n);
      const auto boundary = [&](std::size_t j) {  // between sizes j-1 and j
        return std::uint64_t{1} << ((log2_sizes[j - 1] + log2_sizes[j] + 1) / 2);
      };
      t.problem.min_keys = i == 0 ? 0 : boundary(i);
      t.problem.max_keys = i + 1 == log2_sizes.size() ? UINT64_MAX : boundary(i + 1) - 1;
      tasks.push_back(t);
    }
  }
  return tasks;
}

// One key type's classes merged into a profile must beat what it gives that type.
void set_incumbents(std::vector<ClassTask>& tasks, const std::optional<Profile>& into) {
  if (!into) return;
  for (ClassTask& t : tasks)
    if (t.problem.key_type)
      t.incumbent = into->params_for(*t.problem.key_type, t.problem.value_bytes, t.confirm_n);
}

// Ends the process if one measurement runs longer than the limit: a kernel that hangs cannot be
// stopped from the host. The measurement is recorded as a timeout first, so a rerun resumes
// past it.
class Watchdog {
 public:
  Watchdog(std::chrono::seconds limit, ResultsLog& log) : limit_(limit), log_(log) {
    thread_ = std::thread([this] { watch(); });
  }
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void arm(const std::string& class_id, const Params& params, std::uint64_t n) {
    std::lock_guard lock(mutex_);
    class_id_ = class_id;
    params_ = params;
    n_ = n;
    deadline_ = Clock::now() + limit_;
    wake_.notify_all();
  }

 private:
  void watch() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
      if (deadline_ != Clock::time_point{} && Clock::now() > deadline_) {
        Measurement hung;
        hung.status = "timeout";
        hung.n = n_;
        log_.add(class_id_, params_, hung);
        std::cerr << "\nclsort-tune: a measurement ran over " << limit_.count()
                  << " s and is recorded as a timeout; run clsort-tune again to resume\n";
        std::_Exit(3);
      }
      wake_.wait_for(lock, std::chrono::milliseconds(500));
    }
  }
  std::chrono::seconds limit_;
  ResultsLog& log_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
  bool stop_ = false;
  std::string class_id_;
  Params params_;
  std::uint64_t n_ = 0;
  Clock::time_point deadline_{};
};

void print_summary(const std::vector<TunedClass>& classes, double seconds, std::ostream& out) {
  out << "\n"
      << std::left << std::setw(8) << "keys" << std::setw(8) << "values" << std::setw(24) << "n"
      << std::right << std::setw(10) << "tuned" << std::setw(10) << "default" << std::setw(9)
      << "speedup"
      << "  parameters\n";
  for (const TunedClass& c : classes) {
    const std::string range =
        std::to_string(c.problem.min_keys) + ".." +
        (c.problem.max_keys == UINT64_MAX ? std::string("") : std::to_string(c.problem.max_keys));
    out << std::left << std::setw(8) << keys_name(c.problem) << std::setw(8)
        << c.problem.value_bytes << std::setw(24) << range << std::right << std::fixed
        << std::setprecision(3) << std::setw(10) << c.gkeys_per_s << std::setw(10)
        << c.default_gkeys_per_s << std::setw(8) << std::setprecision(2)
        << (c.default_gkeys_per_s > 0 ? c.gkeys_per_s / c.default_gkeys_per_s : 0) << "x  "
        << describe(c.params) << "\n";
  }
  out << "(Gkeys/s at each class's typical size; tuning took " << std::setprecision(0) << seconds
      << " s)\n";
}

// A device as --into's mismatch names it: name, platform and compute units.
std::string device_named(const DeviceIdentity& d) {
  return d.name + " (" + d.platform + ", " + std::to_string(d.compute_units) + " compute units)";
}

// The profile --into names, checked to be this device's and current before any tuning.
std::optional<Profile> profile_to_merge_into(const Options& o, const DeviceIdentity& identity) {
  if (o.into.empty()) return std::nullopt;
  Profile existing = load_profile(o.into);
  if (!same_device(existing.device, identity))
    throw Error("tune", "--into " + o.into + " was tuned on " + device_named(existing.device) +
                            ", not on " + device_named(identity));
  return existing;
}

// `existing` with this run's classes in `range` and its settings and new measurements added.
Profile merged_profile(Profile existing, const Profile& run, KeyRange range,
                       const std::string& range_text) {
  existing.classes = merge_classes(existing.classes, run.classes, range);
  existing.tuner_version = run.tuner_version;
  existing.device = run.device;
  nlohmann::json settings = run.tuning;
  settings["range"] = range_text;
  existing.tuning["merged"].push_back(settings);
  std::set<std::string> known;
  for (const auto& r : existing.results) known.insert(r.dump());
  for (const auto& r : run.results)
    if (known.insert(r.dump()).second) existing.results.push_back(r);
  return existing;
}

int run(const Options& o) {
  // Every setting is checked before the device work starts, so a typo costs no tuning time.
  const auto budget = parse_duration(o.budget);
  const DeviceEntry device = find_device(o.device);
  const DeviceIdentity identity = identify(device.device);
  const KeyRange range = parse_key_range(o.range, "--range");
  const std::optional<Profile> existing = profile_to_merge_into(o, identity);
  const std::string output = !o.into.empty() ? o.into
                             : o.output.empty()
                                 ? user_profile_folder() + "/" + profile_file_name(identity)
                                 : o.output;
  const std::string results = o.results.empty() ? output + ".results.jsonl" : o.results;
  if (o.fresh) std::remove(results.c_str());
  if (const auto folder = std::filesystem::path(output).parent_path(); !folder.empty())
    std::filesystem::create_directories(folder);

  SearchSpace space = default_search_space();
  if (!o.space_file.empty()) {
    std::ifstream in(o.space_file);
    if (!in) throw Error("tune", "cannot open the search space " + o.space_file);
    space = parse_search_space(nlohmann::json::parse(in));
  }
  std::vector<ClassTask> tasks = split_at_capacities(plan_classes(o), space, device.device);
  set_incumbents(tasks, existing);
  TuningSettings settings;
  settings.repeats = std::max(o.repeats, 5);
  settings.prefer_simpler_within = o.min_gain_percent / 100;
  settings.distributions = o.distributions;
  ResultsLog log(results, kernel_templates_hash());
  Watchdog watchdog(settings.hang_limit, log);
  // Each class's screening and confirming sizes on every distribution: none made twice.
  Bench bench(device.device, 2 * o.distributions.size());
  const bool show = !o.quiet && ::isatty(STDERR_FILENO);
  std::cerr << "clsort-tune: " << identity.name << " (" << identity.platform << "), "
            << tasks.size() << " classes, budget " << o.budget << "; results in " << results
            << (log.resumed() ? " (resuming: " + std::to_string(log.resumed()) + " known)" : "")
            << (log.stale() ? "; " + std::to_string(log.stale()) +
                                  " earlier results ignored: measured with other kernels"
                            : "")
            << "\n";

  const auto start = Clock::now();
  std::vector<TunedClass> tuned;
  std::size_t measured = 0;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    // An equal share of the time left: a class that ran over its share takes from every later
    // class alike, not from the next alone.
    const auto now = Clock::now();
    const auto deadline = now + std::max(Clock::duration::zero(), start + budget - now) /
                                    static_cast<long>(tasks.size() - i);
    tuned.push_back(tune_class(
        bench, space, tasks[i], settings, deadline, log,
        [&](const ClassTask& task, const Params& params, const Problem& problem) {
          // The host's reference sort is not the device's work: at 2^28 keys it alone ran
          // past the hang limit, so it is done before the watchdog is armed.
          bench.prepare_input(problem);
          watchdog.arm(task.results_id(problem.distribution), params, problem.n);
          ++measured;
          if (!show) return;
          const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
          std::fprintf(stderr,
                       "\r\033[Kclass %zu/%zu (%s keys, %zu-byte values, n = %llu): %zu "
                       "measured, %.0f s, ETA %.0f s",
                       i + 1, tasks.size(), keys_name(task.problem).c_str(),
                       task.problem.value_bytes, static_cast<unsigned long long>(task.confirm_n),
                       measured, elapsed, std::max(0.0, budget.count() - elapsed));
        }));
  }
  if (show) std::fputs("\r\033[K", stderr);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

  Profile profile;
  profile.tuner_version = tuner_version;
  profile.kernel_hash = kernel_templates_hash();
  profile.device = identity;
  profile.tuning = {{"budget", o.budget},
                    {"classes", o.classes},
                    {"sizes", o.sizes},
                    {"repeats", settings.repeats},
                    {"distributions", o.distributions},
                    {"warmup", settings.warmup},
                    {"min_gain_percent", o.min_gain_percent},
                    {"seconds", seconds},
                    {"search_space", space.values},
                    {"constraints", space.constraints}};
  profile.classes = within_capacity(tuned);
  profile.results = log.all();
  save_profile(existing ? merged_profile(*existing, profile, range, o.range) : profile, output);
  print_summary(profile.classes, seconds, std::cout);
  std::cerr << "clsort-tune: " << (existing ? "merged into " : "wrote ") << output << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"clsort-tune: find the fastest kernel parameters for an OpenCL device",
               "clsort-tune"};
  app.set_version_flag("--version", clsort::version_line("clsort-tune"));
  Options o;
  app.add_option("--device", o.device,
                 "Device: P:D, cpu, gpu or a name substring (default: first GPU)");
  app.add_option("--budget", o.budget, "Time to spend, e.g. 90s, 10m, 1h (default 10m)");
  app.add_option("--classes", o.classes,
                 "Keys and value bytes to tune, e.g. 32:0,32:4,64:8 (default: each width's keys "
                 "alone, 32- and 64-bit keys with 4- and 8-byte values); keys are a width (every "
                 "key type of it, timed on unsigned keys) or one type (f32:4)");
  app.add_option("--sizes", o.sizes, "log2 of each size class's typical n (default 12,16,20,24)");
  app.add_option("--space", o.space_file, "Search space JSON (default: the built-in one)");
  CLI::Option* output =
      app.add_option("-o,--output", o.output,
                     "Profile to write (default: the user folder, named after the device)");
  CLI::Option* into =
      app.add_option("--into", o.into,
                     "Existing profile of this device to merge this run's classes into (in place)")
          ->excludes(output);
  app.add_option("--range", o.range,
                 "With --into: the key counts MIN:MAX whose classes this run replaces (either "
                 "side may be empty; default all)")
      ->needs(into);
  app.add_option("--results", o.results,
                 "Results file to resume from (default: OUTPUT.results.jsonl)");
  app.add_option("--repeats", o.repeats,
                 "Timed runs per measurement, median taken (at least 5; more while they add up to "
                 "under 2 ms, up to 100)");
  app.add_option(
         "--distributions", o.distributions,
         "Key distributions each candidate is timed on, its time the mean over them: "
         "uniform (the default), low16, few, sorted, tiles, heavy (as clsort-bench makes them)")
      ->delimiter(',')
      ->check(CLI::IsMember(clsort::bench::distributions()));
  app.add_option("--min-gain", o.min_gain_percent,
                 "Percent by which a set must beat the default (and a more different set the "
                 "best) in paired runs to be kept (default 3; lower on a device whose runs "
                 "repeat closely)")
      ->check(CLI::Range(0.0, 50.0));
  app.add_flag("--fresh", o.fresh, "Ignore earlier results instead of resuming");
  app.add_flag("-q,--quiet", o.quiet, "No progress line");
  app.footer(
      "Examples:\n  clsort-tune --device gpu --budget 20m\n"
      "  clsort-tune --device cpu --classes 32:0 --sizes 16,20 --budget 2m -o cpu.json\n"
      "  clsort-tune --sizes 14,16,18 --into gpu.json --range 16384:262143");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::cerr << "clsort-tune: error: " << e.what() << "\n";
    return 1;
  }
}
