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

/// A device buffer holding `data` (one element's bytes, unset, where it is empty).
template <class T>
cl::Buffer device_copy(std::vector<T>& data) {
  if (data.empty()) return cl::Buffer(test_context(), CL_MEM_READ_WRITE, sizeof(T));
  return cl::Buffer(test_context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                    data.size() * sizeof(T), data.data());
}

template <class T>
void read_into(const cl::Buffer& buffer, std::vector<T>& data) {
  if (data.empty()) return;
  detail::check(
      test_queue().enqueueReadBuffer(buffer, CL_TRUE, 0, data.size() * sizeof(T), data.data()),
      "read buffer", "sorted data");
}

/// Where a plan's sort writes: over its input, or into other buffers.
enum class Placement { in_place, into_others };

/// Sorts keys (and position values, unless V is KeysOnly) with `plan` and checks both against
/// the stable reference, and sorted into other buffers, the input against what it held.
template <class K, class V>
void expect_plan_sorts(detail::SortPlan& plan, std::vector<K> keys, const SortOptions& o,
                       const std::string& what, Placement placement = Placement::in_place) {
  const std::vector<K> input_keys = keys;
  const auto order = reference_permutation(keys, o);
  const auto expected_keys = permuted(keys, order);
  constexpr bool has_values = !std::is_same_v<V, KeysOnly>;
  const bool into = placement == Placement::into_others;
  detail::PassData input{device_copy(keys), {}};
  detail::PassData output{into ? device_copy(keys) : input.keys, {}};
  std::vector<V> values;
  if constexpr (has_values) {
    values = position_values<V>(keys.size());
    input.values = device_copy(values);
    output.values = into ? device_copy(values) : input.values;
  }
  detail::CommandChain chain(test_queue(), {});
  const detail::SortSpec spec{o.begin_bit, o.end_bit.value_or(sizeof(K) * 8), o.descending,
                              o.constant_pass_check};
  plan.run(chain, input, output, keys.size(), spec);
  chain.done();
  detail::check(test_queue().finish(), "finish");
  const std::string label = describe(to_string(key_type_of<K>()), keys.size(), what, o) +
                            (into ? ", into other buffers" : "");
  const auto expect_holds = [&](const cl::Buffer& buffer, const auto& expected, const char* of) {
    std::remove_const_t<std::remove_reference_t<decltype(expected)>> held(expected.size());
    read_into(buffer, held);
    const std::size_t diff = first_difference(held, expected);
    BOOST_TEST(diff == expected.size(), label << ": first difference of " << of << " at " << diff);
  };
  expect_holds(output.keys, expected_keys, "keys");
  if (into) expect_holds(input.keys, input_keys, "the input keys");
  if constexpr (has_values) {
    expect_holds(output.values, permuted(values, order), "values");
    if (into) expect_holds(input.values, values, "the input values");
  }
}

}  // namespace clsort::test
