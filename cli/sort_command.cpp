// The sort command: its options, which output each input gets, the device, and the summary.
#include "sort_command.hpp"

#include <unistd.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <set>

#include <clsort/clsort.hpp>

#include "batch.hpp"
#include "check.hpp"
#include "input_error.hpp"
#include "memory_budget.hpp"
#include "output_paths.hpp"

namespace clsort::cli {
namespace {

namespace fs = std::filesystem;

void check_option_combinations(const SortArguments& args) {
  const bool several = args.inputs.size() > 1;
  if (args.in_place && args.output) throw UsageError("--in-place and -o exclude each other");
  if (several && !args.in_place && !args.output && !args.check)
    throw UsageError("several inputs need -o FOLDER or --in-place");
  if (args.values.has_value() != args.values_out.has_value())
    throw UsageError("--values and --values-out go together");
  if (several && (args.values || args.argsort))
    throw UsageError("--values and --argsort take a single input");
  if (args.key_offset && !args.record_size) throw UsageError("--key-offset needs --record-size");
  if (args.values_out == "-" || args.argsort == "-")
    throw UsageError("only the sorted keys can go to standard output");
  if (args.values == "-" && args.inputs == std::vector<std::string>{"-"})
    throw UsageError("keys and values cannot both come from standard input");
}

ReadOptions read_options(const SortArguments& args) {
  ReadOptions read;
  if (args.format) read.format = parse_format(*args.format);
  read.type = args.type;
  read.record_size = args.record_size;
  read.key_offset = args.key_offset.value_or(0);
  return read;
}

// Where the sorted data of `input` goes: standard output, the input itself, -o, or -o's folder.
std::string sorted_destination(const SortArguments& args, const std::string& input) {
  if (args.in_place) {
    if (input == "-") throw UsageError("standard input cannot be sorted --in-place");
    return input;
  }
  if (!args.output) return "-";
  if (!fs::is_directory(*args.output)) {
    if (args.inputs.size() > 1)
      throw UsageError("-o " + *args.output +
                       ": with several inputs, -o must be an existing folder");
    return *args.output;
  }
  if (input == "-") throw UsageError("standard input needs -o FILE, not a folder");
  return (fs::path(*args.output) / fs::path(input).filename()).string();
}

std::vector<FileTask> plan_tasks(const SortArguments& args) {
  std::vector<FileTask> tasks;
  std::set<std::string> destinations;
  for (const std::string& input : args.inputs) {
    FileTask task{input, {sorted_destination(args, input), args.values_out, args.argsort}};
    const std::string& sorted = task.outputs.sorted;
    if (!args.in_place && sorted != "-" && same_file(input, sorted))
      throw UsageError("-o " + sorted + " is the input itself; use --in-place to replace it");
    if (sorted != "-" && !destinations.insert(fs::absolute(sorted).lexically_normal()).second)
      throw UsageError("two inputs would both be written to " + sorted);
    refuse_bad_output_paths({{"the input", input}, {"--values", args.values.value_or("")}},
                            {{"-o", args.in_place ? "" : sorted},
                             {"--values-out", args.values_out.value_or("")},
                             {"--argsort", args.argsort.value_or("")}});
    tasks.push_back(std::move(task));
  }
  return tasks;
}

std::uint64_t total_input_bytes(const std::vector<std::string>& inputs) {
  std::uint64_t total = 0;
  for (const std::string& input : inputs) {
    std::error_code error;
    const auto size = input == "-" ? 0 : fs::file_size(input, error);
    if (!error) total += size;
  }
  return total;
}

int run_checks(const SortArguments& args, std::uint64_t budget, std::ostream& log) {
  const SortOptions options{args.descending, args.begin_bit.value_or(0), args.end_bit};
  bool all_sorted = true;
  for (const std::string& input : args.inputs) {
    try {
      all_sorted &= check_sorted(input, read_options(args), options, budget, log);
    } catch (const std::exception& e) {
      log << "clsort: error: " << e.what() << "\n";
      all_sorted = false;
    }
  }
  return all_sorted ? 0 : 1;
}

void report_summary(const BatchTotals& totals, double seconds, const std::string& device,
                    std::ostream& log) {
  const double rate = seconds > 0 ? totals.keys / seconds : 0;
  log << std::fixed << std::setprecision(3) << "clsort: " << totals.files_sorted << " file"
      << (totals.files_sorted == 1 ? "" : "s") << ", " << totals.keys << " keys ("
      << std::setprecision(1) << totals.bytes / 1e6 << " MB) in " << std::setprecision(3) << seconds
      << " s: " << std::setprecision(1) << rate / 1e6 << " Mkeys/s, "
      << (seconds > 0 ? totals.bytes / seconds / 1e6 : 0) << " MB/s end to end on " << device;
  if (totals.out_of_core_files) log << "; " << totals.out_of_core_files << " out of core";
  if (totals.files_failed) log << "; " << totals.files_failed << " failed";
  log << "\n";
}

}  // namespace

CLI::App* add_sort_command(CLI::App& app, SortArguments& args) {
  CLI::App* sort = app.add_subcommand(
      "sort", "Sort files of numbers (.npy, raw binary, text) or fixed-size binary records");
  sort->add_option("inputs", args.inputs, "Input files; - reads standard input")->required();
  sort->add_option("-o,--output", args.output,
                   "Output file, or existing folder (several inputs); default: standard output");
  sort->add_flag("--in-place", args.in_place, "Replace each input by its sorted version (atomic)");
  sort->add_option("--format", args.format, "Input format (default: by extension; .npy, .txt)")
      ->check(CLI::IsMember({"npy", "raw", "text"}));
  sort->add_option("--type", args.type,
                   "Key type of raw and text inputs: u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 "
                   "(text default: i64 if every line is an integer, else f64)");
  sort->add_option("--record-size", args.record_size,
                   "Raw input of records of this many bytes, sorted by a --type key ...");
  sort->add_option("--key-offset", args.key_offset, "... at this byte offset in the record");
  sort->add_flag("--descending", args.descending, "Largest first (NaNs still last; stable)");
  sort->add_option("--values", args.values, "Values file moved with the keys (.npy or raw)");
  sort->add_option("--values-out", args.values_out, "Where the reordered values go");
  sort->add_option("--values-type", args.values_type, "Element type of a raw values file");
  sort->add_option("--argsort", args.argsort,
                   "Also write the stable sorting permutation here (u32 below 2^32, else u64)");
  sort->add_flag("--unique", args.unique, "Keep only the first of equal keys (and its values)");
  sort->add_flag("--check", args.check,
                 "Only check whether each input is sorted (exit 1 if one is not)");
  sort->add_option("--begin-bit", args.begin_bit, "Sort by ordered-key bits from this one");
  sort->add_option("--end-bit", args.end_bit, "... up to (not including) this one");
  sort->add_option("-S,--memory", args.memory,
                   "Memory budget for the data held at once, on the host or the device, e.g. "
                   "512M, 8G (default: half the available memory). Plain keys and values are "
                   "sorted whole when twice their size fits (peak about 2x the data), else in "
                   "runs of a quarter of it that are merged; records, --argsort and --unique "
                   "take chunks of a third of it, sorted through host memory (peak about 2x -S)")
      ->transform(CLI::AsSizeValue(false));
  sort->add_option("-T,--temporary-directory", args.temporary_folder,
                   "Folder for the sorted runs of out-of-core inputs (default: $TMPDIR or /tmp); "
                   "they take the input's size and vanish with the process");
  sort->add_option("--merge", args.merge,
                   "Where out-of-core runs are merged: host (key ranges on all cores), device "
                   "(each key range sorted on the device; plain keys and values only) or auto "
                   "(the device where it can, else the host)")
      ->check(CLI::IsMember({"auto", "host", "device"}));
  sort->add_option(
      "--device", args.device,
      "Device: P:D, cpu, gpu or a name substring (default: $CLSORT_DEVICE, else first GPU)");
  sort->add_option("--profile", args.profile,
                   "Tuning profile to use (default: the device's, as 'clsort devices' shows)");
  sort->add_flag("-q,--quiet", args.quiet, "No progress bar and no summary; errors only");
  sort->add_flag("-v,--verbose", args.verbose, "Also a line per input, and how kernels were built");
  sort->footer(
      "Examples:\n"
      "  clsort sort data.npy -o sorted.npy\n"
      "  clsort sort *.npy -o sorted/                  # a batch into a folder\n"
      "  clsort sort --in-place run1.u32 run2.u32 --type u32\n"
      "  clsort sort numbers.txt > sorted.txt           # like sort -n, lines kept as written\n"
      "  cat keys.u64 | clsort sort - --type u64 --descending > desc.u64\n"
      "  clsort sort table.bin --record-size 24 --key-offset 8 --type f64 -o by-price.bin\n"
      "  clsort sort k.npy --values v.npy -o k.sorted.npy --values-out v.sorted.npy\n"
      "  clsort sort data.npy -o uniq.npy --unique --argsort order.npy\n"
      "  clsort sort huge.u32 --type u32 -S 2G -T /scratch -o huge.sorted.u32\n"
      "  clsort sort --check a.npy b.npy");
  return sort;
}

int run_sort(const SortArguments& args, std::ostream& log) {
  check_option_combinations(args);
  const std::uint64_t budget = args.memory.value_or(default_memory_budget());
  if (args.check) return run_checks(args, budget, log);
  const std::vector<FileTask> tasks = plan_tasks(args);

  const char* env = std::getenv("CLSORT_DEVICE");
  const DeviceEntry device = find_device(args.device.value_or(env ? env : ""));
  const ProfileSearch profile = find_profile(device.device, args.profile);
  Sorter sorter = profile.profile
                      ? Sorter(make_queue(device.device), *profile.profile, profile.path)
                      : Sorter(make_queue(device.device));
  BatchSettings settings;
  settings.read = read_options(args);
  settings.values = args.values;
  settings.values_read.type = args.values_type;
  settings.values_read.type_option = "--values-type";
  settings.options = {args.descending, args.begin_bit.value_or(0), args.end_bit};
  settings.unique = args.unique;
  settings.memory_budget = budget;
  const char* tmpdir = std::getenv("TMPDIR");
  settings.temporary_folder = args.temporary_folder.value_or(tmpdir && *tmpdir ? tmpdir : "/tmp");
  settings.merge = args.merge == "host"     ? MergeMode::host
                   : args.merge == "device" ? MergeMode::device
                                            : MergeMode::automatic;
  settings.verbose = args.verbose;
  Progress progress(!args.quiet && ::isatty(STDERR_FILENO), total_input_bytes(args.inputs));

  const auto start = std::chrono::steady_clock::now();
  const BatchTotals totals = run_batch(sorter, tasks, settings, progress, log);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!args.quiet)
    report_summary(totals, seconds,
                   device.description.device_name + " (" + device.description.platform_name + ")",
                   log);
  if (args.verbose) {
    log << "clsort: parameters: "
        << (profile.profile ? "profile " + profile.path + " (" + profile.match + ")"
                            : std::string("built-in defaults"))
        << "\n";
    for (const std::string& skipped : profile.skipped) log << "clsort: skipped " << skipped << "\n";
    const BuildStatistics built = build_statistics();
    log << "clsort: kernels: " << built.compiled << " compiled, " << built.loaded_from_disk
        << " loaded from the disk cache\n";
  }
  return totals.files_failed ? 1 : 0;
}

}  // namespace clsort::cli
