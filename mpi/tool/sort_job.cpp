// clsort-mpi sort: one file sorted by all ranks together, written by all ranks into one output.
#include "sort_job.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <optional>

#include <clsort/mpi.hpp>

#include "../src/collective.hpp"
#include "../src/host_threads.hpp"
#include "../src/selection.hpp"
#include "../src/stopwatch.hpp"
#include "input_error.hpp"
#include "mpi_files.hpp"
#include "output_paths.hpp"
#include "phase_report.hpp"
#include "rank_device.hpp"

namespace clsort::mpi {

namespace {

// The keys and their values, as the command line names them.
struct Inputs {
  ArrayFile keys;
  std::optional<ArrayFile> values;
};

// -o naming a folder puts the output there under the input's name, as clsort does.
SortArguments with_output_file(SortArguments args) {
  namespace fs = std::filesystem;
  if (fs::is_directory(args.output))
    args.output = (fs::path(args.output) / fs::path(args.input).filename()).string();
  return args;
}

Inputs describe_inputs(const SortArguments& args) {
  cli::refuse_bad_output_paths(
      {{"the input", args.input}, {"--values", args.values.value_or("")}},
      {{"-o", args.output}, {"--values-out", args.values_out.value_or("")}});
  Inputs inputs{describe_array(args.input, {std::nullopt, args.type, "--type", {}, 0}), {}};
  const ArrayFile& keys = inputs.keys;
  if (!keys.key_type || keys.item_size != key_size(*keys.key_type))
    throw cli::InputError(args.input, "dtype " + keys.descr + " cannot be a sort key");
  if (!args.values) return inputs;
  inputs.values =
      describe_array(*args.values, {std::nullopt, args.values_type, "--values-type", {}, 0});
  if (inputs.values->count != keys.count)
    throw cli::InputError(*args.values, "has " + std::to_string(inputs.values->count) +
                                            " values for " + std::to_string(keys.count) + " keys");
  if (!is_supported_value_size(inputs.values->item_size))
    throw cli::InputError(*args.values, "values of " + std::to_string(inputs.values->item_size) +
                                            " bytes cannot move with keys (1, 2, 4, 8 or 16)");
  return inputs;
}

// Big-endian .npy keys are sorted in native order and written back as they came.
void swap_bytes(HostBytes& items, std::size_t item_size) {
  for (std::uint64_t at = 0; at + item_size <= items.size; at += item_size)
    std::reverse(items.data.get() + at, items.data.get() + at + item_size);
}

// Progress on rank 0's terminal: the phase under way.
class ProgressLine {
 public:
  ProgressLine(bool root, bool quiet, std::ostream& log)
      : shown_(root && !quiet && ::isatty(STDERR_FILENO)), log_(log) {}
  ~ProgressLine() { show(""); }
  void show(const std::string& phase) {
    if (!shown_) return;
    log_ << "\r\033[K" << (phase.empty() ? "" : "clsort-mpi: " + phase + " ...") << std::flush;
  }

