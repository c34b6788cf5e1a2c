// Tests of the out-of-core merge's parts: runs on disk, key ranges cut by sampled splitters, and
// the parallel host merge, against a stable sort of the runs' concatenation.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "run_merge.hpp"
#include "run_store.hpp"
#include "support/inputs.hpp"
#include "support/reference.hpp"

using namespace clsort;
using namespace clsort::test;
using namespace clsort::cli;

namespace {

struct Keyed {
  std::uint32_t key;
  std::uint32_t position;  // the value: where the key stood in the input
};

// `keys` cut into runs of `run_items`, each sorted stably, stored with positions as values.
struct StoredRuns {
  SortSpec spec;
  RunStore store;
  std::vector<Keyed> expected;  // the stable sort of all keys with their positions

  StoredRuns(const std::vector<std::uint32_t>& keys, std::uint64_t run_items, bool descending)
      : spec(make_spec(descending)),
        store(spec, std::filesystem::temp_directory_path().string(), run_items) {
    for (std::size_t first = 0; first < keys.size(); first += run_items) {
      const std::size_t count = std::min<std::size_t>(run_items, keys.size() - first);
      std::vector<std::uint32_t> run(keys.begin() + first, keys.begin() + first + count);
      Chunk chunk;
      chunk.count = count;
      for (std::size_t i : reference_permutation(run, spec.options)) {
        append(chunk.items, run[i]);
        append(chunk.values, static_cast<std::uint32_t>(first + i));
      }
      store.add_run(chunk);
    }
    for (std::size_t i : reference_permutation(keys, spec.options))
      expected.push_back({keys[i], static_cast<std::uint32_t>(i)});
  }

  static SortSpec make_spec(bool descending) {
    SortSpec spec;
    spec.layout = {KeyType::u32, 4, 0, false};
    spec.value_size = 4;
    spec.options.descending = descending;
    return spec;
  }
  static void append(std::vector<char>& bytes, std::uint32_t value) {
    const char* p = reinterpret_cast<const char*>(&value);
    bytes.insert(bytes.end(), p, p + 4);
  }
};

std::vector<Keyed> as_keyed(const Chunk& chunk) {
  std::vector<Keyed> keyed(chunk.count);
  for (std::size_t i = 0; i < chunk.count; ++i) {
    std::memcpy(&keyed[i].key, chunk.items.data() + 4 * i, 4);
    std::memcpy(&keyed[i].position, chunk.values.data() + 4 * i, 4);
  }
  return keyed;
}

bool operator==(const Keyed& a, const Keyed& b) {
  return a.key == b.key && a.position == b.position;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(run_merge)

BOOST_AUTO_TEST_CASE(ranges_cover_every_run_in_bounded_pieces_whatever_the_keys) {
  const std::size_t n = 50021, run_items = 4099;
  for (Distribution d : {Distribution::uniform, Distribution::all_equal, Distribution::few_distinct,
                         Distribution::sorted, Distribution::reversed}) {
    const auto keys = make_keys<std::uint32_t>(d, n, 81);
    StoredRuns runs(keys, run_items, false);
    BOOST_TEST(runs.store.runs() == (n + run_items - 1) / run_items);
    for (std::uint64_t target : {std::uint64_t{1}, std::uint64_t{700}, std::uint64_t{4099}}) {
      const std::vector<MergeRange> ranges = runs.store.plan_ranges(target);
      std::vector<std::uint64_t> next(runs.store.runs(), 0);
      std::uint64_t items = 0;
      for (const MergeRange& range : ranges) {
        BOOST_TEST(range.items <= runs.store.max_range_items(target));
        BOOST_TEST(range.items > 0u);
        for (std::size_t r = 0; r < range.slices.size(); ++r) {
          BOOST_TEST(range.slices[r].begin == next[r]);  // contiguous, in order
          next[r] = range.slices[r].end;
        }
        items += range.items;
      }
      BOOST_TEST(items == n);
      // Equal keys spread over ranges like distinct ones: no range takes them all.
      BOOST_TEST(ranges.size() >= n / runs.store.max_range_items(target), "target " << target);
    }
  }
}

BOOST_AUTO_TEST_CASE(merged_ranges_equal_the_stable_sort) {
  for (bool descending : {false, true}) {
    for (Distribution d : {Distribution::uniform, Distribution::all_equal,
                           Distribution::few_distinct, Distribution::high_bits}) {
      const auto keys = make_keys<std::uint32_t>(d, 30011, 82);
      StoredRuns runs(keys, 2003, descending);
      std::vector<Keyed> merged;
      std::uint64_t expected_first = 0;
      bool firsts_in_order = true;
      merge_on_host(runs.store, runs.store.plan_ranges(1500), 3, [&](Chunk& range) {
        firsts_in_order &= range.first == expected_first;
        expected_first += range.count;
        const std::vector<Keyed> keyed = as_keyed(range);
        merged.insert(merged.end(), keyed.begin(), keyed.end());
      });
      BOOST_TEST(firsts_in_order);
      BOOST_TEST((merged == runs.expected), "descending " << descending);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_single_run_and_an_empty_store_merge) {
  const auto keys = make_keys<std::uint32_t>(Distribution::few_distinct, 999, 83);
  StoredRuns one(keys, 5000, false);
  std::vector<Keyed> merged;
  merge_on_host(one.store, one.store.plan_ranges(100), 2, [&](Chunk& range) {
    const std::vector<Keyed> keyed = as_keyed(range);
    merged.insert(merged.end(), keyed.begin(), keyed.end());
  });
  BOOST_TEST((merged == one.expected));
  StoredRuns none({}, 100, false);
  BOOST_TEST(none.store.plan_ranges(10).empty());
}

BOOST_AUTO_TEST_SUITE_END()
