// The batch pipeline: a reader thread, the device sort on the calling thread, a writer thread.
// Each input flows through as chunks: one whole chunk, whole rows, or sorted runs to merge.
// Plain keys stream between files and device memory; other inputs go through host memory.
#include "batch.hpp"

#include <chrono>
#include <future>
#include <iomanip>
#include <memory>
#include <mutex>
#include <thread>

#include "device_chunks.hpp"
#include "device_transfer.hpp"
#include "input_error.hpp"
#include "memory_budget.hpp"
#include "npy.hpp"
#include "run_merge.hpp"
#include "run_store.hpp"
#include "serial_worker.hpp"
#include "text_keys.hpp"

namespace clsort::cli {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Seconds spent in each phase of one input (-v reports them).
struct PhaseTimes {
  double read = 0, upload = 0, sort = 0, download = 0, write = 0, fsync = 0, merge = 0;
};

// One input on its way through. The reader sets up everything above `out_of_core` before it
// hands over the first chunk and changes none of it later; the writer owns what follows.
struct FileState {
  const FileTask* task = nullptr;
  std::unique_ptr<InputFile> input;
  std::unique_ptr<InputFile> values;
  std::optional<TextKeys> text;
  SortSpec spec;
  bool streamed = false;  // plain keys (and values) that go straight to device memory
  std::uint64_t chunk_items = 0;
  std::uint64_t input_bytes = 0;
  bool out_of_core = false;      // more than one chunk, 1-D: sorted runs are merged at the end
  std::uint64_t items_read = 0;  // reader only

  std::unique_ptr<RunStore> runs;
  std::unique_ptr<FileOutputs> outputs;
  std::string error;
  std::uint64_t keys = 0;
  PhaseTimes phases;  // read and upload by the reader, sort by the sorter, the rest by the writer
  std::size_t merge_ranges = 0;
  bool merged_on_device = false;
  Clock::time_point started;  // set by the reader as it opens the input
  bool shown = false;         // writer: the progress line shows this input
};

// One chunk of one input, passed from stage to stage. No file: the batch is done.
struct Work {
  std::shared_ptr<FileState> file;
  Chunk chunk;
  std::shared_ptr<DeviceChunk> device;  // the chunk's data, for streamed inputs
  std::uint64_t input_items = 0;
  std::uint64_t input_bytes = 0;
  bool last = false;
  std::string error;
};

// The one Sorter, shared by the sort stage and a writer that merges on the device.
struct SharedSorter {
  Sorter& sorter;
  std::mutex mutex;

  void sort_device(const SortSpec& spec, DeviceChunk& chunk, std::uint64_t count) {
    std::lock_guard<std::mutex> lock(mutex);
    const KeyType type = *spec.layout.key_type;
    cl::Event done = spec.value_size ? sorter.sort_pairs(chunk.keys, chunk.values, count, type,
                                                         spec.value_size, spec.options)
                                     : sorter.sort(chunk.keys, count, type, spec.options);
    if (const cl_int status = done.wait(); status != CL_SUCCESS)
      throw Error("sort", "waiting for a chunk's sort", status);
  }
};

// What the reader, the sort and the writer share: the device's context and its chunk buffers.
struct DeviceSide {
  cl::Context context;
  cl::Device device;
  DeviceChunkPool chunks;

  explicit DeviceSide(const Sorter& sorter)
      : context(sorter.queue().getInfo<CL_QUEUE_CONTEXT>()),
        device(sorter.queue().getInfo<CL_QUEUE_DEVICE>()),
        chunks(context) {}
};

// A DeviceTransfer made on first use (a batch of text or records needs none).
class LazyTransfer {
 public:
  explicit LazyTransfer(DeviceSide& side) : side_(side) {}
  DeviceTransfer& operator*() {
    if (!transfer_) transfer_ = std::make_unique<DeviceTransfer>(side_.context, side_.device);
    return *transfer_;
  }
  DeviceTransfer* operator->() { return &**this; }

 private:
  DeviceSide& side_;
  std::unique_ptr<DeviceTransfer> transfer_;
};

// "file: problem", unless the problem already names the input.
std::string about(const std::string& name, const std::string& problem) {
  return problem.find(name) != std::string::npos ? problem : name + ": " + problem;
}

// Inputs whose chunks can live in device memory alone: native-order keys that the device sorts
// as they are, with values it can move, and no host-side bookkeeping (positions, rows, text).
bool streams_through_device(const FileState& file, bool unique) {
  const SortSpec& spec = file.spec;
  const bool values_ride =
      !file.values || (file.values->count() && is_supported_value_size(spec.value_size));
  return !file.text && !unique && spec.layout.plain_keys() && !spec.positions &&
         spec.row_length == 0 && file.input->count() && values_ride;
}

class Reader {
 public:
  Reader(const std::vector<FileTask>& tasks, const BatchSettings& settings, DeviceSide& side)
      : tasks_(tasks), settings_(settings), side_(side), transfer_(side) {}

