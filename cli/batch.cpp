// The batch pipeline: a reader thread, the device sort on the calling thread, a writer thread.
// Each input flows through as chunks: one whole chunk, whole rows, or sorted runs to merge.
#include "batch.hpp"

#include <chrono>
#include <future>
#include <iomanip>
#include <memory>

#include "input_error.hpp"
#include "memory_budget.hpp"
#include "npy.hpp"
#include "run_merge.hpp"
#include "text_keys.hpp"

namespace clsort::cli {
namespace {

using Clock = std::chrono::steady_clock;

// One input on its way through. The reader sets up everything above `out_of_core` before it
// hands over the first chunk and changes none of it later; the writer owns what follows.
struct FileState {
  const FileTask* task = nullptr;
  std::unique_ptr<InputFile> input;
  std::unique_ptr<InputFile> values;
  std::optional<TextKeys> text;
  SortSpec spec;
  std::uint64_t chunk_items = 0;
  std::uint64_t input_bytes = 0;
  bool out_of_core = false;      // more than one chunk, 1-D: sorted runs are merged at the end
  std::uint64_t items_read = 0;  // reader only

  std::unique_ptr<RunMerger> runs;
  std::unique_ptr<FileOutputs> outputs;
  std::string error;
  std::uint64_t keys = 0;
  double sort_seconds = 0;
  Clock::time_point started;  // set by the reader as it opens the input
  bool shown = false;         // writer: the progress line shows this input
};

// One chunk of one input, passed from stage to stage. No file: the batch is done.
struct Work {
  std::shared_ptr<FileState> file;
  Chunk chunk;
  std::uint64_t input_items = 0;
  std::uint64_t input_bytes = 0;
  bool last = false;
  std::string error;
};

// "file: problem", unless the problem already names the input.
std::string about(const std::string& name, const std::string& problem) {
  return problem.find(name) != std::string::npos ? problem : name + ": " + problem;
}

class Reader {
 public:
  Reader(const std::vector<FileTask>& tasks, const BatchSettings& settings,
         const cl::Device& device)
      : tasks_(tasks), settings_(settings), device_(device) {}

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
      read_chunk(*current_, work);
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
    file.chunk_items = chunk_items(settings_.memory_budget, device_, file.spec);
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
    if (chunk.first == 0) file.out_of_core = !work.last && file.spec.row_length == 0;
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
  const cl::Device& device_;
  std::size_t next_task_ = 0;
  std::shared_ptr<FileState> current_;
};

class Writer {
 public:
  Writer(const BatchSettings& settings, Progress& progress, std::ostream& log, BatchTotals& totals)
      : settings_(settings), progress_(progress), log_(log), totals_(totals) {}

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
        file.runs = std::make_unique<RunMerger>(file.spec, settings_.temporary_folder);
      if (work.chunk.count) file.runs->add_run(work.chunk);
      if (work.last) merge(file);
      return;
    }
    const std::uint64_t announced =
        file.spec.row_length ? file.input->count().value_or(0) : work.chunk.count;
    if (!file.outputs) file.outputs = outputs_for(file, announced);
    file.outputs->write(work.chunk);
    if (work.last) file.outputs->commit();
  }

  void merge(FileState& file) {
    file.outputs = outputs_for(file, file.runs->items());
    const std::uint64_t batch = std::max<std::uint64_t>(
        1, settings_.memory_budget / 4 / (file.spec.layout.item_size + file.spec.value_size + 8));
    file.runs->merge(settings_.memory_budget / 2, batch, settings_.unique,
                     [&](Chunk& merged) { file.outputs->write(merged); });
    file.outputs->commit();
  }

  void finish(FileState& file) {
    const double seconds = std::chrono::duration<double>(Clock::now() - file.started).count();
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
    log_ << std::fixed << std::setprecision(3) << "clsort: sorted " << file.keys << " "
         << to_string(*file.spec.layout.key_type) << " keys of " << file.input->name() << " -> "
         << (output == "-" ? "standard output" : output) << " in " << seconds << " s";
    if (file.out_of_core) log_ << " (out of core: " << file.runs->runs() << " sorted runs merged)";
    log_ << "\n";
  }

  const BatchSettings& settings_;
  Progress& progress_;
  std::ostream& log_;
  BatchTotals& totals_;
};

void sort_work(Sorter& sorter, Work& work, bool unique) {
  if (!work.error.empty() || work.chunk.count == 0) return;
  FileState& file = *work.file;
  try {
    sort_chunk(sorter, file.spec, work.chunk);
    // Within a run too: the first of equal keys in the earliest run is the first overall.
    if (unique) keep_first_of_equal_keys(file.spec, work.chunk);
  } catch (const std::exception& e) {
    work.error = about(file.input->name(), e.what());
  }
}

}  // namespace

BatchTotals run_batch(Sorter& sorter, const std::vector<FileTask>& tasks,
                      const BatchSettings& settings, Progress& progress, std::ostream& log) {
  const cl::Device device = sorter.queue().getInfo<CL_QUEUE_DEVICE>();
  BatchTotals totals;
  Reader reader(tasks, settings, device);
  Writer writer(settings, progress, log, totals);
  std::future<Work> reading = std::async(std::launch::async, [&] { return reader.next(); });
  std::future<void> writing;
  while (true) {
    Work work = reading.get();
    if (!work.file) break;
    reading = std::async(std::launch::async, [&] { return reader.next(); });
    sort_work(sorter, work, settings.unique);
    if (writing.valid()) writing.get();
    writing = std::async(std::launch::async,
                         [&writer, work = std::move(work)]() mutable { writer.write(work); });
  }
  if (writing.valid()) writing.get();
  return totals;
}

}  // namespace clsort::cli
