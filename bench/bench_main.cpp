// clsort-bench: times clsort, Boost.Compute's OpenCL sort and std::sort side by side.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>

#include <clsort/clsort.hpp>
#include <nlohmann/json.hpp>

#include "bench_inputs.hpp"
#include "boost_compute_sort.hpp"
#include "median.hpp"
#include "opencl_timing.hpp"

using namespace clsort;
using namespace clsort::bench;

namespace {

struct Options {
  std::string device;
  int min_log2 = 10, max_log2 = 28, step = 2;
  std::vector<std::uint64_t> sizes;  // key counts in place of the powers of two, where given
  std::vector<std::string> types{"u32", "u64", "f32", "f64"};
  std::vector<std::size_t> value_sizes{0, 4};
  std::vector<std::string> distributions{"uniform"};
  int warmup = 2, repeats = 10;
  int host_max_log2 = 24;
  bool boost = true;
  std::string csv;
  std::string params_json;          // fixed parameters for clsort instead of the device's defaults
  std::optional<unsigned> end_bit;  // sort only the low bits (separates per-pass cost)
  ConstantPassCheck pass_check = ConstantPassCheck::after_first_pass;
  bool wall_clock = false;   // host clock around enqueue + finish instead of events
  bool return_event = true;  // SortOptions::return_event
  bool host_data = false;    // also time clsort on host arrays (Sorter::sort_host_bytes)
  bool first_sorts = false;  // every run on a new Sorter: no sort learns from an earlier one
  bool into = false;         // also time clsort into other buffers (Sorter::sort_into)
};

// The key counts to time: --sizes as given, else the powers of two from --min-log2 to --max-log2.
std::vector<std::uint64_t> key_counts(const Options& o) {
  if (!o.sizes.empty()) return o.sizes;
  std::vector<std::uint64_t> counts;
  for (int log2n = o.min_log2; log2n <= o.max_log2; log2n += o.step)
    counts.push_back(std::uint64_t{1} << log2n);
  return counts;
}

// clsort's row name: the bit range and constant-pass check, where not the defaults.
std::string clsort_name(const Options& o) {
  std::string name = "clsort";
  if (o.end_bit) name += "/" + std::to_string(*o.end_bit) + "b";
  if (o.pass_check == ConstantPassCheck::before_first_pass) name += "/check-first";
  if (o.pass_check == ConstantPassCheck::never) name += "/no-check";
  if (!o.return_event) name += "/no-event";
  if (o.first_sorts) name += "/first";
  if (!o.params_json.empty()) name += "*";
  return name;
}

// Median milliseconds of `sort` over the repeats after warm-ups; each run starts from the
// pristine input, restored on the device (and `before_run` called) before the timed bracket opens.
template <class Sort, class BeforeRun = void (*)()>
double time_device(
    Timer& timer, const Options& o, DeviceInput& input, Sort&& sort,
    BeforeRun&& before_run = [] {}) {
  std::vector<double> ms;
  for (int r = 0; r < o.warmup + o.repeats; ++r) {
    input.restore();
    before_run();
    const double t = timer.measure(sort);
    if (r >= o.warmup) ms.push_back(t);
  }
  return median(ms);
}

double time_std_sort(const std::vector<unsigned char>& bytes, KeyType type, const Options& o) {
  return with_key_type(type, [&](auto tag) {
    using K = typename decltype(tag)::type;
    std::vector<double> ms;
    for (int r = 0; r < std::max(1, o.repeats / 3) + 1; ++r) {
      std::vector<K> keys(bytes.size() / sizeof(K));
      std::memcpy(keys.data(), bytes.data(), bytes.size());
      const auto start = std::chrono::steady_clock::now();
      std::sort(keys.begin(), keys.end(),
                [](K a, K b) { return ordered_bits(a) < ordered_bits(b); });
      if (r > 0)
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
    }
    return median(ms);
  });
}

// True if the n keys at `keys` are in clsort's order over the options' bit range.
template <class K>
bool in_order(const K* keys, std::uint64_t n, const SortOptions& options) {
  const unsigned bits = options.end_bit.value_or(sizeof(K) * 8);
  const auto field = [&](K k) {
    const std::uint64_t o = ordered_bits(k);
    return bits >= 64 ? o : o & ((std::uint64_t{1} << bits) - 1);
  };
  for (std::uint64_t i = 1; i < n; ++i)
    if (field(keys[i]) < field(keys[i - 1])) return false;
  return true;
}

// True if the device buffer holds n keys of `type` in clsort's order (checked after timing, so a
// fast wrong answer is never reported as a result).
bool sorted_on_device(const cl::CommandQueue& queue, const cl::Buffer& buffer, std::uint64_t n,
                      KeyType type, const SortOptions& options) {
  return with_key_type(type, [&](auto tag) {
    using K = typename decltype(tag)::type;
    std::vector<K> keys(n);
    queue.enqueueReadBuffer(buffer, CL_TRUE, 0, n * sizeof(K), keys.data());
    return in_order(keys.data(), n, options);
  });
}

// Median milliseconds of Sorter::sort_into (sort_pairs_into) from the input's buffers into
// others, allocated once; -1 if the last run's keys are out of order.
template <class BeforeRun>
double time_sort_into(Timer& timer, const Options& o, Sorter& sorter, DeviceInput& input,
                      std::uint64_t n, KeyType type, std::size_t value_bytes,
                      const SortOptions& options, BeforeRun&& before_run) {
  const cl::Context context = input.queue.getInfo<CL_QUEUE_CONTEXT>();
  const cl::Buffer keys_out(context, CL_MEM_READ_WRITE, input.key_size);
  const cl::Buffer values_out =
      value_bytes ? cl::Buffer(context, CL_MEM_READ_WRITE, input.value_size) : cl::Buffer();
  const double ms = time_device(
      timer, o, input,
      [&] {
        value_bytes ? sorter.sort_pairs_into(input.keys, input.values, keys_out, values_out, n,
                                             type, value_bytes, options)
                    : sorter.sort_into(input.keys, keys_out, n, type, options);
      },
      before_run);
  return sorted_on_device(input.queue, keys_out, n, type, options) ? ms : -1;
}

// Median milliseconds of Sorter::sort_host_bytes on host copies of the input, restored outside
// the timed bracket (the call is synchronous: transfers, sort and read-back); -1 if the last
// run's keys are out of order.
double time_host_data(Sorter& sorter, const Options& o, const std::vector<unsigned char>& input,
                      KeyType type, std::size_t value_bytes, const SortOptions& options) {
  const std::uint64_t n = input.size() / key_size(type);
  std::vector<unsigned char> keys(input.size()), values(n * value_bytes);
  std::vector<double> ms;
  for (int r = 0; r < o.warmup + o.repeats; ++r) {
    std::copy(input.begin(), input.end(), keys.begin());
    std::fill(values.begin(), values.end(), 7);
    const auto start = std::chrono::steady_clock::now();
    sorter.sort_host_bytes(keys.data(), n, type, value_bytes ? values.data() : nullptr, value_bytes,
                           options);
    const auto end = std::chrono::steady_clock::now();
    if (r >= o.warmup) ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
  }
  const bool sorted = with_key_type(type, [&](auto tag) {
    using K = typename decltype(tag)::type;
    return in_order(reinterpret_cast<const K*>(keys.data()), n, options);
  });
  return sorted ? median(ms) : -1;
}

void report(const Row& row, std::ostream* csv) {
  std::cout << std::left << std::setw(13) << row.implementation << " " << std::setw(5)
            << row.key_type << std::setw(4) << row.value_bytes << std::setw(9) << row.distribution
            << std::right << std::setw(11) << row.n << std::fixed << std::setprecision(3)
            << std::setw(11) << row.median_ms << " ms" << std::setprecision(2) << std::setw(9)
            << row.gkeys_per_s() << " Gkeys/s" << std::endl;
  if (csv) *csv << csv_line(row) << std::endl;
}

// The profile clsort runs and those the search passed over, so that a run's rows say what they
// measured: a profile tuned for other kernels is skipped for the built-in defaults.
void print_profile(const Sorter& sorter, const cl::Device& device, bool fixed_params) {
  if (fixed_params) {
    std::cout << "profile: none (--params)" << std::endl;
    return;
  }
  const std::string& path = sorter.profile_path();
  std::cout << "profile: " << (path.empty() ? "none (the built-in defaults)" : path) << std::endl;
  for (const std::string& skipped : find_profile(device).skipped)
    std::cout << "profile skipped: " << skipped << std::endl;
}

// Times every requested size, type and distribution; returns the exit status.
int run(const Options& o) {
  const DeviceEntry device = find_device(o.device);
  const cl::CommandQueue queue =
      make_queue(device.device, o.wall_clock ? 0 : CL_QUEUE_PROFILING_ENABLE);
  const std::string device_name = device.description.device_name;
  std::cout << "device: " << device_name << " (" << device.description.platform_name << "), driver "
            << device.device.getInfo<CL_DRIVER_VERSION>() << std::endl;
  std::ofstream csv_file;
  if (!o.csv.empty()) {
    csv_file.open(o.csv);
    csv_file << csv_header() << std::endl;
  }
  std::ostream* csv = o.csv.empty() ? nullptr : &csv_file;
  const auto new_sorter = [&] {
    return o.params_json.empty()
               ? Sorter(queue)
               : Sorter(queue, nlohmann::json::parse(o.params_json).get<Params>());
  };
  Sorter sorter = new_sorter();
  print_profile(sorter, device.device, !o.params_json.empty());
  Timer timer(queue, o.wall_clock);
  const std::uint64_t max_alloc = device.device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();

  for (const std::string& type_name : o.types) {
    const KeyType type = *parse_key_type(type_name);
    for (std::size_t value_bytes : o.value_sizes) {
      for (const std::string& distribution : o.distributions) {
        for (const std::uint64_t n : key_counts(o)) {
          if (n * std::max(key_size(type), value_bytes) > max_alloc) break;
          auto keys = make_key_bytes(distribution, n, key_size(type), input_seed(n));
          std::vector<unsigned char> values(n * value_bytes, 7);
          Row row{clsort_name(o), device_name, type_name, value_bytes, distribution, n, 0};
          DeviceInput input(queue, keys, values);
          sorter.prepare(type, value_bytes, n);
          SortOptions options;
          options.end_bit = o.end_bit;
          options.constant_pass_check = o.pass_check;
          options.return_event = o.return_event;
          // With --first-sorts each run gets a new Sorter, its kernels from the in-memory
          // program cache and its buffers prepared before the timed bracket.
          const auto renew_sorter = [&] {
            if (!o.first_sorts) return;
            sorter = new_sorter();
            sorter.prepare(type, value_bytes, n);
          };
          row.median_ms = time_device(
              timer, o, input,
              [&] {
                value_bytes
                    ? sorter.sort_pairs(input.keys, input.values, n, type, value_bytes, options)
                    : sorter.sort(input.keys, n, type, options);
              },
              renew_sorter);
          if (!sorted_on_device(queue, input.keys, n, type, options)) {
            std::cerr << "clsort-bench: clsort returned unsorted " << type_name
                      << " keys at n = " << n << "; no figure reported" << std::endl;
            return 1;
          }
          report(row, csv);
          if (o.into) {
            row.implementation = clsort_name(o) + "/into";
            row.median_ms = time_sort_into(timer, o, sorter, input, n, type, value_bytes, options,
                                           renew_sorter);
            if (row.median_ms < 0) {
              std::cerr << "clsort-bench: clsort returned unsorted " << type_name
                        << " keys into other buffers at n = " << n << "; no figure reported"
                        << std::endl;
              return 1;
            }
            report(row, csv);
          }
          if (o.host_data) {
            row.implementation = clsort_name(o) + "/host";
            row.median_ms = time_host_data(sorter, o, keys, type, value_bytes, options);
            if (row.median_ms < 0) {
              std::cerr << "clsort-bench: clsort returned unsorted host " << type_name
                        << " keys at n = " << n << "; no figure reported" << std::endl;
              return 1;
            }
            report(row, csv);
          }
          if (o.boost && boost_compute_supports(type, value_bytes)) {
            row.implementation = "boost.compute";
            row.median_ms = time_device(timer, o, input, [&] {
              boost_compute_sort(queue, input.keys, input.values, n, type, value_bytes);
            });
            report(row, csv);
          }
          if (value_bytes == 0 && n <= (std::uint64_t{1} << o.host_max_log2)) {
            row.implementation = "std::sort";
            row.device = "host";
            row.median_ms = time_std_sort(keys, type, o);
            report(row, csv);
          }
        }
      }
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"clsort-bench: clsort vs Boost.Compute vs std::sort, OpenCL event timing"};
  app.add_option("--device", o.device, "Device specification (as clsort sort --device)");
  app.add_option("--min-log2", o.min_log2, "Smallest n as a power of two");
  app.add_option("--max-log2", o.max_log2, "Largest n (capped by device memory)");
  app.add_option("--step", o.step, "Power-of-two step between sizes");
  app.add_option("--sizes", o.sizes,
                 "Key counts to time instead of the powers of two, e.g. 2048,3000")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--types", o.types, "Key types")->delimiter(',');
  app.add_option("--values", o.value_sizes, "Value sizes in bytes, 0 for keys only")
      ->delimiter(',');
  app.add_option("--distributions", o.distributions, "Key distributions")
      ->delimiter(',')
      ->check(CLI::IsMember(distributions()));
  app.add_option("--warmup", o.warmup, "Untimed runs first");
  app.add_option("--repeats", o.repeats, "Timed runs (the median is reported)");
  app.add_option("--host-max-log2", o.host_max_log2, "Largest n for std::sort");
  app.add_flag("!--no-boost", o.boost, "Skip Boost.Compute");
  app.add_option("--csv", o.csv, "Also write rows to this CSV file");
  app.add_option("--params", o.params_json, "clsort parameters as JSON (default: the device's)");
  app.add_flag("--wall-clock", o.wall_clock,
               "Time with the host clock around the sort call and finish() (launches included)");
  app.add_flag("!--no-event", o.return_event,
               "clsort's sorts return no event (SortOptions::return_event = false)");
  app.add_flag("--host-data", o.host_data,
               "Also time clsort on host arrays (Sorter::sort_host_bytes: transfers included)");
  app.add_flag("--into", o.into,
               "Also time clsort from the input buffers into others (Sorter::sort_into)");
  app.add_flag("--first-sorts", o.first_sorts,
               "Time every run on a new Sorter (prepared outside the timing), so that no sort "
               "reuses what an earlier one learned about the keys");
  app.add_option("--end-bit", o.end_bit, "clsort sorts only bits [0, END) (anchors: all bits)");
  const std::map<std::string, ConstantPassCheck> pass_checks{
      {"after-first", ConstantPassCheck::after_first_pass},
      {"before-first", ConstantPassCheck::before_first_pass},
      {"never", ConstantPassCheck::never}};
  app.add_option(
         "--pass-check", o.pass_check,
         "When clsort looks for constant passes: after-first (default), before-first, never")
      ->transform(CLI::CheckedTransformer(pass_checks));
  CLI11_PARSE(app, argc, argv);
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::cerr << "clsort-bench: error: " << e.what() << std::endl;
    return 1;
  }
}