  Work next() {
    if (!current_) {
      if (next_task_ == tasks_.size()) return {};
      current_ = std::make_shared<FileState>();
      current_->task = &tasks_[next_task_++];
    }
    Work work;
    work.file = current_;
    try {
      if (!current_->input) open(*current_);
      const auto start = Clock::now();
      current_->streamed ? read_streamed_chunk(*current_, work) : read_chunk(*current_, work);
      if (!current_->streamed) current_->phases.read += seconds_since(start);
      if (work.chunk.first == 0)
        current_->out_of_core = !work.last && current_->spec.row_length == 0;
    } catch (const std::exception& e) {
      work.error =
          about(current_->input ? current_->input->name() : current_->task->input, e.what());
      work.last = true;
    }
    if (work.last) current_.reset();
    return work;
  }

 private:
  void open(FileState& file) {
    file.started = Clock::now();
    file.input = std::make_unique<InputFile>(file.task->input, settings_.read);
    InputFile& input = *file.input;
    file.input_bytes = input.data_bytes().value_or(0);
    file.spec.layout = input.layout();
    if (input.format() == FileFormat::text) open_text(file);
    if (!file.spec.layout.key_type)
      throw InputError(input.name(),
                       "dtype '" + input.descr() + "' cannot be a sort key (only a value)");
    if (settings_.values) open_values(file);
    const std::vector<std::uint64_t>& shape = input.shape();
    file.spec.row_length = input.format() == FileFormat::npy && shape.size() > 1 ? shape.back() : 0;
    if (settings_.unique && file.spec.row_length)
      throw InputError(input.name(),
                       "--unique needs a 1-D array; this one has shape " + shape_text(shape));
    file.spec.positions = file.task->outputs.positions || file.text;
    file.spec.options = settings_.options;
    file.streamed = streams_through_device(file, settings_.unique);
    file.chunk_items =
        file.streamed
            ? streamed_chunk_items(settings_.memory_budget, side_.device, file.spec, *input.count())
            : chunk_items(settings_.memory_budget, side_.device, file.spec);
    if (const std::uint64_t row = file.spec.row_length; row) {
      if (row > file.chunk_items)
        throw InputError(input.name(), "a row of " + std::to_string(row) +
                                           " elements does not fit the memory budget (" +
                                           std::to_string(file.chunk_items) +
                                           " per chunk); raise -S");
      file.chunk_items -= file.chunk_items % row;  // whole rows only
    }
  }

  void open_text(FileState& file) {
    InputFile& input = *file.input;
    if (file.input_bytes * 4 > settings_.memory_budget)
      throw InputError(input.name(),
                       "text is sorted in memory and needs about 4x its size, more "
                       "than the memory budget (-S); raise -S or convert it to "
                       ".npy or raw, which are sorted out of core");
    file.text = parse_text_keys(input.read_rest(), input.name(), input.layout().key_type);
    file.spec.layout = {file.text->type, key_size(file.text->type), 0, false};
    file.input_bytes = file.text->content.size();
  }

  void open_values(FileState& file) {
    file.values = std::make_unique<InputFile>(*settings_.values, settings_.values_read);
    const InputFile& values = *file.values;
    if (values.format() == FileFormat::text)
      throw InputError(values.name(), "values must be a .npy or raw file, not text");
    const std::optional<std::uint64_t> keys =
        file.text ? std::optional(std::uint64_t{file.text->lines.size()}) : file.input->count();
    if (keys && values.count() && *keys != *values.count())
      throw InputError(values.name(), "has " + std::to_string(*values.count()) + " values but " +
                                          file.input->name() + " has " + std::to_string(*keys) +
                                          " keys");
    file.spec.value_size = values.layout().item_size;
  }

