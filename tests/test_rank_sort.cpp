// rank_sort: how it splits a sort among work-groups, and its sorts of every shape, type,
// distribution and bit range against the reference.
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "rank_sort_plan.hpp"
#include "support/opencl_fixture.hpp"
#include "support/plan_sorts.hpp"
#include "support/sort_checks.hpp"

using namespace clsort;
using namespace clsort::test;
using detail::rank_sort_shape;

namespace {

Params rank_sort_params(int work_group_size, int elements_per_thread, int bucket_bits = 0) {
  Params p;
  p.algorithm = Algorithm::rank_sort;
  p.work_group_size = work_group_size;
  p.elements_per_thread = elements_per_thread;
  p.bucket_bits = bucket_bits;
  return p;
}

// Work-group sizes from one item to the device's largest power of two up to 256, each with 1, 3
// and 16 keys an item, comparing with every key, and 512 x 15 (the built-in default for 32-bit
// keys where warps rank); and bucketed, with more buckets than work-items and fewer.
std::vector<Params> shapes() {
  const std::size_t max_wg = test_device().getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  std::vector<Params> sets;
  for (int wg : {1, 2, 64, 256})
    for (int ept : {1, 3, 16})
      if (static_cast<std::size_t>(wg) <= max_wg) sets.push_back(rank_sort_params(wg, ept));
  if (max_wg >= 512) sets.push_back(rank_sort_params(512, 15));
  for (int wg : {1, 64, 256})
    for (auto [ept, bucket_bits] : {std::pair{3, 8}, std::pair{16, 5}})
      if (static_cast<std::size_t>(wg) <= max_wg)
        sets.push_back(rank_sort_params(wg, ept, bucket_bits));
  return sets;
}

// Comparing with every key, and with the keys of the key's bucket.
const std::vector<int> bucket_choices{0, 8};

}  // namespace

BOOST_AUTO_TEST_SUITE(rank_sorts)

BOOST_AUTO_TEST_CASE(one_work_group_takes_every_key_where_groups_cannot_wait_for_each_other) {
  const Params p = rank_sort_params(64, 16);
  for (std::uint64_t n : {1, 5, 64, 1000, 1024}) {
    const auto shape = rank_sort_shape(p, n, 1, 1);
    BOOST_TEST(shape.groups == 1u);
    BOOST_TEST(shape.block_keys >= n);
    BOOST_TEST(shape.block_keys <= single_group_capacity(p));
  }
  // Fewer keys than work-items: slices of the next power of two, so more slices share a key.
  BOOST_TEST(rank_sort_shape(p, 5, 1, 1).lanes == 8u);
  BOOST_TEST(rank_sort_shape(p, 1000, 1, 1).lanes == 64u);
}

BOOST_AUTO_TEST_CASE(work_groups_share_the_keys_up_to_one_per_compute_unit) {
  const Params p = rank_sort_params(256, 16);
  // 4,096 keys on 132 compute units: blocks of one warp's 32 keys, 8 slices each, 128 groups.
  auto shape = rank_sort_shape(p, 4096, 132, 32);
  BOOST_TEST(shape.groups == 128u);
  BOOST_TEST(shape.block_keys == 32u);
  BOOST_TEST(shape.lanes == 32u);
  // Slices never narrower than a warp: 1,024 keys take 32 groups, not 132 of 8 keys.
  shape = rank_sort_shape(p, 1024, 132, 32);
  BOOST_TEST(shape.groups == 32u);
  BOOST_TEST(shape.block_keys == 32u);
  // A last block shorter than the others; never more groups than compute units.
  for (std::uint64_t n : {1u, 33u, 4095u, 4096u, 4097u, 9999u}) {
    shape = rank_sort_shape(p, n, 132, 32);
    BOOST_TEST(shape.groups <= 132u);
    BOOST_TEST(shape.groups * shape.block_keys >= n);
    BOOST_TEST((shape.groups - 1) * shape.block_keys < n);
    BOOST_TEST(256 % shape.lanes == 0u);
  }
  // More keys than one block of work-items holds: each item ranks several.
  shape = rank_sort_shape(p, 4096, 4, 32);
  BOOST_TEST(shape.groups == 4u);
  BOOST_TEST(shape.lanes == 256u);
  BOOST_TEST(shape.block_keys == 1024u);
}

