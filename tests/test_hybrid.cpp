// The hybrid path: how many top digits bucket the keys, and whole sorts through it, its segment
// overflow included, against the reference.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "hybrid_plan.hpp"
#include "support/opencl_fixture.hpp"
#include "support/sort_checks.hpp"

using namespace clsort;
using namespace clsort::test;

namespace {

// Digit counts of one 8-bit pass: `present` digits sharing n keys.
std::vector<std::uint64_t> spread(std::uint64_t n, std::size_t present) {
  std::vector<std::uint64_t> counts(256, 0);
  for (std::size_t d = 0; d < present; ++d) counts[d] = n / present + (d < n % present);
  return counts;
}

// Hybrid sets the test device can run: bitmask ranking everywhere, warp_match where it exists.
std::vector<Params> hybrid_variants() {
  Params bitmask;
  bitmask.algorithm = Algorithm::hybrid;
  bitmask.work_group_size = 64;
  bitmask.elements_per_thread = 4;
  std::vector<Params> variants{bitmask};
  Params warp = bitmask;
  warp.ranking = Ranking::warp_match;
  warp.work_group_size = 256;
  warp.elements_per_thread = 16;
  try {
    validate_for_device(warp, test_device(), 8, 8);
    variants.push_back(warp);
  } catch (const Error&) {
    BOOST_TEST_MESSAGE("warp_match ranking not available on this device");
  }
  return variants;
}

// Keys of the segment kernel's tile for `p` on the test device.
std::uint64_t segment_tile(const Params& p, std::size_t key_bytes, std::size_t value_bytes) {
  const auto local = test_device().getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  return single_group_capacity(*detail::hybrid_segment_params(p, key_bytes, value_bytes, local));
}

// u64 keys whose top byte takes every value, half of them the top byte 0x80: by its digit
// counts the top pass alone makes small buckets, but that one bucket holds n / 2 keys.
std::vector<std::uint64_t> one_heavy_bucket(std::size_t n) {
  std::vector<std::uint64_t> keys = make_keys<std::uint64_t>(Distribution::uniform, n, 17);
  for (std::size_t i = 0; i < n; i += 2)
    keys[i] = (keys[i] & 0x00FFFFFFFFFFFFFFull) | 0x8000000000000000ull;
  return keys;
}

// Digit counts of each byte of the keys, low byte first, as the histogram counts them.
std::vector<std::vector<std::uint64_t>> byte_counts(const std::vector<std::uint64_t>& keys) {
  std::vector<std::vector<std::uint64_t>> counts(8, std::vector<std::uint64_t>(256, 0));
  for (std::uint64_t k : keys)
    for (std::size_t pass = 0; pass < 8; ++pass) ++counts[pass][(k >> (8 * pass)) & 0xFF];
  return counts;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(hybrid_sorts)

BOOST_AUTO_TEST_CASE(bucket_passes_follow_the_digits_present) {
  using detail::HybridPlan;
  const std::uint64_t tile = 4096;  // buckets of up to 1,024 keys on average are small enough
  // 2^20 uniform keys over 4 passes: one top pass leaves 4,096 a bucket, two leave 16.
  BOOST_TEST(HybridPlan::bucket_passes({spread(1 << 20, 256), spread(1 << 20, 256),
                                        spread(1 << 20, 256), spread(1 << 20, 256)},
                                       1 << 20, tile) == 2u);
  BOOST_TEST(HybridPlan::bucket_passes({spread(1 << 18, 256), spread(1 << 18, 256),
                                        spread(1 << 18, 256), spread(1 << 18, 256)},
                                       1 << 18, tile) == 1u);
  // Two varying passes leave nothing to save.
  BOOST_TEST(
      HybridPlan::bucket_passes({spread(1 << 18, 256), spread(1 << 18, 256)}, 1 << 18, tile) == 0u);
  // 7 distinct digits in each of the two passes allowed: 49 buckets of 21,400 keys at least
  // on average, so some bucket must exceed the tile.
  BOOST_TEST(HybridPlan::bucket_passes(
                 {spread(1 << 20, 7), spread(1 << 20, 7), spread(1 << 20, 7), spread(1 << 20, 7)},
                 1 << 20, tile) == 0u);
  // 16 digits in each pass: two passes would make 256 buckets of 256 keys, but keys with few
  // digits are likely few distinct keys, whose buckets are far fewer.
  BOOST_TEST(HybridPlan::bucket_passes({spread(1 << 16, 16), spread(1 << 16, 16),
                                        spread(1 << 16, 16), spread(1 << 16, 16)},
                                       1 << 16, tile) == 0u);
  // Counted from the top: only the top passes' digits matter.
  BOOST_TEST(HybridPlan::bucket_passes({spread(1 << 20, 2), spread(1 << 20, 2),
                                        spread(1 << 20, 256), spread(1 << 20, 256)},
                                       1 << 20, tile) == 2u);
  BOOST_TEST(HybridPlan::bucket_passes({spread(1 << 20, 256), spread(1 << 20, 256),
                                        spread(1 << 20, 2), spread(1 << 20, 256)},
                                       1 << 20, tile) == 0u);
}

BOOST_AUTO_TEST_CASE(sorts_every_distribution_and_bit_range) {
  for (const Params& p : hybrid_variants()) {
    BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      Sorter sorter(test_queue(), p);
      for (std::size_t n : {0, 1, 2, 777, 50021, 200003}) {
        for (Distribution d : all_distributions()) {
          for (bool descending : {false, true}) {
            const SortOptions o{descending};
            expect_sorted_keys(sorter, make_keys<std::uint64_t>(d, n, n + 1), o, to_string(d));
            expect_sorted_pairs<double, std::uint32_t>(sorter, make_keys<double>(d, n, n + 2), o,
                                                       to_string(d));
          }
        }
      }
      SortOptions middle_bits;
      middle_bits.begin_bit = 5;
      middle_bits.end_bit = 53;
      expect_sorted_pairs<std::int64_t, std::uint64_t>(
          sorter, make_keys<std::int64_t>(Distribution::uniform, 100003, 5), middle_bits,
          "uniform");
      expect_sorted_pairs<std::uint32_t, std::uint32_t>(
          sorter, make_keys<std::uint32_t>(Distribution::uniform, 300007, 6), {}, "uniform");
    }
  }
}

// The bucket of top byte 0x80 is larger than a segment's tile: the sort falls back to the
// passes over every digit and must still be stable.
BOOST_AUTO_TEST_CASE(an_overflowing_segment_falls_back_to_every_pass) {
  for (const Params& p : hybrid_variants()) {
    BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      const std::uint64_t tile = segment_tile(p, 8, 4);
      const std::size_t n = 40 * tile + 1;  // 256 buckets of n / 256 < tile / 4 by the counts
      BOOST_TEST_REQUIRE(
          detail::HybridPlan::bucket_passes(byte_counts(one_heavy_bucket(n)), n, tile) == 1u);
      BOOST_TEST_REQUIRE(n / 2 > tile);
      Sorter sorter(test_queue(), p);
      for (bool descending : {false, true})
        expect_sorted_pairs<std::uint64_t, std::uint32_t>(sorter, one_heavy_bucket(n),
                                                          SortOptions{descending}, "heavy bucket");
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
