// The hybrid path: how many top digits bucket the keys, and whole sorts through it, its segment
// overflow included, against the reference.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "hybrid_plan.hpp"
#include "support/opencl_fixture.hpp"
#include "support/param_sets.hpp"
#include "support/plan_sorts.hpp"

using namespace clsort;
using namespace clsort::test;

namespace {

// Digit counts of one 8-bit pass: `present` digits sharing n keys.
std::vector<std::uint64_t> spread(std::uint64_t n, std::size_t present) {
  std::vector<std::uint64_t> counts(256, 0);
  for (std::size_t d = 0; d < present; ++d) counts[d] = n / present + (d < n % present);
  return counts;
}

// Digit counts of one 8-bit pass: `present` digits spread evenly over all 256, sharing n keys.
std::vector<std::uint64_t> scattered(std::uint64_t n, std::size_t present) {
  std::vector<std::uint64_t> counts(256, 0);
  const std::vector<std::uint64_t> shares = spread(n, present);
  for (std::size_t d = 0; d < present; ++d) counts[d * 256 / present] = shares[d];
  return counts;
}

// Four passes with the same digit counts.
std::vector<std::vector<std::uint64_t>> four_passes(const std::vector<std::uint64_t>& counts) {
  return std::vector<std::vector<std::uint64_t>>(4, counts);
}

// Hybrid sets the test device can run: bitmask ranking everywhere, warp_match where it exists.
std::vector<Params> hybrid_variants() {
  return runnable_on_test_device({shaped_params(Algorithm::hybrid, Ranking::bitmask, 64, 4),
                                  shaped_params(Algorithm::hybrid, Ranking::warp_match, 256, 16)},
                                 8, 8);
}

// The segment kernel's parameters for `p` on the test device.
Params segment_params(const Params& p, std::size_t key_bytes, std::size_t value_bytes) {
  const auto local = test_device().getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  return *detail::hybrid_segment_params(p, key_bytes, value_bytes, local);
}

// u64 keys uniform but for every other one, whose top `shared_bytes` bytes are all 0x80.
std::vector<std::uint64_t> heavy_buckets(std::size_t n, unsigned shared_bytes) {
  const std::uint64_t kept = ~std::uint64_t{0} >> (8 * shared_bytes);
  const std::uint64_t shared = 0x8080808080808080ull & ~kept;
  std::vector<std::uint64_t> keys = make_keys<std::uint64_t>(Distribution::uniform, n, 17);
  for (std::size_t i = 0; i < n; i += 2) keys[i] = (keys[i] & kept) | shared;
  return keys;
}

// Digit counts of each byte of the keys, low byte first, as the histogram counts them.
std::vector<std::vector<std::uint64_t>> byte_counts(const std::vector<std::uint64_t>& keys) {
  std::vector<std::vector<std::uint64_t>> counts(8, std::vector<std::uint64_t>(256, 0));
  for (std::uint64_t k : keys)
    for (std::size_t pass = 0; pass < 8; ++pass) ++counts[pass][(k >> (8 * pass)) & 0xFF];
  return counts;
}

// byte_counts of the bytes that vary, as the plan weighs them (it skips constant passes).
std::vector<std::vector<std::uint64_t>> varying_byte_counts(
    const std::vector<std::uint64_t>& keys) {
  std::vector<std::vector<std::uint64_t>> varying;
  for (auto& counts : byte_counts(keys))
    if (std::count_if(counts.begin(), counts.end(), [](std::uint64_t c) { return c > 0; }) > 1)
      varying.push_back(std::move(counts));
  return varying;
}

// u64 keys as a splatting renderer sorts them: a tile number (4,096 tiles, crowded towards the
// first) above a positive float depth's bits.
std::vector<std::uint64_t> tile_and_depth_keys(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::uniform_real_distribution<float> depth(0.1f, 100.0f);
  std::vector<std::uint64_t> keys(n);
  for (auto& k : keys) {
    const double crowd = unit(random);
    const float d = depth(random);
    std::uint32_t depth_bits;
    std::memcpy(&depth_bits, &d, sizeof depth_bits);
    k = static_cast<std::uint64_t>(4096 * crowd * crowd) << 32 | depth_bits;
  }
  return keys;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(hybrid_sorts)

BOOST_AUTO_TEST_CASE(bucket_passes_follow_the_digits_present) {
  using detail::HybridPlan;
  const std::uint64_t target = 16;  // keys a bucket on average
  // 2^20 uniform keys over 4 passes: one top pass leaves 4,096 a bucket, two leave 16.
  BOOST_TEST(HybridPlan::bucket_passes(four_passes(spread(1 << 20, 256)), 1 << 20, target) == 2u);
  // 2^22: two leave 64, three 0.25.
  BOOST_TEST(HybridPlan::bucket_passes(four_passes(spread(1 << 22, 256)), 1 << 22, target) == 3u);
  // At least one pass is left for the segment step to save.
  BOOST_TEST(HybridPlan::bucket_passes({spread(1 << 12, 256), spread(1 << 12, 256)}, 1 << 12,
                                       target) == 1u);
  BOOST_TEST(HybridPlan::bucket_passes({spread(1 << 18, 256), spread(1 << 18, 256)}, 1 << 18,
                                       target) == 0u);
  BOOST_TEST(HybridPlan::bucket_passes({spread(1 << 8, 256)}, 1 << 8, target) == 0u);
  // 7 distinct digits in each pass: three passes make 343 buckets of 3,057 keys on average.
  BOOST_TEST(HybridPlan::bucket_passes(four_passes(spread(1 << 20, 7)), 1 << 20, target) == 0u);
  // 16 digits scattered over each pass: two passes would make 256 buckets of 16 keys, but
  // keys with thinly scattered digits are likely few distinct keys, whose buckets are far fewer.
  BOOST_TEST(HybridPlan::bucket_passes(four_passes(scattered(1 << 12, 16)), 1 << 12, target) == 0u);
  BOOST_TEST(HybridPlan::bucket_passes({spread(1 << 20, 256), spread(1 << 20, 256),
                                        scattered(1 << 20, 16), spread(1 << 20, 256)},
                                       1 << 20, target) == 0u);
  // 16 digits filling a narrow range (a tile number's top bits) divide buckets as any do.
  BOOST_TEST(HybridPlan::bucket_passes(four_passes(spread(1 << 12, 16)), 1 << 12, target) == 2u);
  // Counted from the top: only the top passes' digits matter.
  BOOST_TEST(HybridPlan::bucket_passes({spread(1 << 20, 2), spread(1 << 20, 2),
                                        spread(1 << 20, 256), spread(1 << 20, 256)},
                                       1 << 20, target) == 2u);
  // A narrow digit below the top one (a float's exponent under a tile number) divides buckets
  // by its digits: 256 x 2 x 256 buckets of 8 keys.
  BOOST_TEST(HybridPlan::bucket_passes({spread(1 << 20, 256), spread(1 << 20, 256),
                                        spread(1 << 20, 2), spread(1 << 20, 256)},
                                       1 << 20, target) == 3u);
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

// Half the keys share their top `shared_bytes` bytes (by the digit counts, two top passes make
// buckets of less than a key): their bucket is larger than segment_rank ranks by comparison and,
// at n keys, `fits` the segment kernel's tile or not.
void sort_one_heavy_bucket(const Params& p, bool fits, unsigned shared_bytes = 2) {
  const Params segment = segment_params(p, 8, 4);
  const std::uint64_t tile = single_group_capacity(segment);
  const std::uint64_t limit = detail::segment_rank_shape(segment).bucket_limit;
  const std::size_t n = (fits ? 1 : 2) * tile + 1;
  const std::vector<std::uint64_t> keys = heavy_buckets(n, shared_bytes);
  BOOST_TEST_REQUIRE(detail::HybridPlan::bucket_passes(
                         byte_counts(keys), n, detail::HybridPlan::bucket_target(limit)) == 2u);
  const std::uint64_t heavy = (n + 1) / 2;  // the keys at even positions
  BOOST_TEST_REQUIRE(heavy > limit);
  BOOST_TEST_REQUIRE((heavy <= tile) == fits);
  Sorter sorter(test_queue(), p);
  for (bool descending : {false, true})
    expect_sorted_pairs<std::uint64_t, std::uint32_t>(sorter, keys, SortOptions{descending},
                                                      "heavy bucket");
}

BOOST_AUTO_TEST_CASE(buckets_too_large_to_rank_go_to_the_segment_kernel) {
  for (const Params& p : hybrid_variants()) BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      sort_one_heavy_bucket(p, true);
    }
}

// The sort buckets by two digits more (which spread keys sharing their top two bytes) or falls
// back to the passes over every digit (keys sharing their top four), and must still be stable.
BOOST_AUTO_TEST_CASE(an_overflowing_segment_buckets_deeper_or_falls_back_to_every_pass) {
  for (const Params& p : hybrid_variants()) BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      for (unsigned shared_bytes : {2u, 4u}) sort_one_heavy_bucket(p, false, shared_bytes);
    }
}

// Every other key in one of many buckets of the top digits that the sort buckets by (the rest
// spread), each twice as large as segment_rank ranks by comparison and within the segment
// kernel's tile, holding half the keys: listed for segment_sort they would be sorted one
// work-group each, so the sort buckets by two digits more instead, which spreads them.
BOOST_AUTO_TEST_CASE(many_ranges_for_the_segment_kernel_bucket_deeper) {
  using detail::HybridPlan;
  const auto units = test_device().getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  for (const Params& p : hybrid_variants()) BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      HybridPlan plan(test_context(), test_device(),
                      detail::KernelConfig{KeyType::u64, 4, false, p});
      const Params segment = segment_params(p, 8, 4);
      const detail::SegmentRankShape shape = detail::segment_rank_shape(segment);
      const std::uint64_t bucket = 2 * shape.bucket_limit;
      BOOST_TEST_REQUIRE(bucket <= single_group_capacity(segment));
      // Two buckets start in each of segment_rank's strides, which lists them as one range.
      const std::uint64_t groups = 4 * HybridPlan::listed_ranges_per_unit * units;
      const std::size_t n = static_cast<std::size_t>(2 * groups * bucket + 1);
      std::vector<std::uint64_t> keys = make_keys<std::uint64_t>(Distribution::uniform, n, 79);
      const std::size_t top = HybridPlan::bucket_passes(
          varying_byte_counts(keys), n, HybridPlan::bucket_target(shape.bucket_limit));
      const unsigned shift = static_cast<unsigned>(64 - 8 * top);
      for (std::size_t i = 0; i < n; i += 2) {
        const std::uint64_t group = (std::uint64_t{0x80} << (8 * top - 8)) + (i / 2) % groups;
        keys[i] = (keys[i] & ((std::uint64_t{1} << shift) - 1)) | group << shift;
      }
      BOOST_TEST_REQUIRE(HybridPlan::bucket_passes(varying_byte_counts(keys), n,
                                                   HybridPlan::bucket_target(shape.bucket_limit)) ==
                         top);
      for (bool descending : {false, true}) {
        expect_plan_sorts<std::uint64_t, std::uint32_t>(
            plan, keys, SortOptions{descending}, "many crowded buckets",
            descending ? Placement::into_others : Placement::in_place);
        BOOST_TEST(plan.last_sort_went_deeper(), "descending " << descending);
        BOOST_TEST(plan.last_bucket_passes() == top + HybridPlan::extra_bucket_digits,
                   "descending " << descending);
        BOOST_TEST(!plan.last_sort_fell_back(), "descending " << descending);
      }
    }
}

