// The tuner's results file: one JSON object per measurement, appended as it is made, so that an
// interrupted tuning resumes where it stopped.
#pragma once

#include <fstream>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "measurement.hpp"

namespace clsort::tune {

class ResultsLog {
 public:
  /// Reads earlier results from `path` (if it exists; unreadable lines are ignored, and so are
  /// lines measured with kernels other than `kernel_hash`'s: they would time other code) and
  /// appends new ones, tagged with `kernel_hash`, to it.
  ResultsLog(const std::string& path, std::string kernel_hash);

  /// An earlier measurement of `params` for the class `class_id` at n keys, if any.
  std::optional<Measurement> find(const std::string& class_id, const Params& params,
                                  std::uint64_t n) const;
  /// Records a measurement (flushed at once).
  void add(const std::string& class_id, const Params& params, const Measurement& measurement);
  /// Records a measurement of a winner's rematch against the default (tagged with its round);
  /// find() never returns these: a rematch measures afresh.
  void add_rematch(const std::string& class_id, const Params& params,
                   const Measurement& measurement, int round);
  /// Every result, earlier and new, for the profile's raw results.
  const nlohmann::json& all() const { return all_; }
  std::size_t resumed() const { return resumed_; }
  /// Earlier lines ignored because other kernels measured them.
  std::size_t stale() const { return stale_; }

 private:
  static std::string key(const std::string& class_id, const Params& params, std::uint64_t n);
  nlohmann::json line(const std::string& class_id, const Params& params,
                      const Measurement& measurement) const;
  void append(const nlohmann::json& line);
  std::map<std::string, Measurement> known_;
  nlohmann::json all_ = nlohmann::json::array();
  std::ofstream out_;
  std::string kernel_hash_;
  std::size_t resumed_ = 0;
  std::size_t stale_ = 0;
};

}  // namespace clsort::tune