  // Reads the next chunk straight into device memory (no host copy of the whole chunk).
  void read_streamed_chunk(FileState& file, Work& work) {
    const std::uint64_t total = *file.input->count();
    const std::uint64_t count = std::min(file.chunk_items, total - file.items_read);
    const std::size_t item = file.spec.layout.item_size, value = file.spec.value_size;
    work.chunk.first = file.items_read;
    work.chunk.count = count;
    work.device = side_.chunks.acquire(count * item, count * value);
    transfer_->reset_times();
    transfer_->fill(work.device->keys, 0, count * item,
                    [&](char* into, std::size_t bytes) { file.input->read_exactly(into, bytes); });
    if (value)
      transfer_->fill(work.device->values, 0, count * value, [&](char* into, std::size_t bytes) {
        file.values->read_exactly(into, bytes);
      });
    file.phases.read += transfer_->times().host;
    file.phases.upload += transfer_->times().device;
    file.items_read += count;
    work.input_items = count;
    work.input_bytes = count * item;
    work.last = file.items_read == total;
  }

  void read_chunk(FileState& file, Work& work) {
    Chunk& chunk = work.chunk;
    chunk.first = file.items_read;
    if (file.text) {
      chunk.items = std::move(file.text->keys);
      chunk.count = file.text->lines.size();
      work.last = true;
      work.input_bytes = file.input_bytes;
    } else {
      chunk.count = file.input->read_items(chunk.items, file.chunk_items);
      const std::optional<std::uint64_t> total = file.input->count();
      work.last = total ? file.items_read + chunk.count == *total : chunk.count < file.chunk_items;
      work.input_bytes = chunk.count * file.spec.layout.item_size;
    }
    if (file.values) read_values(file, work);
    file.items_read += chunk.count;
    work.input_items = chunk.count;
  }

  void read_values(FileState& file, Work& work) {
    InputFile& values = *file.values;
    const auto mismatch = [&](const char* fewer_or_more) {
      return InputError(values.name(), std::string("has ") + fewer_or_more + " values than " +
                                           file.input->name() + " has keys");
    };
    if (values.read_items(work.chunk.values, work.chunk.count) != work.chunk.count)
      throw mismatch("fewer");
    std::vector<char> extra;
    if (work.last && values.read_items(extra, 1) != 0) throw mismatch("more");
  }

  const std::vector<FileTask>& tasks_;
  const BatchSettings& settings_;
  DeviceSide& side_;
  LazyTransfer transfer_;
  std::size_t next_task_ = 0;
  std::shared_ptr<FileState> current_;
};

// Reads the concatenation of one merge range's run slices from one column, in order.
class SliceSource {
 public:
  SliceSource(const RunStore& runs, int column, const MergeRange& range)
      : runs_(runs), column_(column), range_(range) {}

  void operator()(char* into, std::size_t bytes) {
    const std::size_t width = runs_.column_width(column_);
    for (std::uint64_t wanted = bytes / width; wanted > 0;) {
      const RunSlice& slice = range_.slices[run_];
      const std::uint64_t count = std::min(wanted, slice.size() - done_in_run_);
      runs_.read(column_, run_, slice.begin + done_in_run_, count, into);
      into += count * width;
      wanted -= count;
      done_in_run_ += count;
      if (done_in_run_ == slice.size() && run_ + 1 < range_.slices.size()) {
        ++run_;
        done_in_run_ = 0;
      }
    }
  }

 private:
  const RunStore& runs_;
  int column_;
  const MergeRange& range_;
  std::size_t run_ = 0;
  std::uint64_t done_in_run_ = 0;
};

class Writer {
 public:
  Writer(const BatchSettings& settings, Progress& progress, std::ostream& log, BatchTotals& totals,
         DeviceSide& side, SharedSorter& sorter)
      : settings_(settings),
        progress_(progress),
        log_(log),
        totals_(totals),
        side_(side),
        sorter_(sorter),
        transfer_(side) {}

  void write(Work& work) {
    FileState& file = *work.file;
    if (!file.shown) start(file);
    if (!work.error.empty() && file.error.empty()) file.error = work.error;
    if (file.error.empty()) {
      try {
        store(file, work);
      } catch (const std::exception& e) {
        file.error = about(file.input ? file.input->name() : file.task->input, e.what());
      }
    }
    work.device.reset();  // back to the pool before the next chunk needs one
    file.keys += work.input_items;
    progress_.advance(work.input_bytes);
    if (work.last) finish(file);
  }

 private:
  void start(FileState& file) {
    file.shown = true;
    progress_.start_file(file.task->input == "-" ? "standard input" : file.task->input,
                         file.input_bytes);
  }

