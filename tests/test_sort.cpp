// Whole sorts against std::stable_sort: every key type, both orders, keys and pairs, every size
// class and distribution, with the device's default parameters and with bitmask ranking.
#include <boost/test/unit_test.hpp>

#include <array>
#include <cstdint>

#include "onesweep_plan.hpp"
#include "support/opencl_fixture.hpp"
#include "support/param_sets.hpp"
#include "support/sort_checks.hpp"

using namespace clsort;
using namespace clsort::test;

namespace {

const std::vector<std::size_t> small_sizes{0,   1,   2,   3,    31,   32,   33,
                                           255, 256, 257, 4095, 4097, 65537};

// The Sorter's own per-class defaults (nullopt), reduce-then-scan with bitmask ranking, onesweep
// and fused_onesweep with bitmask ranking, single_group, rank_sort, and onesweep and
// fused_onesweep with warp_match where the device has it: every path runs on every device that
// can run it.
std::vector<std::optional<Params>> ranking_variants() {
  Params bitmask;
  bitmask.work_group_size = 64;
  bitmask.elements_per_thread = 8;
  bitmask.scan_work_group_size = 64;
  Params onesweep = bitmask;
  onesweep.algorithm = Algorithm::onesweep;
  onesweep.elements_per_thread = 5;
  Params single_group = bitmask;
  single_group.algorithm = Algorithm::single_group;
  single_group.ranking = Ranking::serial;
  single_group.radix_bits = 4;            // its counters then fit 48 KiB beside 1,024 24-byte pairs
  single_group.elements_per_thread = 16;  // 1,024 keys; larger sorts run the default
  Params fused = onesweep;
  fused.algorithm = Algorithm::fused_onesweep;
  Params rank_sort = bitmask;
  rank_sort.algorithm = Algorithm::rank_sort;
  rank_sort.elements_per_thread = 16;  // 1,024 keys
  std::vector<std::optional<Params>> variants{std::nullopt, bitmask,      onesweep,
                                              fused,        single_group, rank_sort};
  Params warp = onesweep;
  warp.ranking = Ranking::warp_match;
  Params fused_warp = fused;
  fused_warp.ranking = Ranking::warp_match;
  try {
    validate_for_device(warp, test_device(), 8, 16);
    validate_for_device(fused_warp, test_device(), 8, 16);
    variants.push_back(warp);
    variants.push_back(fused_warp);
  } catch (const Error&) {
    BOOST_TEST_MESSAGE("warp_match ranking not available on this device");
  }
  return variants;
}

// The sizes worth running a variant at: single_group's and rank_sort's up to their capacity
// (larger sorts run the defaults, which their own variant covers).
std::uint64_t largest_size(const std::optional<Params>& p) {
  return p ? most_keys(*p) : UINT64_MAX;
}

// How many of the key types are `bytes` wide: u8 and i8; u16 and i16; u32, i32 and f32; u64, i64
// and f64.
std::size_t key_types_of_width(std::size_t bytes) {
  return bytes <= 2 ? 2 : 3;
}

// The value widths of pairs: 1, 2, 4, 8 and 16 bytes.
constexpr std::size_t value_widths = 5;

// Sorts keys, or pairs whose values alternate between two widths: the widths of index
// `width_index` and two past it (mod 5).
template <class K>
void sort_all_small_inputs(Sorter& sorter, bool pairs, std::size_t largest,
                           std::size_t width_index = 0) {
  std::uint64_t seed = 1;
  std::size_t sorts = 0;
  for (std::size_t n : small_sizes) {
    if (n > largest) break;
    for (Distribution d : all_distributions()) {
      for (bool descending : {false, true}) {
        const SortOptions o{descending};
        auto keys = make_keys<K>(d, n, seed++);
        if (pairs) {
          const std::size_t index = (width_index + 2 * (sorts++ % 2)) % value_widths;
          expect_sorted_pairs_of_width(sorter, std::move(keys), o, to_string(d),
                                       std::size_t{1} << index);
        } else {
          expect_sorted_keys(sorter, std::move(keys), o, to_string(d));
        }
      }
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(whole_sorts)

BOOST_AUTO_TEST_CASE(keys_small_sizes_every_type_and_distribution) {
  for (const auto& params : ranking_variants()) {
    BOOST_TEST_CONTEXT(describe(params)) {
      Sorter sorter = make_sorter(params);
      for_each_key_type([&](auto tag) {
        using K = typename decltype(tag)::type;
        sort_all_small_inputs<K>(sorter, false, largest_size(params));
      });
    }
  }
}

// Each variant sorts the pairs of one key type of each width (1, 2, 4 and 8 bytes), the types of
// a width taking turns from variant to variant, each with two of the five value widths, a
// different two for each key width and variant: every key width meets every variant and every
// value width, and every key type meets pairs (keys_small_sizes sorts every type with every
// variant), while each variant builds 8 pair programs (on PoCL the build is most of a sort's
// time).
BOOST_AUTO_TEST_CASE(pairs_small_sizes_every_width_and_distribution) {
  std::size_t variant_index = 0;
  for (const auto& params : ranking_variants()) {
    BOOST_TEST_CONTEXT(describe(params)) {
      Sorter sorter = make_sorter(params);
      std::array<std::size_t, 9> types_of_width{};  // by key bytes: the types seen so far
      std::size_t width_index = 0;
      for_each_key_type([&](auto tag) {
        using K = typename decltype(tag)::type;
        const std::size_t turn = types_of_width[sizeof(K)]++;
        if (turn != variant_index % key_types_of_width(sizeof(K))) return;
        sort_all_small_inputs<K>(sorter, true, largest_size(params), variant_index + width_index++);
      });
    }
    ++variant_index;
  }
}

BOOST_AUTO_TEST_CASE(a_million_keys_every_type) {
  Sorter sorter(test_queue());
  const std::size_t n = (std::size_t{1} << 20) + 5;
  std::uint64_t seed = 100;
  for_each_key_type([&](auto tag) {
    using K = typename decltype(tag)::type;
    for (Distribution d : {Distribution::uniform, Distribution::few_distinct}) {
      for (bool descending : {false, true}) {
        const SortOptions o{descending};
        expect_sorted_keys(sorter, make_keys<K>(d, n, seed++), o, to_string(d));
        expect_sorted_pairs<K, std::uint32_t>(sorter, make_keys<K>(d, n, seed++), o, to_string(d));
      }
    }
  });
}

BOOST_AUTO_TEST_CASE(a_few_million_keys) {
  Sorter sorter(test_queue());
  const std::size_t n = 3'000'017;
  std::uint64_t seed = 200;
  for_each_key_type([&](auto tag) {
    using K = typename decltype(tag)::type;
    if constexpr (sizeof(K) >= 4) {
      for (bool descending : {false, true})
        expect_sorted_keys(sorter, make_keys<K>(Distribution::uniform, n, seed++), {descending},
                           "uniform");
    }
  });
  expect_sorted_pairs<double, std::uint64_t>(
      sorter, make_keys<double>(Distribution::extremes, n, 7), {}, "extremes");
}

BOOST_AUTO_TEST_CASE(bit_ranges) {
  Sorter sorter(test_queue());
  std::uint64_t seed = 300;
  for_each_key_type([&](auto tag) {
    using K = typename decltype(tag)::type;
    const unsigned width = sizeof(K) * 8;
    const std::vector<std::pair<unsigned, unsigned>> ranges{{0, 0},
                                                            {3, 3},
                                                            {0, 1},
                                                            {0, 7},
                                                            {2, width / 2 + 3},
                                                            {width / 2, width},
                                                            {width - 1, width},
                                                            {width, width},
                                                            {1, width}};
    for (auto [begin, end] : ranges) {
      if (end > width || begin > end) continue;
      for (bool descending : {false, true}) {
        const SortOptions o{descending, begin, end};
        expect_sorted_keys(sorter, make_keys<K>(Distribution::uniform, 5003, seed++), o, "uniform");
        expect_sorted_pairs<K, std::uint32_t>(
            sorter, make_keys<K>(Distribution::extremes, 3001, seed++), o, "extremes");
      }
    }
  });
}

// Skipping constant passes and running every pass must give the same order: each check mode,
// on inputs where some passes are constant (and one where all are), on every onesweep variant and
// single_group (which skips them on the device).
BOOST_AUTO_TEST_CASE(every_constant_pass_check_mode) {
  const std::vector<Distribution> inputs{Distribution::all_equal, Distribution::low_bits,
                                         Distribution::high_bits, Distribution::few_distinct,
                                         Distribution::uniform};
  std::uint64_t seed = 400;
  for (const auto& params : ranking_variants()) {
    if (params && params->algorithm == Algorithm::reduce_then_scan) continue;
    BOOST_TEST_CONTEXT(describe(params)) {
      Sorter sorter = make_sorter(params);
      for (ConstantPassCheck check : every_constant_pass_check()) {
        BOOST_TEST_CONTEXT("constant_pass_check " << static_cast<int>(check)) {
          for (std::size_t n : {2u, 1000u, 4097u, 65537u}) {
            for (Distribution d : inputs) {
              const SortOptions o{/*descending=*/n % 2 == 0, 0, std::nullopt, check};
              expect_sorted_keys(sorter, make_keys<std::uint32_t>(d, n, seed++), o, to_string(d));
              expect_sorted_pairs<double, std::uint16_t>(sorter, make_keys<double>(d, n, seed++), o,
                                                         to_string(d));
            }
          }
          // Odd numbers of passes (3, 1), which start from the histogram's copy where the passes
          // to run are known before it.
          const SortOptions low_range{/*descending=*/false, /*begin_bit=*/3, /*end_bit=*/21, check};
          expect_sorted_keys(sorter, make_keys<std::uint64_t>(Distribution::low_bits, 5003, seed++),
                             low_range, "low_bits");
          expect_sorted_pairs<std::uint64_t, std::uint32_t>(
              sorter, make_keys<std::uint64_t>(Distribution::uniform, 5003, seed++), low_range,
              "uniform");
          for (Distribution d : inputs)
            expect_sorted_pairs<std::uint8_t, std::uint64_t>(
                sorter, make_keys<std::uint8_t>(d, 65537, seed++), {true, 0, std::nullopt, check},
                to_string(d));
        }
      }
    }
  }
}

// From OnesweepPlan::min_keys_to_read_counts keys the default check reads the digit counts back
// while the first pass runs and drops the later constant passes; below, the pass kernel finds
// them constant and copies. Sizes on both sides, inputs with constant passes and without.
BOOST_AUTO_TEST_CASE(constant_passes_found_on_both_sides_of_the_read_back_size) {
  const std::uint64_t threshold = detail::OnesweepPlan::min_keys_to_read_counts;
  std::uint64_t seed = 450;
  for (const auto& params : ranking_variants()) {
    if (!params || params->algorithm != Algorithm::onesweep) continue;
    BOOST_TEST_CONTEXT(describe(params)) {
      Sorter sorter = make_sorter(params);
      for (std::uint64_t n : {threshold - 1, threshold + 3}) {
        for (Distribution d : {Distribution::low_bits, Distribution::high_bits,
                               Distribution::all_equal, Distribution::uniform}) {
          BOOST_TEST_CONTEXT("n " << n) {
            expect_sorted_keys(sorter, make_keys<std::uint32_t>(d, n, seed++), {}, to_string(d));
          }
        }
        expect_sorted_pairs<std::uint64_t, std::uint32_t>(
            sorter, make_keys<std::uint64_t>(Distribution::low_bits, n, seed++), {}, "low_bits");
        // Odd numbers of passes: one (known before the histogram on both sides) and three (of
        // which the read-back may drop some, so that they end in scratch and are copied back).
        expect_sorted_pairs<std::uint8_t, std::uint32_t>(
            sorter, make_keys<std::uint8_t>(Distribution::uniform, n, seed++), {}, "uniform");
        const SortOptions odd_range{/*descending=*/false, /*begin_bit=*/0, /*end_bit=*/24};
        for (Distribution d : {Distribution::low_bits, Distribution::uniform})
          expect_sorted_pairs<std::uint32_t, std::uint32_t>(
              sorter, make_keys<std::uint32_t>(d, n, seed++), odd_range, to_string(d));
      }
    }
  }
}

// Onesweep's kernels leave its counters (histograms, tile ticket, look-back status, and
// fused_onesweep's passes finished) clean for the next sort instead of a fill clearing them
// before each: sorts that shrink and grow, with and without skipped passes, one after another on
// one Sorter.
BOOST_AUTO_TEST_CASE(onesweep_sorts_of_changing_sizes_one_after_another) {
  std::uint64_t seed = 500;
  for (const auto& params : ranking_variants()) {
    if (params && !runs_onesweep_passes(params->algorithm)) continue;
    BOOST_TEST_CONTEXT(describe(params)) {
      Sorter sorter = make_sorter(params);
      for (std::size_t n : {200'003u, 7u, 30'011u, 200'003u, 1u, 99'991u}) {
        for (Distribution d : {Distribution::uniform, Distribution::low_bits}) {
          expect_sorted_keys(sorter, make_keys<std::uint32_t>(d, n, seed++), {}, to_string(d));
          expect_sorted_pairs<std::uint64_t, std::uint32_t>(
              sorter, make_keys<std::uint64_t>(d, n, seed++), {}, to_string(d));
        }
      }
    }
  }
}

// Host pairs read back through one staging block that the Sorter keeps: sorts that grow and
// shrink it, staging the values (the smaller array) in some and the keys in others.
BOOST_AUTO_TEST_CASE(host_pairs_of_changing_shapes_one_after_another) {
  Sorter sorter(test_queue());
  std::uint64_t seed = 520;
  for (Distribution d : {Distribution::uniform, Distribution::few_distinct}) {
    // Staged bytes: 14, then 400,012 (grows), 300,007 (shrinks), 1,062,148 (grows), 1.
    expect_sorted_pairs<std::uint16_t, std::uint64_t>(
        sorter, make_keys<std::uint16_t>(d, 7, seed++), {}, to_string(d));
    expect_sorted_pairs<std::uint64_t, std::uint32_t>(
        sorter, make_keys<std::uint64_t>(d, 100'003, seed++), {}, to_string(d));
    expect_sorted_pairs<std::uint8_t, std::uint16_t>(
        sorter, make_keys<std::uint8_t>(d, 300'007, seed++), {}, to_string(d));
    expect_sorted_pairs<std::int32_t, std::uint64_t>(
        sorter, make_keys<std::int32_t>(d, 265'537, seed++), {}, to_string(d));
    expect_sorted_pairs<double, std::uint8_t>(sorter, make_keys<double>(d, 1, seed++), {},
                                              to_string(d));
  }
}

// fused_onesweep's tickets are 32-bit: a set of one key per tile and 1-bit digits would need
// 64 x (2^26 + 1) work-groups for u64 keys; the sort refuses it by name and leaves the keys.
BOOST_AUTO_TEST_CASE(fused_onesweep_refuses_more_work_groups_than_its_tickets_count) {
  Params p;
  p.algorithm = Algorithm::fused_onesweep;
  p.radix_bits = 1;
  p.work_group_size = 1;
  p.elements_per_thread = 1;
  Sorter sorter(test_queue(), p);
  std::vector<std::uint64_t> keys((std::size_t{1} << 26) + 1);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = keys.size() - i;
  const auto original = keys;
  BOOST_CHECK_EXCEPTION(sorter.sort(keys), Error, [](const Error& e) {
    return std::string(e.what()).find("more than 2^32 - 1; use onesweep") != std::string::npos;
  });
  BOOST_TEST((keys == original));
}

BOOST_AUTO_TEST_CASE(invalid_bit_ranges_are_errors_and_leave_data_alone) {
  Sorter sorter(test_queue());
  std::vector<std::uint32_t> keys{5, 3, 9};
  const auto original = keys;
  // {descending, begin_bit, end_bit}
  for (const SortOptions& o :
       {SortOptions{false, 5, 4}, SortOptions{false, 0, 33}, SortOptions{false, 40}}) {
    BOOST_CHECK_EXCEPTION(sorter.sort(keys, o), Error, [](const Error& e) {
      return std::string(e.what()).find("bit range") != std::string::npos;
    });
    BOOST_TEST(keys == original);
  }
}

BOOST_AUTO_TEST_CASE(mismatched_pair_lengths_are_errors) {
  Sorter sorter(test_queue());
  std::vector<float> keys{1, 2, 3};
  std::vector<std::uint32_t> values{1, 2};
  BOOST_CHECK_THROW(sorter.sort_pairs(keys, values), Error);
}

BOOST_AUTO_TEST_SUITE_END()
