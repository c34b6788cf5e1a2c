// Sorted runs of one input on disk, and their split into key ranges that merge independently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chunk_sort.hpp"

namespace clsort::cli {

/// Items [begin, end) of one run.
struct RunSlice {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  std::uint64_t size() const { return end - begin; }
};

/// One key range of the merge: a slice of every run (in run order). Concatenating the ranges'
/// merged items in range order gives the whole merged sequence.
struct MergeRange {
  std::vector<RunSlice> slices;
  std::uint64_t items = 0;
};

/// The runs of one input, each column (items, values, positions) in a temporary file of its own
/// in `folder`, unlinked as soon as it is created: it takes no name in the folder and vanishes
/// with the process however it ends. Every `sample_step`-th item's sort field is kept in memory
/// so that ranges can be cut without reading the runs.
class RunStore {
 public:
  /// `run_capacity`: the most items one run will hold (it sets the sampling step).
  RunStore(const SortSpec& spec, const std::string& folder, std::uint64_t run_capacity);
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  /// Appends a sorted host chunk (items, values and positions as the spec says) as the next run.
  void add_run(const Chunk& sorted);
  /// Starts the next run, of `count` items, whose columns are then appended in order.
  void begin_run(std::uint64_t count);
  void append_items(const char* data, std::size_t bytes);
  void append_values(const char* data, std::size_t bytes);
  void append_positions(const char* data, std::size_t bytes);

  std::size_t runs() const { return runs_.size(); }
  std::uint64_t items() const { return items_; }
  const SortSpec& spec() const { return spec_; }

  /// Cuts the merge into ranges of about `target_items` items each. Splitters are sampled items
  /// ordered by (field, run, index), so equal keys spread over ranges as well as distinct ones
  /// do, and no range exceeds max_range_items(target_items).
  std::vector<MergeRange> plan_ranges(std::uint64_t target_items) const;
  /// The most items a range of plan_ranges(target_items) can hold.
  std::uint64_t max_range_items(std::uint64_t target_items) const;

  /// Reads items [first, first + count) of `run`'s column (0 items, 1 values, 2 positions).
  void read(int column, std::size_t run, std::uint64_t first, std::uint64_t count, char* out) const;
  /// Bytes per item of a column (0 if the spec has no such column).
  std::size_t column_width(int column) const { return columns_[column].width; }

 private:
  struct Column {
    std::size_t width = 0;
    int fd = -1;
    std::uint64_t written = 0;  // bytes of the current run appended so far
  };
  struct Run {
    std::uint64_t first_item;  // items of all earlier runs: the offset in every column
    std::uint64_t count;
    std::vector<std::uint64_t> samples;  // fields of items 0, step, 2 step, ...
  };
  struct Sample {
    std::uint64_t field;
    std::size_t run;
    std::uint64_t index;
  };
  void append(Column& column, const char* data, std::size_t bytes);
  std::uint64_t samples_per_range(std::uint64_t target_items) const;
  std::uint64_t bound_in_run(std::size_t run, std::uint64_t field, bool after_equal) const;
  std::vector<std::uint64_t> boundaries(const Sample& splitter) const;

  SortSpec spec_;
  SortField field_;
  std::string folder_;
  std::uint64_t sample_step_;
  Column columns_[3];
  std::vector<Run> runs_;
  std::uint64_t items_ = 0;
};

}  // namespace clsort::cli