// n keys of which every other one is `repeated` and the rest are spread but never share its top
// two bytes: the repeated keys make one bucket of about n / 2 keys, all equal.
std::vector<std::uint64_t> one_repeated_key(std::size_t n, std::uint64_t repeated) {
  std::vector<std::uint64_t> keys = make_keys<std::uint64_t>(Distribution::uniform, n, 23);
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 2 == 0)
      keys[i] = repeated;
    else if ((keys[i] ^ repeated) >> 48 == 0)
      keys[i] ^= std::uint64_t{1} << 63;
  }
  return keys;
}

// A bucket of equal keys larger than the segment kernel's tile (NaNs, zeros, any one value
// repeated) is already in its sorted order: segment_rank copies it through, at the start, in
// the middle or at the end of the array, spread over several work-groups' strides. One unequal
// key in it, first, in the middle or last, sends the sort to the usual passes.
BOOST_AUTO_TEST_CASE(a_large_bucket_of_equal_keys_is_copied_through) {
  for (const Params& p : hybrid_variants()) BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      detail::HybridPlan plan(test_context(), test_device(),
                              detail::KernelConfig{KeyType::u64, 4, false, p});
      const std::uint64_t tile = single_group_capacity(segment_params(p, 8, 4));
      const std::uint64_t limit = detail::segment_rank_shape(segment_params(p, 8, 4)).bucket_limit;
      const std::size_t n = 5 * tile + 7;
      for (std::uint64_t repeated :
           {std::uint64_t{0}, ~std::uint64_t{0}, std::uint64_t{0x8080808012345678}}) {
        std::vector<std::uint64_t> keys = one_repeated_key(n, repeated);
        BOOST_TEST_REQUIRE(detail::HybridPlan::bucket_passes(
                               byte_counts(keys), n, detail::HybridPlan::bucket_target(limit)) ==
                           2u);
        for (bool descending : {false, true}) {
          expect_plan_sorts<std::uint64_t, std::uint32_t>(
              plan, keys, SortOptions{descending}, "one repeated key",
              descending ? Placement::into_others : Placement::in_place);
          BOOST_TEST(plan.last_bucket_passes() == 2u, "descending " << descending);
          BOOST_TEST(!plan.last_sort_fell_back(), "descending " << descending);
        }
        for (std::size_t unequal : {std::size_t{0}, n / 2 + 1, n - 1 - (n - 1) % 2}) {
          std::vector<std::uint64_t> spoilt = keys;
          spoilt[unequal] ^= 1;  // still in the repeated key's bucket
          // A plan of its own: after a fallback the plan's next sorts of this size skip the
          // bucket passes.
          detail::HybridPlan fresh(test_context(), test_device(),
                                   detail::KernelConfig{KeyType::u64, 4, false, p});
          expect_plan_sorts<std::uint64_t, std::uint32_t>(fresh, spoilt, {}, "one unequal key",
                                                          Placement::into_others);
          BOOST_TEST(fresh.last_sort_fell_back(), "unequal key at " << unequal);
        }
      }
    }
}

