// Whether a tuned winner really beats the default: their times from alternating rounds.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace clsort::tune {

/// default_ms[i] and challenger_ms[i] were measured back to back in round i (0: failed). The
/// challenger holds when the median over rounds of default / challenger time reaches
/// 1 / (1 - margin): it must be faster by the margin in paired runs, not in one median each,
/// which on a machine whose runs spread widely can crown noise.
inline bool challenger_holds(const std::vector<double>& default_ms,
                             const std::vector<double>& challenger_ms, double margin) {
  std::vector<double> ratios;
  for (std::size_t i = 0; i < default_ms.size() && i < challenger_ms.size(); ++i)
    ratios.push_back(challenger_ms[i] > 0 && default_ms[i] > 0 ? default_ms[i] / challenger_ms[i]
                                                               : 0);
  if (ratios.empty()) return false;
  std::sort(ratios.begin(), ratios.end());
  const std::size_t middle = ratios.size() / 2;
  const double median =
      ratios.size() % 2 ? ratios[middle] : (ratios[middle - 1] + ratios[middle]) / 2;
  return median >= 1 / (1 - margin);
}

}  // namespace clsort::tune
