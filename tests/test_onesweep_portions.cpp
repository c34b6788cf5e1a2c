// Onesweep sorts of more keys than one launch takes (the whole tiles below 2^30): each pass
// launched per portion, here with portions of a few tiles, against the reference.
#include <boost/test/unit_test.hpp>

#include "onesweep_plan.hpp"
#include "support/param_sets.hpp"
#include "support/plan_sorts.hpp"

using namespace clsort;
using namespace clsort::test;

namespace {

// Onesweep sets the test device can run: bitmask ranking everywhere, also with one work-group a
// compute unit taking tile after tile of each portion (on PoCL's few compute units, fewer
// work-groups than a portion's tiles); warp_match where it exists, at 256 x 30 also for keys only,
// where the pass keeps its digit tables in registers.
std::vector<Params> onesweep_variants(std::size_t key_bytes, std::size_t value_bytes) {
  Params resident = shaped_params(Algorithm::onesweep, Ranking::bitmask, 64, 4);
  resident.resident_groups = 1;
  return runnable_on_test_device(
      {shaped_params(Algorithm::onesweep, Ranking::bitmask, 64, 4), resident,
       shaped_params(Algorithm::onesweep, Ranking::warp_match, 256, 16),
       shaped_params(Algorithm::onesweep, Ranking::warp_match, 256, 30)},
      key_bytes, value_bytes);
}

// Every distribution, at sizes of several portions (the last one partial, or every one full),
// of one portion and one key more, and of one portion (a single launch), one plan for all, so that
// sorts in portions and single launches follow one another on the same counters.
template <class K, class V>
void expect_portions_sort(const std::vector<SortOptions>& options) {
  const std::size_t value_bytes = std::is_same_v<V, KeysOnly> ? 0 : sizeof(V);
  for (const Params& p : onesweep_variants(sizeof(K), value_bytes)) {
    const std::uint64_t tile = static_cast<std::uint64_t>(p.work_group_size) *
                               static_cast<std::uint64_t>(p.elements_per_thread);
    const std::uint64_t portion = 4 * tile;
    detail::OnesweepPlan plan(test_context(), test_device(),
                              detail::KernelConfig{key_type_of<K>(), value_bytes, false, p},
                              portion);
    BOOST_TEST_MESSAGE("onesweep " << p.work_group_size << " x " << p.elements_per_thread
                                   << " (resident_groups " << p.resident_groups << "), portions of "
                                   << portion << " keys");
    // The last portion of 2 tiles and 5 keys more looks back over status rows that a larger
    // portion's launch cleared. Every other sort is into other buffers.
    const std::uint64_t sizes[] = {5 * portion + 2 * tile + 5, portion, 3 * portion, portion + 1,
                                   2 * portion + tile / 2 + 7};
    std::uint64_t seed = 1;
    for (const SortOptions& o : options)
      for (Distribution d : all_distributions())
        for (std::size_t n : sizes)
          expect_plan_sorts<K, V>(plan, make_keys<K>(d, static_cast<std::size_t>(n), ++seed), o,
                                  to_string(d),
                                  seed % 2 == 0 ? Placement::in_place : Placement::into_others);
  }
}

SortOptions with_check(ConstantPassCheck check) {
  SortOptions o;
  o.constant_pass_check = check;
  return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(onesweep_portions)

BOOST_AUTO_TEST_CASE(u32_keys_in_portions) {
  SortOptions descending;
  descending.descending = true;
  SortOptions bits;
  bits.begin_bit = 5;
  bits.end_bit = 27;
  expect_portions_sort<std::uint32_t, KeysOnly>({SortOptions{}, descending, bits,
                                                 with_check(ConstantPassCheck::before_first_pass),
                                                 with_check(ConstantPassCheck::never)});
}

BOOST_AUTO_TEST_CASE(float_keys_in_portions) {
  expect_portions_sort<float, KeysOnly>({SortOptions{}});
}

BOOST_AUTO_TEST_CASE(pairs_in_portions_keep_equal_keys_in_order) {
  expect_portions_sort<std::uint32_t, std::uint32_t>(
      {SortOptions{}, with_check(ConstantPassCheck::before_first_pass)});
  expect_portions_sort<std::int64_t, std::uint32_t>({SortOptions{}});
}

BOOST_AUTO_TEST_SUITE_END()
