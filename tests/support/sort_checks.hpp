// Whole-sort checks: run the library, compare bit for bit with the std::stable_sort reference.
#pragma once

#include <boost/test/unit_test.hpp>

#include <string>
#include <tuple>

#include <clsort/clsort.hpp>

#include "inputs.hpp"
#include "reference.hpp"

namespace clsort::test {

using AllKeyTypes =
    std::tuple<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, std::int8_t, std::int16_t,
               std::int32_t, std::int64_t, float, double>;

/// Calls f(TypeTag<K>{}) for every key type K.
template <class F>
void for_each_key_type(F&& f) {
  std::apply([&](auto... keys) { (f(TypeTag<decltype(keys)>{}), ...); }, AllKeyTypes{});
}

struct Value16 {
  std::uint64_t low, high;
};

/// Values that identify their input position (as far as their width allows).
template <class V>
std::vector<V> position_values(std::size_t n) {
  std::vector<V> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<V, Value16>) {
      values[i] = {i, ~std::uint64_t{i}};
    } else {
      values[i] = static_cast<V>(i * 2654435761u);
    }
  }
  return values;
}

inline std::string describe(std::string_view type, std::size_t n, const std::string& what,
                            const SortOptions& o) {
  std::string text = std::string(type) + " n=" + std::to_string(n) + " " + what +
                     (o.descending ? " descending" : " ascending");
  if (o.begin_bit != 0 || o.end_bit)
    text += " bits [" + std::to_string(o.begin_bit) + ", " +
            (o.end_bit ? std::to_string(*o.end_bit) : "end") + ")";
  return text;
}

template <class K>
void expect_sorted_keys(Sorter& sorter, std::vector<K> keys, const SortOptions& o,
                        const std::string& what) {
  const auto expected = permuted(keys, reference_permutation(keys, o));
  sorter.sort(keys, o);
  const std::size_t diff = first_difference(keys, expected);
  BOOST_TEST(diff == keys.size(), describe(to_string(key_type_of<K>()), keys.size(), what, o)
                                      << ": first difference at index " << diff);
}

template <class K, class V>
void expect_sorted_pairs(Sorter& sorter, std::vector<K> keys, const SortOptions& o,
                         const std::string& what) {
  std::vector<V> values = position_values<V>(keys.size());
  const auto order = reference_permutation(keys, o);
  const auto expected_keys = permuted(keys, order);
  const auto expected_values = permuted(values, order);
  sorter.sort_pairs(keys, values, o);
  const std::size_t key_diff = first_difference(keys, expected_keys);
  const std::size_t value_diff = first_difference(values, expected_values);
  const std::string label =
      describe(to_string(key_type_of<K>()), keys.size(),
               what + " pairs of " + std::to_string(sizeof(V)) + "-byte values", o);
  BOOST_TEST(key_diff == keys.size(), label << ": first key difference at " << key_diff);
  BOOST_TEST(value_diff == keys.size(), label << ": first value difference at " << value_diff);
}

/// Sorts pairs with the value type of the given width (1, 2, 4, 8 or 16 bytes).
template <class K>
void expect_sorted_pairs_of_width(Sorter& sorter, std::vector<K> keys, const SortOptions& o,
                                  const std::string& what, std::size_t value_bytes) {
  switch (value_bytes) {
    case 1:
      return expect_sorted_pairs<K, std::uint8_t>(sorter, std::move(keys), o, what);
    case 2:
      return expect_sorted_pairs<K, std::uint16_t>(sorter, std::move(keys), o, what);
    case 4:
      return expect_sorted_pairs<K, std::uint32_t>(sorter, std::move(keys), o, what);
    case 8:
      return expect_sorted_pairs<K, std::uint64_t>(sorter, std::move(keys), o, what);
    default:
      return expect_sorted_pairs<K, Value16>(sorter, std::move(keys), o, what);
  }
}

// The checks of every key type with every value width are compiled once, in sort_checks.cpp,
// rather than in each suite that uses them (the suites' builds took a third of the time).
#define CLSORT_SORT_CHECKS_OF_PAIRS(PREFIX, K, V)                                             \
  PREFIX template void expect_sorted_pairs<K, V>(Sorter&, std::vector<K>, const SortOptions&, \
                                                 const std::string&);
#define CLSORT_SORT_CHECKS_OF_KEYS(PREFIX, K)                                              \
  PREFIX template std::vector<K> make_keys<K>(Distribution, std::size_t, std::uint64_t);   \
  PREFIX template std::vector<std::size_t> reference_permutation<K>(const std::vector<K>&, \
                                                                    const SortOptions&);   \
  PREFIX template void expect_sorted_keys<K>(Sorter&, std::vector<K>, const SortOptions&,  \
                                             const std::string&);                          \
  PREFIX template void expect_sorted_pairs_of_width<K>(                                    \
      Sorter&, std::vector<K>, const SortOptions&, const std::string&, std::size_t);       \
  CLSORT_SORT_CHECKS_OF_PAIRS(PREFIX, K, std::uint8_t)                                     \
  CLSORT_SORT_CHECKS_OF_PAIRS(PREFIX, K, std::uint16_t)                                    \
  CLSORT_SORT_CHECKS_OF_PAIRS(PREFIX, K, std::uint32_t)                                    \
  CLSORT_SORT_CHECKS_OF_PAIRS(PREFIX, K, std::uint64_t)                                    \
  CLSORT_SORT_CHECKS_OF_PAIRS(PREFIX, K, Value16)
/// PREFIX `extern`: declares the checks compiled in sort_checks.cpp; empty: compiles them.
#define CLSORT_SORT_CHECKS(PREFIX)                  \
  CLSORT_SORT_CHECKS_OF_KEYS(PREFIX, std::uint8_t)  \
  CLSORT_SORT_CHECKS_OF_KEYS(PREFIX, std::uint16_t) \
  CLSORT_SORT_CHECKS_OF_KEYS(PREFIX, std::uint32_t) \
  CLSORT_SORT_CHECKS_OF_KEYS(PREFIX, std::uint64_t) \
  CLSORT_SORT_CHECKS_OF_KEYS(PREFIX, std::int8_t)   \
  CLSORT_SORT_CHECKS_OF_KEYS(PREFIX, std::int16_t)  \
  CLSORT_SORT_CHECKS_OF_KEYS(PREFIX, std::int32_t)  \
  CLSORT_SORT_CHECKS_OF_KEYS(PREFIX, std::int64_t)  \
  CLSORT_SORT_CHECKS_OF_KEYS(PREFIX, float)         \
  CLSORT_SORT_CHECKS_OF_KEYS(PREFIX, double)
CLSORT_SORT_CHECKS(extern)

}  // namespace clsort::test
