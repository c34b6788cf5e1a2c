// The median the benchmark programs report.
#pragma once

#include <algorithm>
#include <vector>

namespace clsort::bench {

/// The middle value of `values` (the mean of the two middle ones for an even count).
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t half = values.size() / 2;
  return values.size() % 2 ? values[half] : (values[half - 1] + values[half]) / 2;
}

}  // namespace clsort::bench
