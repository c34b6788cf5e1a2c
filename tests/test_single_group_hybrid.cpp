// single_group_hybrid: how many top digits its passes sort for n keys, and whole sorts through
// its rank step and its fallback to every pass, against the reference.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "radix_kernels.hpp"
#include "support/opencl_fixture.hpp"
#include "support/sort_checks.hpp"

using namespace clsort;
using namespace clsort::test;

namespace {

// Sets the test device can run: serial ranking in one work-item (as CPUs run small sorts) and
// bitmask ranking everywhere, warp_match where it exists.
std::vector<Params> variants() {
  Params serial;
  serial.algorithm = Algorithm::single_group_hybrid;
  serial.ranking = Ranking::serial;
  serial.work_group_size = 1;
  serial.elements_per_thread = 2048;
  // 256 items of 4 keys hold as many as 64 of 16, which PoCL built 4 times as long (a key's
  // ranking has barriers, and PoCL turns each region between them into a loop over the items).
  Params bitmask = serial;
  bitmask.ranking = Ranking::bitmask;
  bitmask.work_group_size = 256;
  bitmask.elements_per_thread = 4;
  std::vector<Params> sets{serial, bitmask};
  Params warp = bitmask;
  warp.ranking = Ranking::warp_match;
  warp.work_group_size = 256;
  warp.elements_per_thread = 8;
  try {
    validate_for_device(warp, test_device(), 8, 4);
    sets.push_back(warp);
  } catch (const Error&) {
    BOOST_TEST_MESSAGE("warp_match ranking not available on this device");
  }
  return sets;
}

// Keys that all share their top `shared_bits` bits, the rest uniform.
std::vector<std::uint32_t> shared_top(std::size_t n, unsigned shared_bits) {
  std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(Distribution::uniform, n, 23);
  for (std::uint32_t& k : keys) k = (k >> shared_bits) | 0xA5A5A5A5u << (32 - shared_bits);
  return keys;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(single_group_hybrid_sorts)

BOOST_AUTO_TEST_CASE(passes_sort_the_fewest_top_digits_that_leave_buckets_of_four_keys) {
  Params p;
  p.radix_bits = 8;
  using detail::single_group_rank_from_bit;
  BOOST_TEST(single_group_rank_from_bit(p, 0, 0, 32) == 24u);  // at least one digit
  BOOST_TEST(single_group_rank_from_bit(p, 1024, 0, 32) == 24u);
  BOOST_TEST(single_group_rank_from_bit(p, 1025, 0, 32) == 16u);
  BOOST_TEST(single_group_rank_from_bit(p, 4096, 0, 64) == 48u);
  BOOST_TEST(single_group_rank_from_bit(p, 4096, 8, 20) == 8u);  // every bit: nothing to rank
  BOOST_TEST(single_group_rank_from_bit(p, 1024, 0, 8) == 0u);
  p.radix_bits = 3;
  BOOST_TEST(single_group_rank_from_bit(p, 1024, 0, 32) == 23u);  // 1,024 / 2^9 = 2
  BOOST_TEST(single_group_rank_from_bit(p, 2048, 4, 10) == 4u);   // 6 bits, all of them
}

// Uniform keys reach the rank step; all-equal, few-distinct and low-bit keys make buckets too
// large for it and fall back to every pass. The fallback's choice does not depend on the key
// type, so f64 and i16 keys take the distributions where their order differs from their bits'.
BOOST_AUTO_TEST_CASE(sorts_every_distribution_and_bit_range) {
  const std::vector<Distribution> signed_and_float{Distribution::uniform, Distribution::high_bits,
                                                   Distribution::few_distinct,
                                                   Distribution::extremes};
  for (const Params& p : variants()) {
    BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      Sorter sorter(test_queue(), p);
      const std::size_t capacity = single_group_capacity(p);
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{33},
                            std::size_t{1021}, capacity}) {
        for (bool descending : {false, true}) {
          const SortOptions o{descending};
          for (Distribution d : all_distributions())
            expect_sorted_pairs<std::uint32_t, std::uint32_t>(
                sorter, make_keys<std::uint32_t>(d, n, n + 1), o, to_string(d));
          for (Distribution d : signed_and_float) {
            expect_sorted_pairs<double, std::uint32_t>(sorter, make_keys<double>(d, n, n + 2), o,
                                                       to_string(d));
            expect_sorted_keys(sorter, make_keys<std::int16_t>(d, n, n + 3), o, to_string(d));
          }
        }
      }
      SortOptions middle_bits;
      middle_bits.begin_bit = 5;
      middle_bits.end_bit = 29;
      expect_sorted_pairs<std::uint32_t, std::uint32_t>(
          sorter, make_keys<std::uint32_t>(Distribution::uniform, capacity, 5), middle_bits,
          "uniform");
    }
  }
}

// The top 8 bits shared: the first pass leaves one bucket (too large to rank) at 1,024 keys;
// with 12 shared, two passes at 2,048 keys leave 16 buckets of 128 keys. Both fall back, stably.
BOOST_AUTO_TEST_CASE(buckets_too_large_to_rank_fall_back_to_every_pass) {
  for (const Params& p : variants()) {
    BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      Sorter sorter(test_queue(), p);
      for (auto [n, shared] : {std::pair{std::size_t{1024}, 8u}, {std::size_t{2048}, 12u}}) {
        if (n > single_group_capacity(p)) continue;
        for (bool descending : {false, true})
          expect_sorted_pairs<std::uint32_t, std::uint32_t>(sorter, shared_top(n, shared),
                                                            SortOptions{descending}, "shared top");
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
