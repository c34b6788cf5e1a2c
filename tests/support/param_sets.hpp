// Parameter sets the tests sort with: shaped by hand, kept where the test device runs them.
#pragma once

#include <boost/test/unit_test.hpp>

#include <optional>
#include <string>
#include <vector>

#include <clsort/clsort.hpp>

#include "opencl_fixture.hpp"

namespace clsort::test {

/// `algorithm` with `ranking` in work-groups of `work_group_size` items of
/// `elements_per_thread` keys; the other fields as Params has them.
inline Params shaped_params(Algorithm algorithm, Ranking ranking, int work_group_size,
                            int elements_per_thread) {
  Params p;
  p.algorithm = algorithm;
  p.ranking = ranking;
  p.work_group_size = work_group_size;
  p.elements_per_thread = elements_per_thread;
  return p;
}

/// A parameter set's algorithm and ranking, or "device defaults" for none.
inline std::string describe(const std::optional<Params>& p) {
  if (!p) return "device defaults";
  return std::string(to_string(p->algorithm)) + " with " + std::string(to_string(p->ranking));
}

/// A Sorter on the test queue with set `p`, or with the device's profile and defaults for none.
inline Sorter make_sorter(const std::optional<Params>& p) {
  return p ? Sorter(test_queue(), *p) : Sorter(test_queue());
}

/// Every SortOptions::constant_pass_check mode.
inline const std::vector<ConstantPassCheck>& every_constant_pass_check() {
  static const std::vector<ConstantPassCheck> modes{ConstantPassCheck::after_first_pass,
                                                    ConstantPassCheck::before_first_pass,
                                                    ConstantPassCheck::never};
  return modes;
}

/// The sets of `candidates` that the test device runs for these key and value widths (at least
/// one, or the test fails); the log names the others (warp_match ranking exists on NVIDIA GPUs
/// only).
inline std::vector<Params> runnable_on_test_device(const std::vector<Params>& candidates,
                                                   std::size_t key_bytes, std::size_t value_bytes) {
  std::vector<Params> runnable;
  for (const Params& p : candidates) {
    try {
      validate_for_device(p, test_device(), key_bytes, value_bytes);
      runnable.push_back(p);
    } catch (const Error& e) {
      BOOST_TEST_MESSAGE("not on this device: " << e.what());
    }
  }
  BOOST_TEST_REQUIRE(!runnable.empty(), "none of the parameter sets runs on the test device");
  return runnable;
}

}  // namespace clsort::test