// After a sort's ranking overflows (a bucket larger than the segment kernel's tile holding
// unequal keys), it buckets by two digits more, from the keys in bucket order (half the keys
// sharing their top two bytes then spread), or, where those overflow too (half sharing their top
// four), falls back to the usual passes. The next sorts of a size of the same power of two whose
// keys crowd their top digits as much do the same at once, without the overflowing try (7, then
// 15 after a second overflow in a row); the one after them tries the buckets again. Uniform keys
// of that size and sorts of other sizes are not held back; alike keys that hold their buckets
// end the overflows in a row. Every sort matches the stable order.
BOOST_AUTO_TEST_CASE(sorts_after_an_overflow_skip_the_buckets_for_a_while) {
  using detail::HybridPlan;
  BOOST_TEST(HybridPlan::sorts_skipping_buckets(1) == 7u);
  BOOST_TEST(HybridPlan::sorts_skipping_buckets(2) == 15u);
  BOOST_TEST(HybridPlan::sorts_skipping_buckets(4) == 63u);
  BOOST_TEST(HybridPlan::sorts_skipping_buckets(9) == 63u);
  for (const Params& p : hybrid_variants())
    for (const unsigned shared_bytes : {2u, 4u})
      BOOST_TEST_CONTEXT(nlohmann::json(p).dump() << ", " << shared_bytes << " bytes shared") {
        HybridPlan plan(test_context(), test_device(),
                        detail::KernelConfig{KeyType::u64, 4, false, p});
        const Params segment = segment_params(p, 8, 4);
        const std::size_t n = 2 * single_group_capacity(segment) + 1;
        const std::vector<std::uint64_t> heavy = heavy_buckets(n, shared_bytes);
        const std::size_t top = HybridPlan::bucket_passes(
            varying_byte_counts(heavy), n,
            HybridPlan::bucket_target(detail::segment_rank_shape(segment).bucket_limit));
        BOOST_TEST_REQUIRE(top == 2u);
        const bool deeper_holds = shared_bytes == 2;
        const std::size_t deeper = top + HybridPlan::extra_bucket_digits;
        // As crowded in the top byte, but spread over the second: buckets small enough to rank.
        const std::vector<std::uint64_t> alike = heavy_buckets(n, 1);
        const std::vector<std::uint64_t> uniform =
            make_keys<std::uint64_t>(Distribution::uniform, n + 2, 71);
        const std::vector<std::uint64_t> other_size =
            make_keys<std::uint64_t>(Distribution::uniform, 2 * n + 1, 73);
        const auto expect_buckets_tried = [&](const std::vector<std::uint64_t>& keys,
                                              const char* what, bool overflow) {
          expect_plan_sorts<std::uint64_t, std::uint32_t>(plan, keys, {}, what);
          BOOST_TEST(!plan.last_sort_skipped_buckets(), what);
          BOOST_TEST(plan.last_sort_overflowed() == overflow, what);
          BOOST_TEST(plan.last_sort_went_deeper() == overflow, what);
          BOOST_TEST(plan.last_sort_fell_back() == (overflow && !deeper_holds), what);
          if (overflow)
            BOOST_TEST(plan.last_bucket_passes() == deeper, what);
          else
            BOOST_TEST(plan.last_bucket_passes() > 0u, what);
        };
        const auto expect_skipped = [&](unsigned sorts, const char* what) {
          for (unsigned sort = 0; sort < sorts; ++sort) {
            expect_plan_sorts<std::uint64_t, std::uint32_t>(
                plan, heavy, SortOptions{sort % 2 == 1}, what,
                sort % 2 == 1 ? Placement::into_others : Placement::in_place);
            BOOST_TEST(plan.last_sort_skipped_buckets(), what << ", sort " << sort);
            BOOST_TEST(plan.last_sort_went_deeper() == deeper_holds, what << ", sort " << sort);
            BOOST_TEST(plan.last_bucket_passes() == (deeper_holds ? deeper : 0u),
                       what << ", sort " << sort);
            BOOST_TEST(!plan.last_sort_overflowed(), what << ", sort " << sort);
            BOOST_TEST(!plan.last_sort_fell_back(), what << ", sort " << sort);
            if (sort % 3 == 0) {
              expect_buckets_tried(uniform, "uniform keys between", false);
              expect_buckets_tried(other_size, "another size between", false);
            }
          }
        };
        expect_buckets_tried(heavy, "heavy bucket", true);
        expect_skipped(7, "after one overflow");
        expect_buckets_tried(heavy, "heavy bucket again", true);
        expect_skipped(15, "after two in a row");
        expect_buckets_tried(alike, "alike keys that hold their buckets", false);
        expect_buckets_tried(heavy, "heavy bucket after those", true);
        expect_skipped(7, "after one overflow again");
        expect_buckets_tried(heavy, "heavy bucket once more", true);
      }
}

