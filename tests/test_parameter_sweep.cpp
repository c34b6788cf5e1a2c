// Sorts with every radix width and a spread of work-group sizes and elements per thread, for both
// rankings: whatever the tuner may choose must sort correctly.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>
#include <tuple>

#include "radix_kernels.hpp"
#include "support/opencl_fixture.hpp"
#include "support/sort_checks.hpp"

using namespace clsort;
using namespace clsort::test;

namespace {

// The sets of a sweep that the test device can hold: all of them on PoCL; on a GPU, serial
// ranking's larger blocks exceed its local memory (the parameters suite tests that refusal).
std::vector<Params> runnable(const std::vector<Params>& sets) {
  const std::size_t local = test_device().getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  std::vector<Params> fitting;
  for (const Params& p : sets) {
    // sort_with's u32 keys with u32 values and its f64 keys (whose digit passes need more).
    if (local_memory_bytes(p, 4, 4) <= local && local_memory_bytes(p, 8, 0) <= local)
      fitting.push_back(p);
    else
      BOOST_TEST_MESSAGE("left out, over the local memory: " << nlohmann::json(p).dump());
  }
  return fitting;
}

// One set of a sweep: its radix width, and its work-group size and keys per work-item where
// they differ from the algorithm's base shape (0: the base's).
struct Shape {
  int radix_bits, work_group_size, elements_per_thread;
};

// Eight sets that between them take every radix width (1-8 bits), every work-group size (1, 13,
// 32, 100, 256 and the base's) and every count of keys per work-item (1, 3, 31, a large one and
// the base's), each value beside other values of the other fields: half the build time of
// varying one field at a time (on PoCL the builds are most of the suite's time, and unrolling
// many keys a work-item over several work-items most of a build's: 31 keys in 64 items take 5-8
// times as long as 4, 24 keys in 1 item no longer). `large` is 24 keys, or 1,000 in
// reduce-then-scan's serial blocks. The extremes (1-bit digits, 13 and 256 items, 1 and 31 keys)
// lie in four sets, which hybrid and fused_onesweep run (extremes()); 31 keys go with 8-bit
// digits, whose passes hybrid runs for keys that do not bucket, so that it builds no other
// 31-key passes than onesweep's.
constexpr int large = -1;
constexpr Shape shapes[] = {{1, 0, 1},   {2, 13, 3}, {3, 256, 3}, {4, 1, large},
                            {5, 100, 0}, {6, 32, 1}, {7, 0, 0},   {8, 0, 31}};

std::vector<Params> sweep(Algorithm algorithm, Ranking ranking) {
  const std::size_t max_wg = test_device().getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  std::vector<Params> sets;
  Params base;
  base.algorithm = algorithm;
  base.ranking = ranking;
  const bool serial_blocks = ranking == Ranking::serial && algorithm == Algorithm::reduce_then_scan;
  base.work_group_size = serial_blocks ? 2 : 64;
  base.elements_per_thread = serial_blocks ? 100 : 4;
  base.scan_work_group_size = 32;
  base.scan_elements_per_thread = 2;
  for (const Shape& shape : shapes) {
    Params p = base;
    p.radix_bits = shape.radix_bits;
    // warp_match ranks whole warps: sizes that are not a multiple of 32 keep the base's.
    const bool fits_warps = ranking != Ranking::warp_match || shape.work_group_size % 32 == 0;
    if (shape.work_group_size != 0 && fits_warps &&
        static_cast<std::size_t>(shape.work_group_size) <= max_wg) {
      p.work_group_size = shape.work_group_size;
      p.scan_work_group_size = shape.work_group_size;
    }
    if (shape.elements_per_thread != 0) {
      p.elements_per_thread = shape.elements_per_thread != large ? shape.elements_per_thread
                              : serial_blocks                    ? 1000
                                                                 : 24;
      p.scan_elements_per_thread = p.elements_per_thread % 64;
      p.scan_elements_per_thread += p.scan_elements_per_thread == 0;
    }
    sets.push_back(p);
  }
  if (ranking == Ranking::warp_match && sorts_in_one_group(algorithm)) {
    // Up to 32 warps (11: not a power of two) whose counts each digit's walk sums; sets whose
    // per-warp masks exceed the device's local memory are left out (runnable()).
    for (auto [wg, bits] : {std::pair{512, 8}, {1024, 8}, {1024, 6}, {1024, 4}, {352, 6}}) {
      Params p = base;
      p.work_group_size = wg;
      p.radix_bits = bits;
      if (static_cast<std::size_t>(wg) <= max_wg) sets.push_back(p);
    }
  }
  if (ranking == Ranking::warp_match && prefetches_tiles(algorithm)) {
    // The L2 prefetch, one and four compute units' worth of tiles ahead: 50,021 keys make 196
    // tiles of 256 keys and 782 of 64, so on a GPU of up to 196 compute units tiles ask for
    // later ones, the partial last among them.
    for (int ahead : {1, 4}) {
      Params p = base;
      p.prefetch_ahead = ahead;
      p.elements_per_thread = ahead == 1 ? 4 : 1;
      sets.push_back(p);
    }
  }
  if (algorithm == Algorithm::onesweep) {
    // At most 1 or 8 work-groups a compute unit (2: the second occupancy set below), each taking
    // tiles until none is left: tiles of 64 keys make 782 at 50,021 keys, more than the
    // work-groups on a GPU of up to 97 compute units at 8 (up to 782 at 1), so they take several
    // tiles each.
    for (int resident : {1, 8}) {
      Params p = base;
      p.resident_groups = resident;
      p.elements_per_thread = 1;
      sets.push_back(p);
    }
    // Pass kernels built so that 8 work-groups of 256 fit an SM's registers (on NVIDIA, 32 a
    // work-item: most of a 16-key tile's state spills) and 2 beside 2 resident work-groups;
    // other devices build them as without.
    for (auto [wg, ept, occupancy, resident] : {std::tuple{256, 16, 8, 0}, {64, 4, 2, 2}}) {
      Params p = base;
      p.work_group_size = wg;
      p.elements_per_thread = ept;
      p.occupancy_groups = occupancy;
      p.resident_groups = resident;
      if (static_cast<std::size_t>(wg) <= max_wg) sets.push_back(p);
    }
  }
  if (ranking == Ranking::warp_match && runs_onesweep_passes(algorithm)) {
    // Each tile asking L2 for its own values: sort_with's u32 pairs, partial last tile included.
    Params p = base;
    p.prefetch_values = 1;
    sets.push_back(p);
  }
  return runnable(sets);
}

void sort_with(const Params& p, const std::vector<std::size_t>& sizes = {1, 33, 4097, 50021}) {
  BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
    Sorter sorter(test_queue(), p);
    BOOST_TEST((sorter.params_for(KeyType::u32, 4, 1) == p));
    for (std::size_t n : sizes) {
      for (bool descending : {false, true}) {
        const SortOptions o{descending};
        expect_sorted_keys(sorter, make_keys<std::uint32_t>(Distribution::uniform, n, n), o,
                           "uniform");
        expect_sorted_pairs<std::uint32_t, std::uint32_t>(
            sorter, make_keys<std::uint32_t>(Distribution::few_distinct, n, n + 1), o,
            "few_distinct");
      }
    }
    expect_sorted_keys(sorter, make_keys<double>(Distribution::extremes, 20011, 3), {}, "extremes");
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(parameter_sweep)

BOOST_AUTO_TEST_CASE(reduce_then_scan_serial_ranking) {
  for (const Params& p : sweep(Algorithm::reduce_then_scan, Ranking::serial)) sort_with(p);
}

BOOST_AUTO_TEST_CASE(reduce_then_scan_bitmask_ranking) {
  for (const Params& p : sweep(Algorithm::reduce_then_scan, Ranking::bitmask)) sort_with(p);
}

BOOST_AUTO_TEST_CASE(onesweep_bitmask_ranking) {
  for (const Params& p : sweep(Algorithm::onesweep, Ranking::bitmask)) sort_with(p);
}

// Sizes up to the capacity, where one work-group holds them all, and one past it, which runs the
// built-in default instead.
void sort_single_group_sets(const std::vector<Params>& sets) {
  for (const Params& p : sets) {
    const std::size_t capacity = single_group_capacity(p);
    sort_with(p, {1, 2, 33, capacity / 2 + 1, capacity, capacity + 1});
  }
}

BOOST_AUTO_TEST_CASE(single_group_serial_ranking) {
  sort_single_group_sets(sweep(Algorithm::single_group, Ranking::serial));
}

BOOST_AUTO_TEST_CASE(single_group_bitmask_ranking) {
  sort_single_group_sets(sweep(Algorithm::single_group, Ranking::bitmask));
}

// The sets of a sweep that hold its extremes (1-bit digits, 13 and 256 items, 1 and 31 keys a
// work-item), which stand for the rest where the passes are swept already under another
// algorithm.
std::vector<Params> extremes(const std::vector<Params>& sets) {
  std::vector<Params> chosen;
  for (const Params& p : sets)
    if (p.radix_bits <= 3 || p.elements_per_thread == 31) chosen.push_back(p);
  return chosen;
}

// single_group_hybrid's passes and fallback are single_group's (swept above), and its sorts of
// every distribution are in single_group_hybrid_sorts: here a work-group of 13 items and 3-bit
// digits (more top digits before the rank step), so that its rank step meets other shapes (31
// keys an item, unrolled, take PoCL minutes to build). Uniform keys reach the rank step, few
// distinct ones its fallback.
BOOST_AUTO_TEST_CASE(single_group_hybrid_serial_and_bitmask_ranking) {
  for (Ranking ranking : {Ranking::serial, Ranking::bitmask})
    for (auto [work_group_size, radix_bits] : {std::pair{13, 8}, {64, 3}}) {
      Params p;
      p.algorithm = Algorithm::single_group_hybrid;
      p.ranking = ranking;
      p.radix_bits = radix_bits;
      p.work_group_size = work_group_size;
      p.elements_per_thread = 4;
      sort_single_group_sets({p});
    }
}

// Hybrid's passes are onesweep's (swept above); its segment kernel takes PoCL seconds to build
// per set.
BOOST_AUTO_TEST_CASE(hybrid_bitmask_ranking) {
  for (const Params& p : extremes(sweep(Algorithm::hybrid, Ranking::bitmask))) sort_with(p);
}

// fused_onesweep's tile passes are onesweep's (swept above); its own part is running every pass
// in one launch: 1-bit digits make 32 of them (50,021 keys in 782 tiles of 64 keys), 13 items
// of 3 keys and 64 of 31 tiles off the powers of two, one key an item the most tiles a pass.
BOOST_AUTO_TEST_CASE(fused_onesweep_bitmask_ranking) {
  for (const Params& p : extremes(sweep(Algorithm::fused_onesweep, Ranking::bitmask))) sort_with(p);
}

// NVIDIA only: elsewhere the parameters are refused (tested in the parameters suite).
bool runs_warp_match(const std::vector<Params>& sets) {
  try {
    validate_for_device(sets.front(), test_device());
    return true;
  } catch (const Error& e) {
    BOOST_TEST_MESSAGE("not run: " << e.what());
    return false;
  }
}

BOOST_AUTO_TEST_CASE(onesweep_warp_match_ranking) {
  const auto sets = sweep(Algorithm::onesweep, Ranking::warp_match);
  if (runs_warp_match(sets))
    for (const Params& p : sets) sort_with(p);
}

// 256 items, 8-bit digits and 28 or 30 keys an item in onesweep, 24 in fused_onesweep (whose
// kernel keeps 5 KiB more for its tiles that count every pass): tiles that scatter while ranking
// only with compact digit tables, keys alone or with u32 values. Every distribution of u32 and
// f32 keys and of u32 and f32 pairs, across sizes of one partial tile, whole tiles and many tiles
// (with each prefetch: the tiles ahead at 30, the tile's own values at 28 and 24; at 28, built on
// NVIDIA so that 3 work-groups fit an SM's registers, as the H200's f32 pairs are at 30).
BOOST_AUTO_TEST_CASE(onesweep_warp_match_compact_digit_tables) {
  std::vector<Params> sets;
  for (int ept : {28, 24, 30}) {
    Params p;
    p.algorithm = ept == 24 ? Algorithm::fused_onesweep : Algorithm::onesweep;
    p.ranking = Ranking::warp_match;
    p.work_group_size = 256;
    p.elements_per_thread = ept;
    p.prefetch_ahead = ept == 30 ? 1 : 0;
    p.prefetch_values = ept == 30 ? 0 : 1;
    p.occupancy_groups = ept == 28 ? 3 : 0;
    sets.push_back(p);
  }
  if (!runs_warp_match(sets)) return;
  const std::uint64_t local = test_device().getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  for (const Params& p : sets) {
    BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      BOOST_TEST(clsort::detail::onesweep_layout(p, 4, 0, local).compact_digit_tables);
      BOOST_TEST(clsort::detail::onesweep_layout(p, 4, 4, local).compact_digit_tables);
      Sorter sorter(test_queue(), p);
      const std::size_t tile = 256 * static_cast<std::size_t>(p.elements_per_thread);
      for (std::size_t n : {std::size_t{1}, tile - 1, tile, 3 * tile + 1, std::size_t{1000003}})
        for (Distribution d : all_distributions()) {
          const std::string name = to_string(d);
          expect_sorted_keys(sorter, make_keys<std::uint32_t>(d, n, n), {}, name);
          expect_sorted_keys(sorter, make_keys<float>(d, n, n + 1), {true}, name);
          expect_sorted_pairs<std::uint32_t, std::uint32_t>(
              sorter, make_keys<std::uint32_t>(d, n, n + 2), {}, name);
          expect_sorted_pairs<float, std::uint32_t>(sorter, make_keys<float>(d, n, n + 3), {true},
                                                    name);
        }
    }
  }
}

// Values staged in rounds, held in registers meanwhile: 8-byte values of 1-, 2- and 4-byte keys
// and 16-byte values of 8-byte keys, whose tiles then need room for a round's values only. Rounds
// that divide the tile and one that does not (3 of 320 slots), in onesweep and fused_onesweep
// (hybrid's passes are onesweep's); on NVIDIA at 256 x 24 with warp_match ranking, as the H200
// sorts u32 keys with u64 values. Sizes of one partial tile, whole tiles and many tiles, every
// distribution, both orders.
BOOST_AUTO_TEST_CASE(values_in_rounds) {
  struct Case {
    Algorithm algorithm;
    int work_group_size, elements_per_thread, value_rounds;
  };
  Params warp;
  warp.algorithm = Algorithm::onesweep;
  warp.ranking = Ranking::warp_match;
  const bool nvidia = runs_warp_match({warp});
  const std::vector<Case> cases = nvidia ? std::vector<Case>{{Algorithm::onesweep, 256, 24, 2},
                                                             {Algorithm::fused_onesweep, 64, 5, 3},
                                                             {Algorithm::onesweep, 128, 8, 4}}
                                         : std::vector<Case>{{Algorithm::onesweep, 64, 4, 2},
                                                             {Algorithm::fused_onesweep, 64, 5, 3},
                                                             {Algorithm::onesweep, 32, 8, 4}};
  for (const Case& c : cases) {
    Params p;
    p.algorithm = c.algorithm;
    p.ranking = nvidia ? Ranking::warp_match : Ranking::bitmask;
    p.work_group_size = c.work_group_size;
    p.elements_per_thread = c.elements_per_thread;
    p.value_rounds = c.value_rounds;
    p.prefetch_values = nvidia ? 1 : 0;
    BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      Params at_once = p;
      at_once.value_rounds = 1;
      const std::uint64_t local = test_device().getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
      BOOST_TEST(clsort::detail::onesweep_layout(p, 4, 8, local).tile_buffer_bytes <
                 clsort::detail::onesweep_layout(at_once, 4, 8, local).tile_buffer_bytes);
      Sorter sorter(test_queue(), p);
      const std::size_t tile = static_cast<std::size_t>(c.work_group_size * c.elements_per_thread);
      for (std::size_t n : {std::size_t{1}, tile - 1, tile, 3 * tile + 1, std::size_t{20011}})
        for (Distribution d : all_distributions()) {
          const std::string name = to_string(d);
          const SortOptions descending{true};
          if (c.value_rounds == 4) {
            expect_sorted_pairs<std::uint64_t, Value16>(sorter, make_keys<std::uint64_t>(d, n, n),
                                                        {}, name);
            expect_sorted_pairs<std::uint8_t, std::uint64_t>(
                sorter, make_keys<std::uint8_t>(d, n, n + 1), descending, name);
            continue;
          }
          expect_sorted_pairs<std::uint32_t, std::uint64_t>(
              sorter, make_keys<std::uint32_t>(d, n, n + 2), {}, name);
          expect_sorted_pairs<float, std::uint64_t>(sorter, make_keys<float>(d, n, n + 3),
                                                    descending, name);
          expect_sorted_pairs<std::int16_t, std::uint64_t>(
              sorter, make_keys<std::int16_t>(d, n, n + 4), {}, name);
        }
    }
  }
}

BOOST_AUTO_TEST_CASE(hybrid_warp_match_ranking) {
  const auto sets = sweep(Algorithm::hybrid, Ranking::warp_match);
  if (runs_warp_match(sets))
    for (const Params& p : sets) sort_with(p);
}

BOOST_AUTO_TEST_CASE(fused_onesweep_warp_match_ranking) {
  const auto sets = sweep(Algorithm::fused_onesweep, Ranking::warp_match);
  if (runs_warp_match(sets))
    for (const Params& p : sets) sort_with(p);
}

BOOST_AUTO_TEST_CASE(single_group_warp_match_ranking) {
  const auto sets = sweep(Algorithm::single_group, Ranking::warp_match);
  if (runs_warp_match(sets)) sort_single_group_sets(sets);
}

BOOST_AUTO_TEST_CASE(single_group_hybrid_warp_match_ranking) {
  const auto sets = sweep(Algorithm::single_group_hybrid, Ranking::warp_match);
  if (runs_warp_match(sets)) sort_single_group_sets(sets);
}

BOOST_AUTO_TEST_SUITE_END()
