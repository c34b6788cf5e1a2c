// Tests of key type traits and of the key -> ordered-bits transform the order is defined by.
#include <boost/test/unit_test.hpp>

#include <clsort/key_order.hpp>
#include <clsort/types.hpp>

#include "support/inputs.hpp"
#include "support/reference.hpp"
#include "support/sort_checks.hpp"

using namespace clsort;
using namespace clsort::test;

BOOST_AUTO_TEST_SUITE(key_types)

BOOST_AUTO_TEST_CASE(names_sizes_and_kinds) {
  BOOST_TEST(key_size(KeyType::u8) == 1u);
  BOOST_TEST(key_size(KeyType::i16) == 2u);
  BOOST_TEST(key_size(KeyType::f32) == 4u);
  BOOST_TEST(key_bits(KeyType::f64) == 64u);
  BOOST_TEST((key_kind(KeyType::i64) == KeyKind::signed_integer));
  BOOST_TEST((key_kind(KeyType::f32) == KeyKind::floating_point));
  for (const char* name : {"u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64"})
    BOOST_TEST(to_string(*parse_key_type(name)) == name);
  BOOST_TEST(!parse_key_type("u128"));
  BOOST_TEST(!parse_key_type("F32"));
  static_assert(key_type_of<double>() == KeyType::f64);
  static_assert(key_type_of<const std::int8_t>() == KeyType::i8);
  static_assert(key_type_of<unsigned long long>() == KeyType::u64);
}

// The ordered bits must order every pair of hard keys exactly as the documented comparator.
BOOST_AUTO_TEST_CASE(ordered_bits_agree_with_the_comparator) {
  for_each_key_type([](auto tag) {
    using K = typename decltype(tag)::type;
    auto keys = extreme_keys<K>();
    const auto more = make_keys<K>(Distribution::uniform, 200, 11);
    keys.insert(keys.end(), more.begin(), more.end());
    for (bool descending : {false, true})
      for (K a : keys)
        for (K b : keys) {
          const bool by_bits =
              reference_ordered_bits(a, descending) < reference_ordered_bits(b, descending);
          BOOST_TEST(by_bits == sorts_before(a, b, descending),
                     to_string(key_type_of<K>()) << " descending=" << descending);
        }
  });
}

// The public host-side order (clsort/key_order.hpp) is the documented one.
BOOST_AUTO_TEST_CASE(public_ordered_bits_match_the_reference) {
  for_each_key_type([](auto tag) {
    using K = typename decltype(tag)::type;
    auto keys = extreme_keys<K>();
    const auto more = make_keys<K>(Distribution::uniform, 1000, 12);
    keys.insert(keys.end(), more.begin(), more.end());
    for (bool descending : {false, true})
      for (K k : keys)
        BOOST_TEST(clsort::ordered_bits(k, descending) == reference_ordered_bits(k, descending));
  });
}

BOOST_AUTO_TEST_CASE(special_float_keys) {
  for (bool descending : {false, true}) {
    BOOST_TEST(reference_ordered_bits(-0.0f, descending) ==
               reference_ordered_bits(0.0f, descending));
    const float nan = std::numeric_limits<float>::quiet_NaN();
    BOOST_TEST(reference_ordered_bits(-nan, descending) == 0xFFFFFFFFu);  // NaN last in both orders
    BOOST_TEST(reference_ordered_bits(std::numeric_limits<float>::infinity(), descending) <
               0xFFFFFFFFu);
  }
  // INT_MIN is first ascending and last descending.
  BOOST_TEST(reference_ordered_bits(std::numeric_limits<std::int32_t>::min(), false) == 0u);
  BOOST_TEST(reference_ordered_bits(std::numeric_limits<std::int32_t>::min(), true) == 0xFFFFFFFFu);
}

BOOST_AUTO_TEST_SUITE_END()