// Digit crowding: the largest share of the keys one value of a bucket digit holds.
BOOST_AUTO_TEST_CASE(digit_crowding_is_the_largest_share_of_a_bucket_digit) {
  using detail::HybridPlan;
  std::vector<std::uint64_t> crowded = spread(1 << 20, 256);
  crowded[7] += 3 << 16;
  const std::vector<std::vector<std::uint64_t>> counts = {crowded, spread(1 << 20, 256),
                                                          spread(1 << 20, 256)};
  const double uniform = 1.0 / 256, n = (1 << 20) + (3 << 16);
  BOOST_TEST(HybridPlan::digit_crowding(counts, 2, 1 << 20) == uniform);
  BOOST_TEST(HybridPlan::digit_crowding(counts, 3, (1 << 20) + (3 << 16)) ==
             ((1 << 12) + (3 << 16)) / n);
  BOOST_TEST(HybridPlan::digit_crowding(counts, 0, 1 << 20) == 0.0);
}

// f64 keys with every third one a NaN (payloads and signs of all kinds, which order as one value,
// last) or a zero of either sign: their buckets are copied through, payloads and order kept.
BOOST_AUTO_TEST_CASE(nans_and_zeros_make_buckets_copied_through) {
  for (const Params& p : hybrid_variants()) BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      detail::HybridPlan plan(test_context(), test_device(),
                              detail::KernelConfig{KeyType::f64, 0, false, p});
      const std::size_t n = 9 * single_group_capacity(segment_params(p, 8, 0)) + 3;
      const auto as_double = [](std::uint64_t bits) {
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return d;
      };
      std::vector<double> keys(n);
      std::mt19937_64 random(29);
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t sign = random() & (std::uint64_t{1} << 63);
        const std::uint64_t nan = sign | 0x7FF8000000000000ull | (random() & 0x7FFFFFFFFFFFFull);
        // Spread keys: any bits but NaNs and magnitudes so small that they share the zeros'
        // bucket.
        std::uint64_t spread;
        do spread = random();
        while (std::isnan(as_double(spread)) || (spread & 0x7FFF000000000000ull) == 0);
        keys[i] = as_double(i % 3 == 0 ? nan : (i % 3 == 1 ? spread : sign));  // sign: ±0
      }
      for (bool descending : {false, true}) {
        expect_plan_sorts<double, KeysOnly>(
            plan, keys, SortOptions{descending}, "NaNs and zeros",
            descending ? Placement::into_others : Placement::in_place);
        BOOST_TEST(plan.last_bucket_passes() > 0u, "descending " << descending);
        BOOST_TEST(!plan.last_sort_fell_back(), "descending " << descending);
      }
    }
}

