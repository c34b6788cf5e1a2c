// Sorting a batch of inputs: read, sort and write overlapped; out-of-core merges; per-file errors.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <clsort/sorter.hpp>

#include "input_file.hpp"
#include "output_files.hpp"
#include "progress.hpp"

namespace clsort::cli {

/// One input and where its results go.
struct FileTask {
  std::string input;  ///< a path, or "-" for standard input
  OutputPaths outputs;
};

/// Where the sorted runs of an out-of-core input are merged.
enum class MergeMode {
  automatic,  ///< the device for inputs that stream through it, else the host
  host,       ///< on all host cores, key ranges in parallel
  device,     ///< a stable device sort of each key range's run slices (streamed inputs only)
};

/// What the command line asks of every input.
struct BatchSettings {
  ReadOptions read;
  std::optional<std::string> values;  ///< values input (one-input batches only)
  ReadOptions values_read;
  SortOptions options;
  bool unique = false;
  std::uint64_t memory_budget = 0;  ///< host bytes
  std::string temporary_folder;     ///< for out-of-core runs
  MergeMode merge = MergeMode::automatic;
  bool verbose = false;
};

struct BatchTotals {
  std::uint64_t files_sorted = 0;
  std::uint64_t files_failed = 0;
  std::uint64_t keys = 0;
  std::uint64_t bytes = 0;  ///< input bytes read
  std::uint64_t out_of_core_files = 0;
};

/// Sorts every task with `sorter`. While one chunk is sorted on the device, the next is read
/// and the previous written. Plain keys (with values of 1-16 bytes) stream between the files and
/// device memory; other inputs are sorted through host memory. A failing input gets an error line
/// on `log` naming it (its outputs do not appear) and the batch goes on.
BatchTotals run_batch(Sorter& sorter, const std::vector<FileTask>& tasks,
                      const BatchSettings& settings, Progress& progress, std::ostream& log);

}  // namespace clsort::cli
