// The sort command: load, validate, sort on the device, write outputs atomically, report.
#include "sort_command.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <memory>

#include <clsort/clsort.hpp>

#include "array_file.hpp"
#include "atomic_file.hpp"
#include "input_error.hpp"
#include "reorder.hpp"

namespace clsort::cli {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Index of the first key out of order, or count if sorted.
std::uint64_t first_unsorted(ArrayFile& keys, bool descending) {
  return with_key_type(*keys.key_type, [&]<class K>() -> std::uint64_t {
    const char* data = keys.data();
    const auto key = [&](std::uint64_t i) {
      K k;
      std::memcpy(&k, data + i * sizeof(K), sizeof(K));
      return ordered_bits(k, descending);
    };
    for (std::uint64_t i = 1; i < keys.count; ++i)
      if (key(i) < key(i - 1)) return i;
    return keys.count;
  });
}

int run_check(ArrayFile& keys, bool descending, std::ostream& log) {
  const std::uint64_t position = first_unsorted(keys, descending);
  if (position == keys.count) {
    log << keys.path << ": sorted (" << keys.count << " keys)\n";
    return 0;
  }
  log << keys.path << ": not sorted: element " << position << " is out of order\n";
  return 1;
}

ArrayFile load_values(const SortArguments& args, const ArrayFile& keys) {
  ArrayFile values = load_array(*args.values, args.values_type, "--values-type");
  if (values.count != keys.count)
    throw InputError(values.path, "has " + std::to_string(values.count) + " values but " +
                                      keys.path + " has " + std::to_string(keys.count) + " keys");
  if (!is_supported_value_size(values.item_size))
    throw InputError(values.path, std::to_string(values.item_size) +
                                      "-byte values are not supported (1, 2, 4, 8 or 16 bytes)");
  return values;
}

// An explicit blocking write, so that the transfer is done before the sort is timed (drivers
// may defer a CL_MEM_COPY_HOST_PTR copy to the buffer's first use).
cl::Buffer upload(const cl::CommandQueue& queue, ArrayFile& array) {
  const std::size_t bytes = array.count * array.item_size;
  cl_int status = CL_SUCCESS;
  cl::Buffer buffer(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE, bytes, nullptr, &status);
  if (status == CL_SUCCESS)
    status = queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, bytes, array.data());
  if (status != CL_SUCCESS)
    throw Error("upload", array.path + " (" + std::to_string(bytes) + " bytes)", status);
  return buffer;
}

void download(const cl::CommandQueue& queue, const cl::Buffer& buffer, ArrayFile& array) {
  const cl_int status =
      queue.enqueueReadBuffer(buffer, CL_TRUE, 0, array.count * array.item_size, array.data());
  if (status != CL_SUCCESS) throw Error("download", array.path, status);
}

struct SortTiming {
  double device_seconds = 0;
  std::string device_name;
};

// Sorts keys on the device, moving `values` (values or positions, may be null) with them.
SortTiming sort_on_device(const SortArguments& args, ArrayFile& keys, ArrayFile* values) {
  const char* env = std::getenv("CLSORT_DEVICE");
  const DeviceEntry device = find_device(args.device.value_or(env ? env : ""));
  SortTiming timing;
  timing.device_name =
      device.description.device_name + " (" + device.description.platform_name + ")";
  if (keys.count == 0) return timing;
  const cl::CommandQueue queue = make_queue(device.device);
  Sorter sorter(queue);
  const std::size_t value_bytes = values ? values->item_size : 0;
  sorter.prepare(*keys.key_type, value_bytes, keys.count);

  const cl::Buffer key_buffer = upload(queue, keys);
  const cl::Buffer value_buffer = values ? upload(queue, *values) : cl::Buffer();
  SortOptions options{.descending = args.descending,
                      .begin_bit = args.begin_bit.value_or(0),
                      .end_bit = args.end_bit};
  const auto start = Clock::now();
  cl::Event done = values ? sorter.sort_pairs(key_buffer, value_buffer, keys.count, *keys.key_type,
                                              value_bytes, options)
                          : sorter.sort(key_buffer, keys.count, *keys.key_type, options);
  if (const cl_int status = done.wait(); status != CL_SUCCESS)
    throw Error("sort", "waiting", status);
  timing.device_seconds = seconds_since(start);
  download(queue, key_buffer, keys);
  if (values) download(queue, value_buffer, *values);
  return timing;
}

// Writes every output to a temporary file first: all are complete before any appears.
void write_outputs(const std::vector<std::pair<std::string, ArrayFile*>>& outputs) {
  std::vector<std::unique_ptr<AtomicFile>> files;
  for (const auto& [path, array] : outputs) {
    files.push_back(std::make_unique<AtomicFile>(path));
    write_array(*files.back(), path, *array);
  }
  for (auto& file : files) file->commit();
}

}  // namespace

