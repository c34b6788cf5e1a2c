// Out-of-core sorting: sorted chunks saved as runs in an unlinked temporary file, merged k ways.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "chunk_sort.hpp"

namespace clsort::cli {

/// Sorted runs of one input, kept in a temporary file in `folder` that is unlinked as soon as it
/// is created: it takes no name in the folder, and vanishes with the process however it ends.
class RunMerger {
 public:
  RunMerger(const SortSpec& spec, const std::string& folder);
  ~RunMerger();
  RunMerger(const RunMerger&) = delete;
  RunMerger& operator=(const RunMerger&) = delete;

  /// Appends a sorted chunk (items, values and positions as the spec says) as the next run.
  void add_run(const Chunk& sorted);
  std::size_t runs() const { return runs_.size(); }
  std::uint64_t items() const { return items_; }

  /// Merges the runs in order, reading them through buffers of `buffer_bytes` in all, and hands
  /// the result to `emit` in chunks of up to `batch_items`. Equal keys keep their input order
  /// (the earlier run wins ties); with `unique` only the first of equal keys is kept.
  void merge(std::uint64_t buffer_bytes, std::uint64_t batch_items, bool unique,
             const std::function<void(Chunk&)>& emit);

 private:
  struct Run {
    std::uint64_t offset;
    std::uint64_t count;
  };
  std::size_t tuple_size() const;

  SortSpec spec_;
  std::string folder_;
  int fd_ = -1;
  std::uint64_t end_ = 0;
  std::uint64_t items_ = 0;
  std::vector<Run> runs_;
};

}  // namespace clsort::cli
