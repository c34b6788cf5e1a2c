// RunStore: column files, the in-memory sample of every run, and range cutting by sampled
// splitters.
#include "run_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <tuple>

#include "fd_io.hpp"
#include "input_error.hpp"
#include "interrupt.hpp"

namespace clsort::cli {
namespace {

// Samples per run: enough that a range can be cut finely even when many runs are merged.
constexpr std::uint64_t samples_per_run = 1024;

// A file with no name in `folder`: made with a name that an interrupt removes until the name
// is gone.
int unlinked_temporary_file(const std::string& folder) {
  int fd = -1;
  const std::string path = create_temporary([&] {
    std::string pattern = (std::filesystem::path(folder) / "clsort-run-XXXXXX").string();
    fd = ::mkstemp(pattern.data());
    if (fd < 0)
      throw InputError(folder,
                       std::string("cannot create a temporary file (-T): ") + std::strerror(errno));
    return pattern;
  });
  ::unlink(path.c_str());
  forget_temporary(path);
  return fd;
}

bool sample_less(std::uint64_t field_a, std::size_t run_a, std::uint64_t index_a,
                 std::uint64_t field_b, std::size_t run_b, std::uint64_t index_b) {
  return std::tie(field_a, run_a, index_a) < std::tie(field_b, run_b, index_b);
}

}  // namespace

RunStore::RunStore(const SortSpec& spec, const std::string& folder, std::uint64_t run_capacity)
    : spec_(spec),
      field_(spec),
      folder_(folder),
      sample_step_(std::max<std::uint64_t>(1, run_capacity / samples_per_run)) {
  columns_[0].width = spec.layout.item_size;
  columns_[1].width = spec.value_size;
  columns_[2].width = spec.positions ? 8 : 0;
  for (Column& column : columns_)
    if (column.width) column.fd = unlinked_temporary_file(folder);
}

RunStore::~RunStore() {
  for (Column& column : columns_)
    if (column.fd >= 0) ::close(column.fd);
}

void RunStore::begin_run(std::uint64_t count) {
  runs_.push_back({items_, count, {}});
  runs_.back().samples.reserve(count / sample_step_ + 1);
  items_ += count;
  for (Column& column : columns_) column.written = 0;
}

void RunStore::append(Column& column, const char* data, std::size_t bytes) {
  const std::uint64_t offset = runs_.back().first_item * column.width + column.written;
  if (!write_fully_at(column.fd, data, bytes, offset))
    throw InputError(folder_,
                     std::string("cannot write a temporary run (-T): ") + std::strerror(errno));
  column.written += bytes;
}

void RunStore::append_items(const char* data, std::size_t bytes) {
  Column& items = columns_[0];
  const std::size_t width = items.width;
  const std::uint64_t first = items.written / width, count = bytes / width;
  Run& run = runs_.back();
  for (std::uint64_t i = (first + sample_step_ - 1) / sample_step_ * sample_step_;
       i < first + count; i += sample_step_)
    run.samples.push_back(field_(data + (i - first) * width));
  append(items, data, bytes);
}

void RunStore::append_values(const char* data, std::size_t bytes) {
  append(columns_[1], data, bytes);
}

void RunStore::append_positions(const char* data, std::size_t bytes) {
  append(columns_[2], data, bytes);
}

void RunStore::add_run(const Chunk& sorted) {
  begin_run(sorted.count);
  append_items(sorted.items.data(), sorted.count * columns_[0].width);
  if (columns_[1].width) append_values(sorted.values.data(), sorted.count * columns_[1].width);
  if (columns_[2].width)
    append_positions(reinterpret_cast<const char*>(sorted.positions.data()), sorted.count * 8);
}

void RunStore::read(int column, std::size_t run, std::uint64_t first, std::uint64_t count,
                    char* out) const {
  const Column& c = columns_[column];
  const std::uint64_t offset = (runs_[run].first_item + first) * c.width;
  if (!read_fully_at(c.fd, out, count * c.width, offset))
    throw InputError(folder_,
                     std::string("cannot read a temporary run back: ") + std::strerror(errno));
}

// Samples between two splitters: a range then holds at most (samples + runs) steps of items,
// since each run adds at most one partial step beyond its own samples in the range.
std::uint64_t RunStore::samples_per_range(std::uint64_t target_items) const {
  const std::uint64_t steps = target_items / sample_step_;
  return steps > runs_.size() ? steps - runs_.size() : 1;
}

std::uint64_t RunStore::max_range_items(std::uint64_t target_items) const {
  return (samples_per_range(target_items) + runs_.size()) * sample_step_;
}

// The number of run `run`'s items whose field is below `field` (or at most `field` when
// `after_equal`): the samples narrow it to one step of items, which is read and searched.
std::uint64_t RunStore::bound_in_run(std::size_t run, std::uint64_t field, bool after_equal) const {
  const Run& r = runs_[run];
  const auto beyond = [&](std::uint64_t f) { return after_equal ? f > field : f >= field; };
  const auto first_beyond = std::find_if(r.samples.begin(), r.samples.end(), beyond);
  const std::uint64_t sample = static_cast<std::uint64_t>(first_beyond - r.samples.begin());
  if (sample == 0) return 0;  // item 0 is sample 0
  const std::uint64_t begin = (sample - 1) * sample_step_ + 1;
  const std::uint64_t end = std::min(sample * sample_step_, r.count);
  if (begin >= end) return end;
  const std::size_t width = columns_[0].width;
  std::vector<char> block((end - begin) * width);
  read(0, run, begin, end - begin, block.data());
  std::uint64_t low = 0, high = end - begin;  // first item in the block beyond `field`
  while (low < high) {
    const std::uint64_t middle = (low + high) / 2;
    if (beyond(field_(block.data() + middle * width)))
      high = middle;
    else
      low = middle + 1;
  }
  return begin + low;
}

// Each run's count of items that come before `splitter` in (field, run, index) order.
std::vector<std::uint64_t> RunStore::boundaries(const Sample& splitter) const {
  std::vector<std::uint64_t> bounds(runs_.size());
  for (std::size_t run = 0; run < runs_.size(); ++run) {
    if (run == splitter.run)
      bounds[run] = splitter.index;
    else
      bounds[run] = bound_in_run(run, splitter.field, /*after_equal=*/run < splitter.run);
  }
  return bounds;
}

std::vector<MergeRange> RunStore::plan_ranges(std::uint64_t target_items) const {
  std::vector<Sample> samples;
  for (std::size_t run = 0; run < runs_.size(); ++run)
    for (std::size_t j = 0; j < runs_[run].samples.size(); ++j)
      samples.push_back({runs_[run].samples[j], run, j * sample_step_});
  std::sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) {
    return sample_less(a.field, a.run, a.index, b.field, b.run, b.index);
  });

  std::vector<MergeRange> ranges;
  std::vector<std::uint64_t> begin(runs_.size(), 0);
  const auto add_range = [&](const std::vector<std::uint64_t>& end) {
    MergeRange range;
    for (std::size_t run = 0; run < runs_.size(); ++run) {
      range.slices.push_back({begin[run], end[run]});
      range.items += end[run] - begin[run];
    }
    if (range.items) ranges.push_back(std::move(range));
    begin = end;
  };
  const std::uint64_t stride = samples_per_range(target_items);
  for (std::uint64_t s = stride; s < samples.size(); s += stride) add_range(boundaries(samples[s]));
  std::vector<std::uint64_t> end(runs_.size());
  for (std::size_t run = 0; run < runs_.size(); ++run) end[run] = runs_[run].count;
  add_range(end);
  return ranges;
}

}  // namespace clsort::cli