BOOST_AUTO_TEST_CASE(work_group_sizes_must_be_powers_of_two_and_bounds_32_bit) {
  BOOST_CHECK_EXCEPTION(validate(rank_sort_params(96, 4)), Error, [](const Error& e) {
    return std::string(e.what()).find("rank_sort needs work_group_size a power of two; got 96") !=
           std::string::npos;
  });
  validate(rank_sort_params(128, 4));
  BOOST_CHECK_EXCEPTION(validate(rank_sort_params(4096, 256)), Error, [](const Error& e) {
    return std::string(e.what()).find("work_group_size^2 * elements_per_thread below 2^32") !=
           std::string::npos;
  });
  validate(rank_sort_params(4096, 16));
}

// Each key's count (and with buckets its position) takes 16 bits.
BOOST_AUTO_TEST_CASE(sets_hold_at_most_65536_keys_and_only_rank_sort_has_buckets) {
  for (const int bucket_bits : {0, 8}) {
    validate(rank_sort_params(256, 256, bucket_bits));
    BOOST_CHECK_EXCEPTION(
        validate(rank_sort_params(256, 257, bucket_bits)), Error, [](const Error& e) {
          return std::string(e.what()).find("rank_sort holds at most 65536 keys") !=
                 std::string::npos;
        });
  }
  Params single_group = rank_sort_params(256, 16, 8);
  single_group.algorithm = Algorithm::single_group;
  BOOST_CHECK_EXCEPTION(validate(single_group), Error, [](const Error& e) {
    return std::string(e.what()).find("bucket_bits = 8 needs algorithm = rank_sort") !=
           std::string::npos;
  });
}

// Up to the capacity and one past it (which runs the built-in default); on NVIDIA GPUs sizes
// from one to a hundred and more work-groups, blocks cut anywhere.
BOOST_AUTO_TEST_CASE(every_shape_sorts_keys_and_pairs_stably) {
  for (const Params& p : shapes()) {
    BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      Sorter sorter(test_queue(), p);
      const std::size_t capacity = single_group_capacity(p);
      std::uint64_t seed = 40;
      for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{33}, capacity / 2 + 1,
                            capacity - 1, capacity, capacity + 1}) {
        for (bool descending : {false, true}) {
          const SortOptions o{descending};
          expect_sorted_keys(sorter, make_keys<std::uint32_t>(Distribution::uniform, n, seed++), o,
                             "uniform");
          expect_sorted_pairs<std::uint32_t, std::uint32_t>(
              sorter, make_keys<std::uint32_t>(Distribution::few_distinct, n, seed++), o,
              "few_distinct");
        }
      }
    }
  }
}

// Values only ride along with their keys: each key type's pairs take one value width, the
// widths in turn from type to type (every width meets keys of two sizes), and the bucketed
// kernels, whose buckets the values do not change, take 4-byte values, which keeps PoCL's cold
// builds of the suite within minutes.
BOOST_DATA_TEST_CASE(every_type_and_distribution, bucket_choices, bucket_bits) {
  Sorter sorter(test_queue(), rank_sort_params(64, 32, bucket_bits));
  std::uint64_t seed = 70;
  std::size_t type_index = 0;
  for_each_key_type([&](auto tag) {
    using K = typename decltype(tag)::type;
    const std::size_t width = bucket_bits == 0 ? std::size_t{1} << (type_index++ % 5) : 4;
    for (std::size_t n : {3, 257, 2039})
      for (Distribution d : all_distributions())
        for (bool descending : {false, true}) {
          const SortOptions o{descending};
          expect_sorted_keys(sorter, make_keys<K>(d, n, seed++), o, to_string(d));
          expect_sorted_pairs_of_width(sorter, make_keys<K>(d, n, seed++), o, to_string(d), width);
        }
  });
}

