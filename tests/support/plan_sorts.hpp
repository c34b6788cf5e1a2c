// Sorts through one plan of the library's internals (not a Sorter), checked against the
// stable reference: for plans built with settings that no Sorter takes, such as small portions.
#pragma once

#include <boost/test/unit_test.hpp>

#include <string>
#include <type_traits>
#include <vector>

#include "command_chain.hpp"
#include "opencl_fixture.hpp"
#include "sort_checks.hpp"
#include "sort_plan.hpp"

namespace clsort::test {

struct KeysOnly {};  // the value type of sorts without values

template <class T>
cl::Buffer device_copy(std::vector<T>& data) {
  return cl::Buffer(test_context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                    std::max<std::size_t>(data.size(), 1) * sizeof(T), data.data());
}

template <class T>
void read_into(const cl::Buffer& buffer, std::vector<T>& data) {
  detail::check(
      test_queue().enqueueReadBuffer(buffer, CL_TRUE, 0, data.size() * sizeof(T), data.data()),
      "read buffer", "sorted data");
}

/// Sorts keys (and position values, unless V is KeysOnly) with `plan` and checks both against
/// the stable reference.
template <class K, class V>
void expect_plan_sorts(detail::SortPlan& plan, std::vector<K> keys, const SortOptions& o,
                       const std::string& what) {
  const auto order = reference_permutation(keys, o);
  const auto expected_keys = permuted(keys, order);
  constexpr bool has_values = !std::is_same_v<V, KeysOnly>;
  detail::PassData data{device_copy(keys), {}};
  std::vector<V> values;
  if constexpr (has_values) {
    values = position_values<V>(keys.size());
    data.values = device_copy(values);
  }
  detail::CommandChain chain(test_queue(), {});
  const detail::SortSpec spec{o.begin_bit, o.end_bit.value_or(sizeof(K) * 8), o.descending,
                              o.constant_pass_check};
  plan.run(chain, data, keys.size(), spec);
  chain.done();
  detail::check(test_queue().finish(), "finish");
  read_into(data.keys, keys);
  const std::string label = describe(to_string(key_type_of<K>()), keys.size(), what, o);
  const std::size_t key_diff = first_difference(keys, expected_keys);
  BOOST_TEST(key_diff == keys.size(), label << ": first key difference at " << key_diff);
  if constexpr (has_values) {
    read_into(data.values, values);
    const auto expected_values = permuted(position_values<V>(keys.size()), order);
    const std::size_t value_diff = first_difference(values, expected_values);
    BOOST_TEST(value_diff == keys.size(), label << ": first value difference at " << value_diff);
  }
}

}  // namespace clsort::test