// The tile's top digit and the depth's exponent fill narrow ranges, and the bucket passes run
// over them.
BOOST_AUTO_TEST_CASE(tile_and_depth_keys_run_the_bucket_passes) {
  const std::vector<std::uint64_t> keys = tile_and_depth_keys(200003, 31);
  for (const Params& p : hybrid_variants()) BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      detail::HybridPlan plan(test_context(), test_device(),
                              detail::KernelConfig{KeyType::u64, 4, false, p});
      const std::uint64_t limit = detail::segment_rank_shape(segment_params(p, 8, 4)).bucket_limit;
      BOOST_TEST_REQUIRE(
          detail::HybridPlan::bucket_passes(varying_byte_counts(keys), keys.size(),
                                            detail::HybridPlan::bucket_target(limit)) > 0u);
      for (bool descending : {false, true}) {
        expect_plan_sorts<std::uint64_t, std::uint32_t>(
            plan, keys, SortOptions{descending}, "tile and depth",
            descending ? Placement::into_others : Placement::in_place);
        BOOST_TEST(plan.last_bucket_passes() > 0u, "descending " << descending);
      }
    }
}

// A guess at the first pass runs while the digit counts are read: the one uniform keys take for
// a size not sorted before, else the last sort's first pass (a bucket pass, or the first of the
// usual passes). Right, it is kept; wrong, it is dropped; the sort is the same either way.
BOOST_AUTO_TEST_CASE(the_first_pass_is_guessed_and_dropped_when_wrong) {
  const std::size_t n = 200003;
  const std::vector<std::uint64_t> uniform = make_keys<std::uint64_t>(Distribution::uniform, n, 37);
  const std::vector<std::uint64_t> tiles = tile_and_depth_keys(n, 41);
  const std::vector<std::uint64_t> few =
      make_keys<std::uint64_t>(Distribution::few_distinct, n, 43);
  struct Step {
    const std::vector<std::uint64_t>& keys;
    const char* what;
    bool guess_held;
  };
  const Step steps[] = {{uniform, "uniform, no sort before", true},
                        {tiles, "tiles after uniform", false},
                        {tiles, "tiles after tiles", true},
                        {few, "few distinct keys after tiles", false},
                        {few, "few distinct keys again", true},
                        {uniform, "uniform after the usual passes", false},
                        {uniform, "uniform again", true}};
  for (const Params& p : hybrid_variants()) BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      detail::HybridPlan plan(test_context(), test_device(),
                              detail::KernelConfig{KeyType::u64, 4, false, p});
      for (const Step& step : steps) {
        expect_plan_sorts<std::uint64_t, std::uint32_t>(plan, step.keys, {}, step.what);
        BOOST_TEST(plan.last_guess_held() == step.guess_held, step.what);
      }
      BOOST_TEST(plan.last_bucket_passes() > 0u);
    }
}