BOOST_DATA_TEST_CASE(bit_ranges, bucket_choices, bucket_bits) {
  Sorter sorter(test_queue(), rank_sort_params(64, 32, bucket_bits));
  std::uint64_t seed = 90;
  for_each_key_type([&](auto tag) {
    using K = typename decltype(tag)::type;
    const unsigned width = sizeof(K) * 8;
    for (auto [begin, end] : std::vector<std::pair<unsigned, unsigned>>{
             {0, 1}, {2, width / 2 + 3}, {width / 2, width}, {width - 1, width}, {1, width}})
      for (bool descending : {false, true}) {
        const SortOptions o{descending, begin, end};
        expect_sorted_pairs<K, std::uint32_t>(
            sorter, make_keys<K>(Distribution::uniform, 2039, seed++), o, "uniform");
        expect_sorted_pairs<K, std::uint32_t>(
            sorter, make_keys<K>(Distribution::extremes, 1031, seed++), o, "extremes");
      }
  });
}

// Into other buffers no work-group waits for another, so the sort spreads over the compute
// units of any device (PoCL's included): later blocks count the keys before them and after them
// four at a time, keys of every storage width (u8 to f64), every distribution, the same plan
// sorting in place between (its counters stay balanced).
template <class K, class V>
void expect_spread_sorts(std::uint64_t& seed) {
  const std::size_t value_bytes = std::is_same_v<V, KeysOnly> ? 0 : sizeof(V);
  detail::RankSortPlan plan(
      test_context(), test_device(),
      detail::KernelConfig{key_type_of<K>(), value_bytes, false, rank_sort_params(64, 32)});
  for (Distribution d : all_distributions()) {
    for (std::size_t n : {1, 5, 35, 1000, 2039, 2048})
      for (bool descending : {false, true}) {
        const SortOptions o{descending};
        expect_plan_sorts<K, V>(plan, make_keys<K>(d, n, seed++), o, to_string(d),
                                Placement::into_others);
        expect_plan_sorts<K, V>(plan, make_keys<K>(d, n, seed++), o, to_string(d));
      }
    const SortOptions bits{false, 3, sizeof(K) * 6};
    expect_plan_sorts<K, V>(plan, make_keys<K>(d, 2039, seed++), bits, to_string(d),
                            Placement::into_others);
  }
}

BOOST_AUTO_TEST_CASE(sorts_into_other_buffers_spread_over_the_compute_units) {
  const auto compute_units = test_device().getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  BOOST_TEST_REQUIRE(compute_units >= 2u, "spreading a sort needs 2 or more compute units");
  BOOST_TEST(rank_sort_shape(rank_sort_params(64, 32), 1000, compute_units, 1).groups >= 2u);
  std::uint64_t seed = 130;
  expect_spread_sorts<std::uint8_t, KeysOnly>(seed);
  expect_spread_sorts<std::int16_t, std::uint32_t>(seed);
  expect_spread_sorts<float, std::uint32_t>(seed);
  expect_spread_sorts<double, KeysOnly>(seed);
}

// The work-groups' counters return to zero after every sort: sorts of changing sizes one after
// another, each a different number of work-groups where the device spreads them.
BOOST_DATA_TEST_CASE(sorts_of_changing_sizes_one_after_another, bucket_choices, bucket_bits) {
  Sorter sorter(test_queue(), rank_sort_params(64, 32, bucket_bits));
  std::uint64_t seed = 110;
  for (int round = 0; round < 3; ++round)
    for (std::size_t n : {2048, 7, 1500, 64, 65, 2047})
      expect_sorted_keys(sorter, make_keys<float>(Distribution::extremes, n, seed++), {},
                         "extremes");
}

BOOST_AUTO_TEST_SUITE_END()
