// Whether a tuned winner really beats the default: their times from alternating rounds.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace clsort::tune {

/// The median of `values` (the mean of the middle two for an even count); 0 for none.
inline double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

/// default_ms[i] and challenger_ms[i] were measured back to back in round i (0: failed). The
/// challenger holds when it never failed and the median over rounds of default / challenger
/// time reaches 1 / (1 - margin): it must be faster by the margin in paired runs, not in one
/// median each, which on a machine whose runs spread widely can crown noise. The ratio of the
/// two medians, which the profile reports, must reach it too, so a kept winner never reads as
/// slower than the default.
inline bool challenger_holds(const std::vector<double>& default_ms,
                             const std::vector<double>& challenger_ms, double margin) {
  if (challenger_ms.empty() ||
      std::find(challenger_ms.begin(), challenger_ms.end(), 0.0) != challenger_ms.end())
    return false;
  std::vector<double> ratios;
  for (std::size_t i = 0; i < default_ms.size() && i < challenger_ms.size(); ++i)
    ratios.push_back(default_ms[i] / challenger_ms[i]);  // a failed default run counts 0
  const double needed = 1 / (1 - margin);
  return !ratios.empty() && median(ratios) >= needed &&
         median(default_ms) / median(challenger_ms) >= needed;
}

}  // namespace clsort::tune
