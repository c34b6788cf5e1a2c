// Sorts from input buffers into others (Sorter::sort_into, sort_pairs_into): every algorithm, odd
// and even pass counts, every constant-pass check; inputs left as they were; overlaps refused.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>

#include "support/opencl_fixture.hpp"
#include "support/param_sets.hpp"
#include "support/plan_sorts.hpp"
#include "support/sort_checks.hpp"

using namespace clsort;
using namespace clsort::test;

namespace {

// Where the outputs lie: apart from the inputs, or one array sorted in its own buffer.
enum class Outputs { apart, keys_in_place, values_in_place };

// A buffer of n elements of T whose every byte is 0xA5, so that an element left unwritten shows.
template <class T>
cl::Buffer poisoned_buffer(std::size_t n) {
  std::vector<unsigned char> bytes(std::max<std::size_t>(n, 1) * sizeof(T), 0xA5);
  return cl::Buffer(test_context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes.size(),
                    bytes.data());
}

// Expects `buffer` to hold `expected` bit for bit.
template <class T>
void expect_holds(const cl::Buffer& buffer, const std::vector<T>& expected,
                  const std::string& label) {
  std::vector<T> held(expected.size());
  read_into(buffer, held);
  const std::size_t diff = first_difference(held, expected);
  BOOST_TEST(diff == expected.size(), label << ": first difference at " << diff);
}

// Sorts keys (and position values, unless V is KeysOnly) from buffers holding them into others
// as `outputs` says, and checks the outputs against the stable reference and the inputs that
// are not outputs against what they held.
template <class K, class V>
void expect_sorted_into(Sorter& sorter, std::vector<K> keys, const SortOptions& o,
                        const std::string& what, Outputs outputs = Outputs::apart) {
  const std::size_t n = keys.size();
  const auto order = reference_permutation(keys, o);
  const std::vector<K> input_keys = keys;
  const cl::Buffer keys_in = device_copy(keys);
  const cl::Buffer keys_out = outputs == Outputs::keys_in_place ? keys_in : poisoned_buffer<K>(n);
  const std::string label = describe(to_string(key_type_of<K>()), n, what, o) +
                            (outputs == Outputs::apart           ? ""
                             : outputs == Outputs::keys_in_place ? ", keys in place"
                                                                 : ", values in place");
  if constexpr (std::is_same_v<V, KeysOnly>) {
    sorter.sort_into(keys_in, keys_out, n, key_type_of<K>(), o).wait();
  } else {
    std::vector<V> values = position_values<V>(n);
    const cl::Buffer values_in = device_copy(values);
    const cl::Buffer values_out =
        outputs == Outputs::values_in_place ? values_in : poisoned_buffer<V>(n);
    sorter
        .sort_pairs_into(keys_in, values_in, keys_out, values_out, n, key_type_of<K>(), sizeof(V),
                         o)
        .wait();
    expect_holds(values_out, permuted(values, order), label + ", sorted values");
    if (outputs != Outputs::values_in_place)
      expect_holds(values_in, values, label + ", values_in afterwards");
  }
  expect_holds(keys_out, permuted(input_keys, order), label + ", sorted keys");
  if (outputs != Outputs::keys_in_place)
    expect_holds(keys_in, input_keys, label + ", keys_in afterwards");
}

// One parameter set per algorithm (with bitmask ranking, and warp_match where the device has
// it), and the device's defaults (nullopt).
std::vector<std::optional<Params>> sets_of_every_algorithm() {
  std::vector<Params> shaped;
  for (Algorithm algorithm :
       {Algorithm::reduce_then_scan, Algorithm::onesweep, Algorithm::fused_onesweep,
        Algorithm::hybrid, Algorithm::single_group, Algorithm::rank_sort})
    shaped.push_back(
        shaped_params(algorithm, Ranking::bitmask, 64, has_key_capacity(algorithm) ? 16 : 5));
  shaped[4].ranking = Ranking::serial;
  shaped[4].radix_bits = 4;  // single_group's counters then fit beside 1,024 16-byte pairs
  for (Algorithm algorithm : {Algorithm::onesweep, Algorithm::fused_onesweep, Algorithm::hybrid})
    shaped.push_back(shaped_params(algorithm, Ranking::warp_match, 256, 8));
  std::vector<std::optional<Params>> sets{std::nullopt};
  for (const Params& p : runnable_on_test_device(shaped, 8, 8)) sets.push_back(p);
  return sets;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sorts_into)

// Even pass counts (u32 keys, f64 keys with u16 values), odd ones (u8 keys with u64 values: one
// pass; u64 keys with u32 values by bits [3, 21): three), an empty bit range (a copy), in every
// check mode, at sizes from none to past several tiles (300 keys: one tile of the fused_onesweep
// set, which then needs no histogram kernel on any device), over adversarial distributions.
BOOST_AUTO_TEST_CASE(every_algorithm_odd_and_even_passes_every_check_mode) {
  const std::vector<Distribution> inputs{Distribution::uniform,      Distribution::extremes,
                                         Distribution::few_distinct, Distribution::low_bits,
                                         Distribution::high_bits,    Distribution::all_equal,
                                         Distribution::reversed};
  std::uint64_t seed = 700;
  for (const auto& params : sets_of_every_algorithm()) {
    const std::uint64_t largest = params ? most_keys(*params) : UINT64_MAX;
    BOOST_TEST_CONTEXT(describe(params)) {
      Sorter sorter = make_sorter(params);
      for (ConstantPassCheck check : every_constant_pass_check()) {
        BOOST_TEST_CONTEXT("constant_pass_check " << static_cast<int>(check)) {
          std::size_t turn = 0;
          for (std::size_t n : {0u, 1u, 2u, 300u, 1000u, 4097u, 65537u}) {
            if (n > largest) break;
            const auto next = [&] { return inputs[turn++ % inputs.size()]; };
            const SortOptions o{/*descending=*/n % 2 == 1, 0, std::nullopt, check};
            const SortOptions three_passes{false, /*begin_bit=*/3, /*end_bit=*/21, check};
            const SortOptions no_bits{false, /*begin_bit=*/7, /*end_bit=*/7, check};
            Distribution d = next();
            expect_sorted_into<std::uint32_t, KeysOnly>(
                sorter, make_keys<std::uint32_t>(d, n, seed++), o, to_string(d));
            d = next();
            expect_sorted_into<double, std::uint16_t>(sorter, make_keys<double>(d, n, seed++), o,
                                                      to_string(d));
            d = next();
            expect_sorted_into<std::uint8_t, std::uint64_t>(
                sorter, make_keys<std::uint8_t>(d, n, seed++), o, to_string(d));
            d = next();
            expect_sorted_into<std::uint64_t, std::uint32_t>(
                sorter, make_keys<std::uint64_t>(d, n, seed++), three_passes, to_string(d));
            expect_sorted_into<std::int32_t, Value16>(
                sorter, make_keys<std::int32_t>(Distribution::uniform, n, seed++), no_bits,
                "uniform");
          }
        }
      }
    }
  }
}

// Hybrid's bucket check and segment step, its sorts after keys that did not bucket, and its
// onesweep passes over bucketed keys that overflow: u64 keys with u32 values one after another.
BOOST_AUTO_TEST_CASE(hybrid_sorts_one_after_another) {
  std::uint64_t seed = 800;
  const std::vector<Params> sets =
      runnable_on_test_device({shaped_params(Algorithm::hybrid, Ranking::bitmask, 64, 4),
                               shaped_params(Algorithm::hybrid, Ranking::warp_match, 256, 16)},
                              8, 4);
  for (const Params& params : sets) {
    BOOST_TEST_CONTEXT(describe(params)) {
      Sorter sorter(test_queue(), params);
      for (Distribution d : {Distribution::uniform, Distribution::low_bits, Distribution::uniform,
                             Distribution::few_distinct, Distribution::high_bits,
                             Distribution::two_values, Distribution::uniform})
        expect_sorted_into<std::uint64_t, std::uint32_t>(
            sorter, make_keys<std::uint64_t>(d, 100003, seed++), {seed % 2 == 0}, to_string(d));
    }
  }
}

// keys_out may be keys_in while the values go elsewhere, and the other way round: the pairs are
// then sorted in place, with one pass (u8 keys) and three (u64 keys by bits [3, 21)). Sorts of
// one tile of the fused_onesweep sets (307 keys; 1,019 with warp_match's), and of several where
// every tile runs at once (4,099 keys with warp_match's, on NVIDIA), run as one launch that
// copies the values aside before pass 0 writes over them.
BOOST_AUTO_TEST_CASE(one_array_sorted_in_its_own_buffer) {
  std::uint64_t seed = 900;
  for (const auto& params : sets_of_every_algorithm()) {
    BOOST_TEST_CONTEXT(describe(params)) {
      Sorter sorter = make_sorter(params);
      for (Outputs outputs : {Outputs::keys_in_place, Outputs::values_in_place}) {
        expect_sorted_into<std::uint32_t, std::uint32_t>(
            sorter, make_keys<std::uint32_t>(Distribution::uniform, 1021, seed++), {}, "uniform",
            outputs);
        for (std::size_t n : {307u, 1019u, 4099u}) {
          expect_sorted_into<std::uint8_t, std::uint64_t>(
              sorter, make_keys<std::uint8_t>(Distribution::few_distinct, n, seed++), {},
              "few_distinct", outputs);
          expect_sorted_into<std::uint64_t, std::uint32_t>(
              sorter, make_keys<std::uint64_t>(Distribution::low_bits, n, seed++),
              {false, /*begin_bit=*/3, /*end_bit=*/21}, "low_bits", outputs);
        }
        expect_sorted_into<float, std::uint8_t>(
            sorter, make_keys<float>(Distribution::extremes, 1, seed++), {}, "extremes", outputs);
      }
    }
  }
}

// An output that shares bytes with an input other than its own (sub-buffers of one buffer) is
// refused by name before anything is enqueued; sub-buffers side by side sort.
BOOST_AUTO_TEST_CASE(outputs_sharing_bytes_with_inputs_are_refused) {
  const std::size_t align = test_device().getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>() / 8;
  const std::size_t part = std::max<std::size_t>(align, 1024);  // bytes of each array
  const std::size_t n = part / 4;                               // u32 keys and values
  std::vector<std::uint32_t> whole = make_keys<std::uint32_t>(Distribution::uniform, n * 4, 950);
  const cl::Buffer parent = device_copy(whole);
  const auto sub = [&](std::size_t offset) {
    const cl_buffer_region region{offset, part};
    cl::Buffer parent_copy = parent;
    return parent_copy.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region);
  };
  const cl::Buffer first = sub(0), overlapping = sub(align), second = sub(part),
                   third = sub(2 * part);
  Sorter sorter(test_queue());
  const auto refused = [&](const std::function<void()>& sort, const std::string& message) {
    BOOST_TEST_CONTEXT(message) {
      BOOST_CHECK_EXCEPTION(sort(), Error, [&](const Error& e) {
        return std::string(e.what()).find(message) != std::string::npos;
      });
      expect_holds(parent, whole, "the buffer afterwards");
    }
  };
  refused([&] { sorter.sort_into(first, overlapping, n, KeyType::u32); },
          "keys_out shares bytes with keys_in");
  refused([&] { sorter.sort_pairs_into(first, second, second, third, n, KeyType::u32, 4); },
          "keys_out shares bytes with values_in");
  refused([&] { sorter.sort_pairs_into(first, second, third, overlapping, n, KeyType::u32, 4); },
          "values_out shares bytes with keys_in");
  refused([&] { sorter.sort_into(parent, first, n + 1, KeyType::u32); },
          "keys_out buffer holds " + std::to_string(part) + " bytes");
  refused([&] { sorter.sort_pairs_into(first, second, third, third, n, KeyType::u32, 0); },
          "value size 0");
  // Side by side: keys from the first part into the third, values from the second into the
  // fourth.
  const cl::Buffer fourth = sub(3 * part);
  sorter.sort_pairs_into(first, second, third, fourth, n, KeyType::u32, 4).wait();
  const std::vector<std::uint32_t> keys(whole.begin(), whole.begin() + n),
      values(whole.begin() + n, whole.begin() + 2 * n);
  const auto order = reference_permutation(keys, {});
  std::vector<std::uint32_t> expected = whole;
  const std::vector<std::uint32_t> sorted_keys = permuted(keys, order),
                                   sorted_values = permuted(values, order);
  std::copy(sorted_keys.begin(), sorted_keys.end(), expected.begin() + 2 * n);
  std::copy(sorted_values.begin(), sorted_values.end(), expected.begin() + 3 * n);
  expect_holds(parent, expected, "sub-buffers side by side");
}

BOOST_AUTO_TEST_SUITE_END()