CLI::App* add_sort_command(CLI::App& app, SortArguments& args) {
  CLI::App* sort = app.add_subcommand("sort", "Sort a .npy or raw binary file of numbers");
  sort->add_option("input", args.input, "Input file: .npy (1-D, little-endian numeric) or raw")
      ->required();
  sort->add_option("-o,--output", args.output, "Output file (same format as its extension says)");
  sort->add_option("--type", args.type,
                   "Element type of a raw input: u8 u16 u32 u64 i8 i16 i32 i64 f32 f64");
  sort->add_flag("--descending", args.descending, "Largest first (NaNs still last; stable)");
  sort->add_option("--values", args.values, "Values file moved with the keys (.npy or raw)");
  sort->add_option("--values-out", args.values_out, "Where the reordered values go");
  sort->add_option("--values-type", args.values_type, "Element type of a raw values file");
  sort->add_option("--begin-bit", args.begin_bit, "Sort by ordered-key bits from this one");
  sort->add_option("--end-bit", args.end_bit, "... up to (not including) this one");
  sort->add_option(
      "--device", args.device,
      "Device: P:D, cpu, gpu or a name substring (default: $CLSORT_DEVICE, else first GPU)");
  sort->add_option(
      "--argsort", args.argsort,
      "Also write the stable sorting permutation here (u32 below 2^32 keys, else u64)");
  sort->add_flag("--unique", args.unique, "Keep only the first of equal keys (and its values)");
  sort->add_flag("--check", args.check, "Only check whether the input is sorted (exit 1 if not)");
  sort->add_flag("-v,--verbose", args.verbose, "Also report how kernels were built");
  sort->footer(
      "Examples:\n"
      "  clsort sort data.npy -o sorted.npy\n"
      "  clsort sort keys.u32 --type u32 -o keys.sorted.u32 --descending\n"
      "  clsort sort k.npy --values v.npy -o k.sorted.npy --values-out v.sorted.npy --device gpu\n"
      "  clsort sort data.npy -o uniq.npy --unique --argsort order.npy\n"
      "  clsort sort --check sorted.npy");
  return sort;
}

int run_sort(const SortArguments& args, std::ostream& log) {
  const auto start = Clock::now();
  ArrayFile keys = load_array(args.input, args.type, "--type");
  if (!keys.key_type)
    throw InputError(keys.path, "dtype '" + keys.descr + "' cannot be a sort key (only a value)");
  if (args.check) return run_check(keys, args.descending, log);
  if (args.output.empty()) throw InputError("", "give the output file with -o");
  if (args.values.has_value() != args.values_out.has_value())
    throw InputError("", "--values and --values-out go together");
  std::optional<ArrayFile> values;
  if (args.values) values = load_values(args, keys);
  // With --argsort the device moves positions, and values (if any) follow them on the host.
  std::optional<ArrayFile> positions;
  if (args.argsort) positions = make_positions(*args.argsort, keys.count);
  ArrayFile* moved = positions ? &*positions : values ? &*values : nullptr;

  const SortTiming timing = sort_on_device(args, keys, moved);
  if (positions && values) gather(*values, *positions);
  const std::uint64_t sorted = keys.count;
  if (args.unique)
    keep_first_of_equal_keys(keys, {values ? &*values : nullptr, positions ? &*positions : nullptr},
                             args.begin_bit.value_or(0), args.end_bit);
  std::vector<std::pair<std::string, ArrayFile*>> outputs{{args.output, &keys}};
  if (values) outputs.emplace_back(*args.values_out, &*values);
  if (positions) outputs.emplace_back(*args.argsort, &*positions);
  write_outputs(outputs);

  const double total = seconds_since(start);
  log << std::fixed << std::setprecision(3) << "clsort: sorted " << sorted << " "
      << to_string(*keys.key_type) << " keys" << (values ? " with values" : "")
      << (args.unique ? " (" + std::to_string(keys.count) + " unique)" : "") << " on "
      << timing.device_name << ": sort " << timing.device_seconds << " s";
  if (timing.device_seconds > 0)
    log << " (" << std::setprecision(1) << sorted / timing.device_seconds / 1e6 << " Mkeys/s)";
  log << std::setprecision(3) << ", " << total << " s in all -> " << args.output
      << (values ? " and " + *args.values_out : "") << (positions ? " and " + *args.argsort : "")
      << "\n";
  if (args.verbose) {
    const BuildStatistics built = build_statistics();
    log << "clsort: kernels: " << built.compiled << " compiled, " << built.loaded_from_disk
        << " loaded from the disk cache\n";
  }
  return 0;
}

}  // namespace clsort::cli