// A sort after none or after one of another size guesses its first pass only up to the plan's
// limit (a pass costs more than the wait it hides from 2^23 keys): beyond it, uniform keys, whose
// guess would hold, run without one; the next sort of their size guesses from it.
BOOST_AUTO_TEST_CASE(a_size_not_sorted_before_is_guessed_only_up_to_the_limit) {
  const std::size_t n = 200003;
  const std::vector<std::uint64_t> uniform = make_keys<std::uint64_t>(Distribution::uniform, n, 47);
  for (const Params& p : hybrid_variants()) BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      const detail::KernelConfig config{KeyType::u64, 4, false, p};
      detail::HybridPlan at_limit(test_context(), test_device(), config,
                                  detail::OnesweepPlan::max_portion_keys, n);
      expect_plan_sorts<std::uint64_t, std::uint32_t>(at_limit, uniform, {}, "at the limit");
      BOOST_TEST(at_limit.last_guess_held());
      detail::HybridPlan past_limit(test_context(), test_device(), config,
                                    detail::OnesweepPlan::max_portion_keys, n - 1);
      expect_plan_sorts<std::uint64_t, std::uint32_t>(past_limit, uniform, {}, "past the limit");
      BOOST_TEST(!past_limit.last_guess_held());
      BOOST_TEST(past_limit.last_bucket_passes() > 0u);
      expect_plan_sorts<std::uint64_t, std::uint32_t>(past_limit, uniform, {}, "again");
      BOOST_TEST(past_limit.last_guess_held());
    }
}