 private:
  bool shown_;
  std::ostream& log_;
};

// Where rank 0's summary goes, and what it says.
struct Summary {
  std::uint64_t keys = 0;
  int ranks = 1;
  double seconds = 0;
  PhaseSeconds phases{};
  std::string device;
};

void report(std::ostream& log, const SortArguments& args, KeyType type, const Summary& s) {
  log << std::fixed << std::setprecision(3) << "clsort-mpi: sorted " << s.keys << " "
      << to_string(type) << " keys of " << args.input << " -> " << args.output << " on " << s.ranks
      << " ranks in " << s.seconds << " s: " << std::setprecision(1) << std::setprecision(2)
      << s.keys / s.seconds / 1e6 << " Mkeys/s end to end\nclsort-mpi:   " << std::setprecision(3);
  print_phases(log, s.phases);
  log << "\n";
  if (args.verbose) log << "clsort-mpi:   rank 0 device: " << s.device << "\n";
}

}  // namespace

void sort_file(MPI_Comm comm, const SortArguments& given, std::ostream& log) {
  const SortArguments args = with_output_file(given);
  const int ranks = size_of(comm), me = rank_of(comm);
  const auto started = Clock::now();
  ProgressLine progress(me == 0, args.quiet, log);
  std::optional<Sorter> sorter;
  std::string device_name;
  progress.show("opening the device");
  on_every_rank(comm, "device", [&] {
    const DeviceEntry device = device_for_rank(comm, args.device);
    device_name = device.description.device_name + " (" + device.description.platform_name + ")";
    sorter.emplace(make_queue(device.device));
  });

  progress.show("reading");
  auto start = Clock::now();
  Inputs inputs;
  on_every_rank(comm, "read", [&] { inputs = describe_inputs(args); });
  const std::uint64_t total = inputs.keys.count;
  const std::uint64_t first = slice_start(total, ranks, me);
  const std::uint64_t count = slice_start(total, ranks, me + 1) - first;
  const std::size_t value_bytes = inputs.values ? inputs.values->item_size : 0;
  // The outputs are created before the work, so that an unwritable one fails the job at once.
  SliceOutput sorted(comm, args.output, output_header(args.output, inputs.keys.descr, total),
                     inputs.keys.item_size);
  std::optional<SliceOutput> moved;
  if (inputs.values)
    moved.emplace(comm, *args.values_out,
                  output_header(*args.values_out, inputs.values->descr, total), value_bytes);
  sorted.create();
  if (moved) moved->create();
  // Host buffers are touched on the rank's cores first: one thread's page faults would bound
  // reading into them and the exchange's copies.
  const unsigned threads = threads_per_rank(comm);
  HostBytes keys, values;
  on_every_rank(comm, "read", [&] { keys = read_part(comm, inputs.keys, first, count, threads); });
  if (inputs.values)
    on_every_rank(comm, "read",
                  [&] { values = read_part(comm, *inputs.values, first, count, threads); });
  if (inputs.keys.big_endian) swap_bytes(keys, inputs.keys.item_size);
  const double read_seconds = seconds_since(start);

  progress.show("sorting");
  const KeyType type = *inputs.keys.key_type;
  Options options;
  options.sort.descending = args.descending;
  options.sort.begin_bit = args.begin_bit;
  options.sort.end_bit = args.end_bit;
  options.max_message_bytes = args.max_message_bytes;
  options.merge = args.merge;
  HostBytes slice_keys, slice_values;
  const Slice where = sort_host_bytes(
      comm, *sorter, keys.data.get(), count, type, values.data.get(), value_bytes,
      [&](std::uint64_t items) {
        slice_keys = HostBytes(items * key_size(type), threads);
        slice_values = HostBytes(items * value_bytes, threads);
        return std::pair<void*, void*>(slice_keys.data.get(), slice_values.data.get());
      },
      options);
  keys = HostBytes();
  values = HostBytes();
  if (inputs.keys.big_endian) swap_bytes(slice_keys, inputs.keys.item_size);

  progress.show("writing");
  start = Clock::now();
  sorted.write(where.offset, slice_keys.data.get(), where.count);
  if (moved) moved->write(where.offset, slice_values.data.get(), where.count);
  sorted.close();
  if (moved) moved->close();
  sorted.publish();  // only now: every rank has written its slices of both
  if (moved) moved->publish();
  const double write_seconds = seconds_since(start);

  Summary summary{total, ranks, 0,
                  slowest(comm, phase_seconds(read_seconds, where.times, write_seconds)),
                  device_name};
  summary.seconds = seconds_since(started);
  MPI_Allreduce(MPI_IN_PLACE, &summary.seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  progress.show("");
  if (me == 0 && !args.quiet) report(log, args, type, summary);
}

}  // namespace clsort::mpi
