// Progress on a terminal: one line on stderr with the file, its progress, the total, MB/s and ETA.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace clsort::cli {

class Progress {
 public:
  /// Shows nothing unless `enabled` (stderr is a terminal and not --quiet). `total_bytes` is
  /// the input size of the whole batch (0 when unknown, e.g. standard input).
  Progress(bool enabled, std::uint64_t total_bytes);
  void start_file(const std::string& name, std::uint64_t bytes);
  /// `bytes` more of the current file are done (sorted and written).
  void advance(std::uint64_t bytes);
  /// Erases the line, so that a message can be printed in its place.
  void clear();

 private:
  void draw(bool force);
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  std::mutex mutex_;
  std::uint64_t total_bytes_;
  std::uint64_t done_bytes_ = 0;
  std::string file_;
  std::uint64_t file_bytes_ = 0;
  std::uint64_t file_done_ = 0;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_draw_{};
  bool shown_ = false;
};

}  // namespace clsort::cli