// A hybrid set of narrower digits runs the usual passes, on keys it does not bucket and after
// an overflowing segment, through an 8-bit onesweep plan (fewer passes); an 8-bit set runs its
// own. Every sort matches the stable order, descending too.
BOOST_AUTO_TEST_CASE(narrow_digits_run_the_usual_passes_at_eight_bits) {
  std::vector<Params> narrow;
  for (Params p : hybrid_variants()) {
    p.radix_bits = 6;
    narrow.push_back(p);
  }
  for (const Params& p : runnable_on_test_device(narrow, 8, 4))
    BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      detail::HybridPlan plan(test_context(), test_device(),
                              detail::KernelConfig{KeyType::u64, 4, false, p});
      std::set<Distribution> wide;
      for (Distribution d : all_distributions())
        for (bool descending : {false, true}) {
          expect_plan_sorts<std::uint64_t, std::uint32_t>(
              plan, make_keys<std::uint64_t>(d, 200003, 53), SortOptions{descending}, to_string(d));
          const bool usual = plan.last_bucket_passes() == 0 && d != Distribution::all_equal;
          BOOST_TEST(plan.last_sort_ran_wide_passes() == usual, to_string(d));
          if (usual) wide.insert(d);
        }
      BOOST_TEST(wide.count(Distribution::low_bits) == 1u);
      BOOST_TEST(wide.count(Distribution::few_distinct) == 1u);
      BOOST_TEST(wide.count(Distribution::uniform) == 0u);
      // Half the keys share their top 40 bits: one bucket of the three top 6-bit digits, so few
      // keys that three bucket passes (2^16 buckets of the others) reach the target, and of the
      // five the sort buckets by after that overflows: after an odd number of bucket passes the
      // keys in bucket order lie in scratch.
      const Params segment = segment_params(p, 8, 4);
      const std::uint64_t target =
          detail::HybridPlan::bucket_target(detail::segment_rank_shape(segment).bucket_limit);
      const std::size_t n = static_cast<std::size_t>((std::uint64_t{1} << 16) * target - 1);
      const std::uint64_t tile = single_group_capacity(segment);
      BOOST_TEST_REQUIRE(n / 2 > tile);
      // Beside it, in the same bucket of the top two digits, a bucket for the segment kernel
      // (tile / 2 keys), which the rank step leaves alone in the array it writes.
      std::vector<std::uint64_t> keys = heavy_buckets(n, 5);
      for (std::size_t i = 1; i < tile; i += 2)
        keys[i] = (keys[i] & 0xFFFFFFFFFFFFull) | std::uint64_t{0x8081} << 48;
      expect_plan_sorts<std::uint64_t, std::uint32_t>(plan, keys, {}, "overflowing bucket",
                                                      Placement::into_others);
      BOOST_TEST(plan.last_sort_overflowed());
      BOOST_TEST_REQUIRE(plan.last_bucket_passes() == 3u + detail::HybridPlan::extra_bucket_digits);
      BOOST_TEST(plan.last_sort_fell_back());
      BOOST_TEST(plan.last_sort_ran_wide_passes());
      // The same keys again skip the buckets, and their usual passes run at 8 bits too.
      expect_plan_sorts<std::uint64_t, std::uint32_t>(
          plan, keys, SortOptions{true}, "overflowing bucket again", Placement::into_others);
      BOOST_TEST(plan.last_sort_skipped_buckets());
      BOOST_TEST(plan.last_sort_ran_wide_passes());
    }
  for (const Params& p : hybrid_variants()) BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      detail::HybridPlan plan(test_context(), test_device(),
                              detail::KernelConfig{KeyType::u64, 4, false, p});
      expect_plan_sorts<std::uint64_t, std::uint32_t>(
          plan, make_keys<std::uint64_t>(Distribution::few_distinct, 200003, 59), {},
          "few distinct");
      BOOST_TEST(plan.last_bucket_passes() == 0u);
      BOOST_TEST(!plan.last_sort_ran_wide_passes());
    }
}

// Keys that do not bucket (varying in their low bits, few distinct) start sorts of a size of the
// same power of two that run onesweep's sort at once, without counting for the buckets (7, 15,
// then 31 after such sorts in a row), at 8-bit digits for a narrower set; sorts of uniform keys
// of another size between them are not held back. A skipping sort whose digit counts show keys
// that would bucket ends them: the next sort buckets again. Sorts that do not read their digit
// counts (after_first_pass below min_keys_to_read_counts) never skip. Every sort matches the
// stable order.
BOOST_AUTO_TEST_CASE(sorts_after_keys_that_do_not_bucket_skip_the_bucket_check) {
  using detail::HybridPlan;
  BOOST_TEST(HybridPlan::sorts_after_unbucketed_keys(1) == 7u);
  BOOST_TEST(HybridPlan::sorts_after_unbucketed_keys(2) == 15u);
  std::vector<Params> sets = hybrid_variants();
  for (Params p : hybrid_variants()) {
    p.radix_bits = 6;
    sets.push_back(p);
  }
  const std::size_t n = 200003;
  const auto low = make_keys<std::uint64_t>(Distribution::low_bits, n, 61);
  const auto few = make_keys<std::uint64_t>(Distribution::few_distinct, n, 67);
  const auto uniform = make_keys<std::uint64_t>(Distribution::uniform, n, 71);
  const auto other_size = make_keys<std::uint64_t>(Distribution::uniform, 2 * n + 1, 73);
  SortOptions reading;
  reading.constant_pass_check = ConstantPassCheck::before_first_pass;
  for (const Params& p : runnable_on_test_device(sets, 8, 4))
    BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      HybridPlan plan(test_context(), test_device(),
                      detail::KernelConfig{KeyType::u64, 4, false, p});
      const bool narrow = p.radix_bits < 8;
      const auto expect_checked = [&](const std::vector<std::uint64_t>& keys, const SortOptions& o,
                                      const char* what, bool bucketed) {
        expect_plan_sorts<std::uint64_t, std::uint32_t>(plan, keys, o, what);
        BOOST_TEST(!plan.last_sort_skipped_bucket_check(), what);
        BOOST_TEST((plan.last_bucket_passes() > 0) == bucketed, what);
      };
      const auto expect_skipped = [&](unsigned sorts, const char* what) {
        for (unsigned sort = 0; sort < sorts; ++sort) {
          SortOptions o = reading;
          o.descending = sort % 2 == 1;
          // Every other sort into other buffers: onesweep's passes (or the 8-bit plan's) read the
          // input.
          expect_plan_sorts<std::uint64_t, std::uint32_t>(
              plan, sort % 3 == 2 ? few : low, o, what,
              sort % 2 == 0 ? Placement::into_others : Placement::in_place);
          BOOST_TEST(plan.last_sort_skipped_bucket_check(), what << ", sort " << sort);
          BOOST_TEST(plan.last_bucket_passes() == 0u, what << ", sort " << sort);
          BOOST_TEST(plan.last_sort_ran_wide_passes() == narrow, what << ", sort " << sort);
          if (sort % 4 == 0) expect_checked(other_size, reading, "another size between", true);
        }
      };
      expect_checked(low, reading, "low bits", false);
      expect_skipped(7, "after one unbucketed sort");
      expect_checked(few, reading, "few distinct after those", false);
      expect_skipped(15, "after two in a row");
      expect_checked(low, reading, "low bits after those", false);
      expect_skipped(2, "the first of 31 after three in a row");
      expect_plan_sorts<std::uint64_t, std::uint32_t>(plan, uniform, reading, "uniform, skipping");
      BOOST_TEST(plan.last_sort_skipped_bucket_check());
      expect_checked(uniform, reading, "uniform after a skipping sort saw them", true);
      expect_checked(low, reading, "low bits after uniform", false);
      expect_skipped(7, "after one unbucketed sort again");
      expect_checked(low, reading, "low bits after those", false);
      HybridPlan unread(test_context(), test_device(),
                        detail::KernelConfig{KeyType::u64, 4, false, p});
      for (const char* what : {"counts not read", "counts not read again"}) {
        expect_plan_sorts<std::uint64_t, std::uint32_t>(unread, low, {}, what);
        BOOST_TEST(!unread.last_sort_skipped_bucket_check(), what);
      }
    }
}