  std::unique_ptr<FileOutputs> outputs_for(const FileState& file, std::uint64_t count) {
    return std::make_unique<FileOutputs>(file.task->outputs, *file.input, file.values.get(),
                                         file.text ? &*file.text : nullptr, count);
  }

  void store(FileState& file, Work& work) {
    if (file.out_of_core) {
      if (!file.runs)
        file.runs =
            std::make_unique<RunStore>(file.spec, settings_.temporary_folder, file.chunk_items);
      if (work.device) {
        store_run_from_device(file, work);
      } else if (work.chunk.count) {
        const auto start = Clock::now();
        file.runs->add_run(work.chunk);
        file.phases.write += seconds_since(start);
      }
      if (work.last) merge(file);
      return;
    }
    const std::uint64_t announced =
        file.spec.row_length ? file.input->count().value_or(0) : work.chunk.count;
    if (!file.outputs) file.outputs = outputs_for(file, announced);
    if (work.device) {
      drain(file, *work.device, work.chunk.count, *file.outputs);
    } else {
      const auto start = Clock::now();
      file.outputs->write(work.chunk);
      file.phases.write += seconds_since(start);
    }
    if (work.last) commit(file);
  }

  // Hands a sorted device chunk's items and values to `outputs`, timing both sides.
  void drain(FileState& file, const DeviceChunk& chunk, std::uint64_t count, FileOutputs& outputs) {
    const std::size_t item = file.spec.layout.item_size, value = file.spec.value_size;
    transfer_->reset_times();
    transfer_->drain(chunk.keys, 0, count * item, [&](const char* from, std::size_t bytes) {
      outputs.write_items(from, bytes / item);
    });
    if (value)
      transfer_->drain(chunk.values, 0, count * value, [&](const char* from, std::size_t bytes) {
        outputs.write_values(from, bytes / value);
      });
    file.phases.write += transfer_->times().host;
    file.phases.download += transfer_->times().device;
  }

  void store_run_from_device(FileState& file, const Work& work) {
    RunStore& runs = *file.runs;
    const std::size_t item = file.spec.layout.item_size, value = file.spec.value_size;
    const std::uint64_t count = work.chunk.count;
    transfer_->reset_times();
    runs.begin_run(count);
    transfer_->drain(work.device->keys, 0, count * item,
                     [&](const char* from, std::size_t bytes) { runs.append_items(from, bytes); });
    if (value)
      transfer_->drain(
          work.device->values, 0, count * value,
          [&](const char* from, std::size_t bytes) { runs.append_values(from, bytes); });
    file.phases.write += transfer_->times().host;
    file.phases.download += transfer_->times().device;
  }

  void commit(FileState& file) {
    const auto start = Clock::now();
    file.outputs->commit();
    file.phases.fsync += seconds_since(start);
  }

  // Measured faster on the device wherever tried (an H200, and PoCL on a 2-core CPU, where the
  // device sort of a range beats a k-way merge); ranges must fit a chunk, so 1024 runs or more
  // merge on the host.
  bool merges_on_device(const FileState& file) const {
    return file.streamed && settings_.merge != MergeMode::host &&
           file.runs->max_range_items(file.chunk_items) <= file.chunk_items;
  }

  void merge(FileState& file) {
    const auto start = Clock::now();
    file.outputs = outputs_for(file, file.runs->items());
    file.merged_on_device = merges_on_device(file);
    file.merged_on_device ? merge_on_device(file) : merge_on_host_cores(file);
    file.phases.merge += seconds_since(start);
    commit(file);
  }

  // Each range's run slices, concatenated in run order, sorted stably on the device: equal keys
  // keep run order, which is input order.
  void merge_on_device(FileState& file) {
    const RunStore& runs = *file.runs;
    const std::vector<MergeRange> ranges = runs.plan_ranges(file.chunk_items);
    file.merge_ranges = ranges.size();
    const std::size_t item = file.spec.layout.item_size, value = file.spec.value_size;
    for (const MergeRange& range : ranges) {
      const std::shared_ptr<DeviceChunk> chunk =
          side_.chunks.acquire(range.items * item, range.items * value);
      transfer_->fill(chunk->keys, 0, range.items * item, SliceSource(runs, 0, range));
      if (value)
        transfer_->fill(chunk->values, 0, range.items * value, SliceSource(runs, 1, range));
      sorter_.sort_device(file.spec, *chunk, range.items);
      drain(file, *chunk, range.items, *file.outputs);
    }
  }