// u64 keys (with values of type V, unless KeysOnly) in sorts of more keys than one pass launch
// takes: the bucket passes run one launch per portion (of 4 tiles here), then segment_rank ranks
// within the buckets of the whole array.
template <class V>
void expect_hybrid_sorts_in_portions(const Params& p) {
  const std::uint64_t tile = static_cast<std::uint64_t>(p.work_group_size) *
                             static_cast<std::uint64_t>(p.elements_per_thread);
  const std::uint64_t portion = 4 * tile;
  const std::size_t value_bytes = std::is_same_v<V, KeysOnly> ? 0 : sizeof(V);
  detail::HybridPlan plan(test_context(), test_device(),
                          detail::KernelConfig{KeyType::u64, value_bytes, false, p}, portion);
  const Params segment = segment_params(p, 8, value_bytes);
  const std::uint64_t bucket_target =
      detail::HybridPlan::bucket_target(detail::segment_rank_shape(segment).bucket_limit);
  std::uint64_t seed = 40;
  for (std::uint64_t n : {5 * portion + 2 * tile + 5, 2 * portion + tile / 2 + 7}) {
    // Uniform keys take the bucket passes, so the portions meet segment_rank.
    const auto uniform = make_keys<std::uint64_t>(Distribution::uniform, n, ++seed);
    BOOST_TEST_REQUIRE(detail::HybridPlan::bucket_passes(byte_counts(uniform), n, bucket_target) >
                       0u);
    for (Distribution d : all_distributions())
      for (bool descending : {false, true})
        expect_plan_sorts<std::uint64_t, V>(
            plan, make_keys<std::uint64_t>(d, static_cast<std::size_t>(n), ++seed),
            SortOptions{descending}, to_string(d));
    SortOptions middle_bits;
    middle_bits.begin_bit = 5;
    middle_bits.end_bit = 53;
    expect_plan_sorts<std::uint64_t, V>(plan, uniform, middle_bits, "uniform");
  }
  // A bucket too large to rank: one in segment_sort's tile, then one too large for it too, in
  // several portions (the passes over every digit, in portions).
  const std::uint64_t segment_tile = single_group_capacity(segment);
  for (std::uint64_t n : {segment_tile + 1, std::max(2 * segment_tile + 1, 3 * portion + 1)})
    expect_plan_sorts<std::uint64_t, V>(plan, heavy_buckets(static_cast<std::size_t>(n), 2), {},
                                        "heavy bucket");
}

BOOST_AUTO_TEST_CASE(sorts_in_portions) {
  for (const Params& p : hybrid_variants()) BOOST_TEST_CONTEXT(nlohmann::json(p).dump()) {
      expect_hybrid_sorts_in_portions<KeysOnly>(p);
      expect_hybrid_sorts_in_portions<std::uint32_t>(p);
    }
}

BOOST_AUTO_TEST_SUITE_END()