  void merge_on_host_cores(FileState& file) {
    const RunStore& runs = *file.runs;
    const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
    const std::uint64_t tuple =
        file.spec.layout.item_size + file.spec.value_size + (file.spec.positions ? 8 : 0);
    // Merged ranges held at once (one per worker and the one being written) stay within half
    // the budget; at least two ranges per worker balance the load.
    const std::uint64_t target =
        std::max<std::uint64_t>(1, std::min(settings_.memory_budget / 2 / (workers + 1) / tuple,
                                            runs.items() / (2 * workers) + 1));
    const std::vector<MergeRange> ranges = runs.plan_ranges(target);
    file.merge_ranges = ranges.size();
    std::optional<std::uint64_t> last_kept;
    merge_on_host(runs, ranges, workers, [&](Chunk& merged) {
      if (settings_.unique) keep_first_of_equal_keys(file.spec, merged, last_kept);
      file.outputs->write(merged);
    });
  }

  void finish(FileState& file) {
    const double seconds = seconds_since(file.started);
    progress_.clear();
    if (!file.error.empty()) {
      log_ << "clsort: error: " << file.error << "\n";
      ++totals_.files_failed;
    } else {
      ++totals_.files_sorted;
      totals_.keys += file.keys;
      totals_.bytes += file.input_bytes;
      if (file.out_of_core) ++totals_.out_of_core_files;
      if (settings_.verbose) report(file, seconds);
    }
    file.outputs.reset();  // a failed input's temporary outputs are removed here
    file.runs.reset();
  }

  void report(const FileState& file, double seconds) {
    const std::string& output = file.task->outputs.sorted;
    const PhaseTimes& t = file.phases;
    log_ << std::fixed << std::setprecision(3) << "clsort: sorted " << file.keys << " "
         << to_string(*file.spec.layout.key_type) << " keys of " << file.input->name() << " -> "
         << (output == "-" ? "standard output" : output) << " in " << seconds << " s";
    if (file.out_of_core)
      log_ << " (out of core: " << file.runs->runs() << " sorted runs merged in "
           << file.merge_ranges << " key ranges on the "
           << (file.merged_on_device ? "device" : "host") << ")";
    log_ << "\nclsort:   phases (s): read " << t.read << ", upload " << t.upload << ", sort "
         << t.sort << ", download " << t.download << ", write " << t.write;
    if (file.out_of_core) log_ << ", merge " << t.merge;
    log_ << ", fsync " << t.fsync << (file.streamed ? "; streamed through device memory" : "")
         << "\n";
  }

  const BatchSettings& settings_;
  Progress& progress_;
  std::ostream& log_;
  BatchTotals& totals_;
  DeviceSide& side_;
  SharedSorter& sorter_;
  LazyTransfer transfer_;
};

void sort_work(SharedSorter& shared, Work& work, bool unique) {
  if (!work.error.empty() || work.chunk.count == 0) return;
  FileState& file = *work.file;
  const auto start = Clock::now();
  try {
    if (work.device) {
      shared.sort_device(file.spec, *work.device, work.chunk.count);
    } else {
      std::lock_guard<std::mutex> lock(shared.mutex);
      sort_chunk(shared.sorter, file.spec, work.chunk);
    }
    // Within a run too: the first of equal keys in the earliest run is the first overall.
    std::optional<std::uint64_t> none;
    if (unique) keep_first_of_equal_keys(file.spec, work.chunk, none);
  } catch (const std::exception& e) {
    work.error = about(file.input->name(), e.what());
  }
  file.phases.sort += seconds_since(start);
}

}  // namespace

BatchTotals run_batch(Sorter& sorter, const std::vector<FileTask>& tasks,
                      const BatchSettings& settings, Progress& progress, std::ostream& log) {
  BatchTotals totals;
  DeviceSide side(sorter);
  SharedSorter shared{sorter, {}};
  Reader reader(tasks, settings, side);
  Writer writer(settings, progress, log, totals, side, shared);
  SerialWorker reading_thread, writing_thread;
  std::future<Work> reading = reading_thread.submit([&] { return reader.next(); });
  std::future<void> writing;
  while (true) {
    Work work = reading.get();
    if (!work.file) break;
    reading = reading_thread.submit([&] { return reader.next(); });
    sort_work(shared, work, settings.unique);
    if (writing.valid()) writing.get();
    writing =
        writing_thread.submit([&writer, work = std::move(work)]() mutable { writer.write(work); });
  }
  if (writing.valid()) writing.get();
  return totals;
}

}  // namespace clsort::cli
