// Tests of the asynchronous device-buffer API: events, chaining, scratch reuse, size checks.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <numeric>
#include <optional>

#include "onesweep_plan.hpp"
#include "support/opencl_faults.hpp"
#include "support/opencl_fixture.hpp"
#include "support/param_sets.hpp"
#include "support/sort_checks.hpp"

using namespace clsort;
using namespace clsort::test;

namespace {

template <class T>
cl::Buffer device_copy(const std::vector<T>& data) {
  return cl::Buffer(test_context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                    data.size() * sizeof(T), const_cast<T*>(data.data()));
}

template <class T>
std::vector<T> read_back(const cl::Buffer& buffer, std::size_t n, const cl::Event& after) {
  std::vector<T> data(n);
  std::vector<cl::Event> waits{after};
  test_queue().enqueueReadBuffer(buffer, CL_TRUE, 0, n * sizeof(T), data.data(), &waits);
  return data;
}

// The copy and read-back commands a onesweep sort of n keys of K (with u32 values where
// `with_values`; in place, or `into` other buffers) enqueues, once a sort of the same shape has
// allocated and built what it needs; the sort's result is checked against the stable order, and
// its input, where apart, against what it held.
struct CommandCounts {
  std::uint64_t copies = 0, reads = 0;
};
template <class K>
CommandCounts onesweep_commands(std::size_t n, bool with_values, const SortOptions& options,
                                bool into = false) {
  Params params;  // portable bitmask ranking, as every device runs it
  params.algorithm = Algorithm::onesweep;
  params.work_group_size = 64;
  params.elements_per_thread = 8;
  params.scan_work_group_size = 64;
  Sorter sorter(test_queue(), params);
  const std::vector<K> keys = make_keys<K>(Distribution::uniform, n, n);
  std::vector<std::uint32_t> values(n);
  std::iota(values.begin(), values.end(), 0u);
  const cl::Buffer key_buffer = device_copy(keys), value_buffer = device_copy(values);
  const cl::Buffer key_out = into ? device_copy(keys) : key_buffer;
  const cl::Buffer value_out = into ? device_copy(values) : value_buffer;
  const auto sort = [&] {
    return with_values ? sorter.sort_pairs_into(key_buffer, value_buffer, key_out, value_out, n,
                                                key_type_of<K>(), 4, options)
                       : sorter.sort_into(key_buffer, key_out, n, key_type_of<K>(), options);
  };
  sort().wait();  // the shape's first sort
  const cl::Buffer again = device_copy(keys);
  test_queue().enqueueCopyBuffer(again, key_buffer, 0, 0, n * sizeof(K));
  test_queue().enqueueWriteBuffer(value_buffer, CL_TRUE, 0, n * 4, values.data());
  reset_call_counts();
  const cl::Event sorted = sort();
  const CommandCounts counts{call_count("clEnqueueCopyBuffer"), call_count("clEnqueueReadBuffer")};
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const unsigned end = options.end_bit.value_or(sizeof(K) * 8);
    const auto bits = [&](K k) {
      return static_cast<std::uint64_t>(k) & ((std::uint64_t{1} << end) - 1);
    };
    return bits(keys[a]) < bits(keys[b]);
  });
  std::vector<K> expected_keys(n);
  for (std::size_t i = 0; i < n; ++i) expected_keys[i] = keys[order[i]];
  BOOST_TEST(read_back<K>(key_out, n, sorted) == expected_keys);
  if (with_values) BOOST_TEST(read_back<std::uint32_t>(value_out, n, sorted) == order);
  if (into) BOOST_TEST(read_back<K>(key_buffer, n, sorted) == keys);
  if (into && with_values) BOOST_TEST(read_back<std::uint32_t>(value_buffer, n, sorted) == values);
  return counts;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(device_buffers)

// An odd number of passes known before the histogram starts from its copy in scratch and copies
// nothing back; a one-pass sort reads no digit counts back (it has no later pass to drop); from
// min_keys_to_read_counts keys, sorts of more passes read them, and three passes whose later ones
// the counts could have dropped end in scratch and copy keys and values back. Into other buffers,
// the first pass reads the input and writes where the passes end in the output: no copy.
BOOST_AUTO_TEST_CASE(onesweep_copies_back_and_reads_counts_only_where_they_can_pay) {
  const std::size_t large = detail::OnesweepPlan::min_keys_to_read_counts + 3, small = 50021;
  const SortOptions bits24{/*descending=*/false, /*begin_bit=*/0, /*end_bit=*/24};
  struct Expected {
    const char* what;
    CommandCounts counts, expected;
  };
  for (const Expected& e : {
           Expected{"u8 keys, one pass", onesweep_commands<std::uint8_t>(large, false, {}), {0, 0}},
           Expected{"u8 pairs, one pass", onesweep_commands<std::uint8_t>(large, true, {}), {0, 0}},
           Expected{"u32 pairs, three passes, below the read-back size",
                    onesweep_commands<std::uint32_t>(small, true, bits24),
                    {0, 0}},
           Expected{"u32 pairs, three passes",
                    onesweep_commands<std::uint32_t>(large, true, bits24),
                    {2, 1}},
           Expected{
               "u32 keys, four passes", onesweep_commands<std::uint32_t>(large, false, {}), {0, 1}},
           Expected{"u8 pairs into others, one pass",
                    onesweep_commands<std::uint8_t>(large, true, {}, true),
                    {0, 0}},
           Expected{"u32 pairs into others, three passes",
                    onesweep_commands<std::uint32_t>(large, true, bits24, true),
                    {0, 1}},
           Expected{"u32 keys into others, four passes",
                    onesweep_commands<std::uint32_t>(small, false, {}, true),
                    {0, 0}},
       }) {
    BOOST_TEST_CONTEXT(e.what) {
      BOOST_TEST(e.counts.copies == e.expected.copies);
      BOOST_TEST(e.counts.reads == e.expected.reads);
    }
  }
}

BOOST_AUTO_TEST_CASE(chained_sorts_on_device_buffers) {
  Sorter sorter(test_queue());
  // Several sorts queued back to back without waiting share the Sorter's scratch buffers.
  std::vector<std::vector<float>> inputs;
  std::vector<cl::Buffer> buffers;
  std::vector<cl::Event> done;
  for (std::size_t i = 0; i < 4; ++i) {
    inputs.push_back(make_keys<float>(Distribution::uniform, 10000 + 997 * i, i));
    buffers.push_back(device_copy(inputs.back()));
    done.push_back(sorter.sort(buffers.back(), inputs.back().size(), KeyType::f32,
                               {/*descending=*/i % 2 == 1}));
  }
  for (std::size_t i = 0; i < 4; ++i) {
    const SortOptions o{/*descending=*/i % 2 == 1};
    const auto expected = permuted(inputs[i], reference_permutation(inputs[i], o));
    const auto got = read_back<float>(buffers[i], inputs[i].size(), done[i]);
    BOOST_TEST(first_difference(got, expected) == got.size());
  }
}

BOOST_AUTO_TEST_CASE(pairs_wait_for_the_given_events) {
  Sorter sorter(test_queue());
  const std::size_t n = 30011;
  const auto keys = make_keys<std::int64_t>(Distribution::few_distinct, n, 9);
  auto values = position_values<Value16>(n);
  cl::Buffer key_buffer(test_context(), CL_MEM_READ_WRITE, n * 8);
  cl::Buffer value_buffer = device_copy(values);
  cl::Event written;
  test_queue().enqueueWriteBuffer(key_buffer, CL_FALSE, 0, n * 8, keys.data(), nullptr, &written);
  const std::vector<cl::Event> waits{written};
  const cl::Event sorted =
      sorter.sort_pairs(key_buffer, value_buffer, n, KeyType::i64, sizeof(Value16), {}, &waits);
  const auto order = reference_permutation(keys, {});
  BOOST_TEST(
      first_difference(read_back<std::int64_t>(key_buffer, n, sorted), permuted(keys, order)) == n);
  BOOST_TEST(
      first_difference(read_back<Value16>(value_buffer, n, sorted), permuted(values, order)) == n);
}

BOOST_AUTO_TEST_CASE(buffers_too_small_or_bad_value_sizes_are_errors) {
  Sorter sorter(test_queue());
  cl::Buffer small(test_context(), CL_MEM_READ_WRITE, 40);
  BOOST_CHECK_EXCEPTION(sorter.sort(small, 11, KeyType::u32), Error, [](const Error& e) {
    return std::string(e.what()).find("keys buffer holds 40 bytes; the sort needs 44") !=
           std::string::npos;
  });
  BOOST_CHECK_EXCEPTION(sorter.sort_pairs(small, small, 2, KeyType::u32, 3), Error,
                        [](const Error& e) {
                          return std::string(e.what()).find("value size 3") != std::string::npos;
                        });
}

BOOST_AUTO_TEST_CASE(empty_and_single_sorts_return_completed_events) {
  Sorter sorter(test_queue());
  cl::Buffer one(test_context(), CL_MEM_READ_WRITE, 8);
  BOOST_TEST(sorter.sort(one, 0, KeyType::f64).wait() == CL_SUCCESS);
  BOOST_TEST(sorter.sort(one, 1, KeyType::f64).wait() == CL_SUCCESS);
}

// Each algorithm's plan ends its sort differently (a launch, a copy back from scratch, a
// marker): every one must leave its end to the queue's order when no event is asked for.
std::vector<std::optional<Params>> one_set_per_algorithm() {
  std::vector<std::optional<Params>> sets{std::nullopt};  // the device's defaults
  for (Algorithm algorithm :
       {Algorithm::rank_sort, Algorithm::single_group, Algorithm::onesweep,
        Algorithm::fused_onesweep, Algorithm::hybrid, Algorithm::reduce_then_scan}) {
    Params p;
    p.algorithm = algorithm;
    p.work_group_size = 64;
    p.elements_per_thread = algorithm == Algorithm::rank_sort ? 16 : 4;
    sets.push_back(p);
  }
  return sets;
}

// Keys a sort of one_set_per_algorithm's `params` takes: within rank_sort's capacity there.
std::size_t keys_for(const std::optional<Params>& params) {
  return params && params->algorithm == Algorithm::rank_sort ? 1021 : 30011;
}

BOOST_AUTO_TEST_CASE(sorts_without_events_run_in_queue_order) {
  SortOptions no_event;
  no_event.return_event = false;
  SortOptions low_byte_no_event = no_event;
  low_byte_no_event.end_bit = 8;
  for (const std::optional<Params>& params : one_set_per_algorithm()) {
    Sorter sorter = params ? Sorter(test_queue(), *params) : Sorter(test_queue());
    const std::size_t n = keys_for(params);
    BOOST_TEST_CONTEXT((params ? to_string(params->algorithm) : "default") << ", n = " << n) {
      const auto keys = make_keys<std::uint32_t>(Distribution::uniform, n, 21);
      const auto values = position_values<std::uint32_t>(n);
      const cl::Buffer key_buffer = device_copy(keys);
      const cl::Buffer value_buffer = device_copy(values);
      // The second sort, stable on the low byte only, keeps the first one's order among keys of
      // equal low bytes: run out of order, it would leave them in input order.
      BOOST_TEST(!sorter.sort_pairs(key_buffer, value_buffer, n, KeyType::u32, 4, no_event)());
      BOOST_TEST(
          !sorter.sort_pairs(key_buffer, value_buffer, n, KeyType::u32, 4, low_byte_no_event)());
      const auto first = reference_permutation(keys, {});
      const auto sorted_keys = permuted(keys, first);
      const auto second = reference_permutation(sorted_keys, low_byte_no_event);
      std::vector<std::uint32_t> got(n);
      test_queue().enqueueReadBuffer(value_buffer, CL_TRUE, 0, n * 4, got.data());
      BOOST_TEST(first_difference(got, permuted(permuted(values, first), second)) == n);
      // The synchronous host-data sort after them still waits for its own end.
      auto host_keys = keys;
      sorter.sort(host_keys);
      BOOST_TEST(first_difference(host_keys, sorted_keys) == n);
    }
  }
}

// prepare() writes into the scratch buffers it has the device back (a zero in each first byte):
// where a sort still runs, after an odd or an even number of sorts (whose counters alternate),
// the sorts after it must still come out right.
BOOST_AUTO_TEST_CASE(prepare_between_sorts_leaves_them_right) {
  std::vector<std::optional<Params>> sets = one_set_per_algorithm();
  Params six_bit_hybrid;  // its usual passes run an 8-bit plan of their own
  six_bit_hybrid.algorithm = Algorithm::hybrid;
  six_bit_hybrid.radix_bits = 6;
  six_bit_hybrid.work_group_size = 64;
  six_bit_hybrid.elements_per_thread = 4;
  sets.push_back(six_bit_hybrid);
  for (const std::optional<Params>& params : sets) {
    Sorter sorter = params ? Sorter(test_queue(), *params) : Sorter(test_queue());
    const std::size_t n = keys_for(params);
    BOOST_TEST_CONTEXT((params ? to_string(params->algorithm) : "default")
                       << (params ? " r" + std::to_string(params->radix_bits) : "")) {
      sorter.prepare(KeyType::u32, 4, n);
      std::vector<std::vector<std::uint32_t>> inputs;
      std::vector<cl::Buffer> key_buffers, value_buffers;
      std::vector<cl::Event> done;
      const auto values = position_values<std::uint32_t>(n);
      for (std::uint64_t i = 0; i < 3; ++i) {
        inputs.push_back(make_keys<std::uint32_t>(Distribution::uniform, n, 40 + i));
        key_buffers.push_back(device_copy(inputs.back()));
        value_buffers.push_back(device_copy(values));
        done.push_back(
            sorter.sort_pairs(key_buffers.back(), value_buffers.back(), n, KeyType::u32, 4));
        sorter.prepare(KeyType::u32, 4, n);
      }
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        const auto order = reference_permutation(inputs[i], {});
        BOOST_TEST(first_difference(read_back<std::uint32_t>(key_buffers[i], n, done[i]),
                                    permuted(inputs[i], order)) == n);
        BOOST_TEST(first_difference(read_back<std::uint32_t>(value_buffers[i], n, done[i]),
                                    permuted(values, order)) == n);
      }
    }
  }
}

// prepare() builds what a sort of its size then needs: for u8 pairs in place in one tile of
// fused_onesweep (one launch on every device), also the kernel that copies the values aside.
BOOST_AUTO_TEST_CASE(prepare_builds_the_kernel_of_one_launch_pairs_in_place) {
  Sorter sorter(test_queue(), shaped_params(Algorithm::fused_onesweep, Ranking::bitmask, 64, 8));
  const std::size_t n = 503;  // one tile of 512 keys
  sorter.prepare(KeyType::u8, 4, n);
  const auto keys = make_keys<std::uint8_t>(Distribution::few_distinct, n, 60);
  const auto values = position_values<std::uint32_t>(n);
  const cl::Buffer key_buffer = device_copy(keys), value_buffer = device_copy(values);
  reset_call_counts();
  const cl::Event sorted = sorter.sort_pairs(key_buffer, value_buffer, n, KeyType::u8, 4);
  BOOST_TEST(call_count("clCreateKernel") == 0u);
  const auto order = reference_permutation(keys, {});
  BOOST_TEST(
      first_difference(read_back<std::uint8_t>(key_buffer, n, sorted), permuted(keys, order)) == n);
  BOOST_TEST(first_difference(read_back<std::uint32_t>(value_buffer, n, sorted),
                              permuted(values, order)) == n);
}

BOOST_AUTO_TEST_CASE(sorts_on_an_out_of_order_queue_return_events_even_when_asked_not_to) {
  const cl::CommandQueue queue(test_context(), test_device(),
                               CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  Sorter sorter(queue);
  const auto keys = make_keys<float>(Distribution::uniform, 4099, 5);
  const cl::Buffer buffer = device_copy(keys);
  SortOptions no_event;
  no_event.return_event = false;
  const cl::Event sorted = sorter.sort(buffer, keys.size(), KeyType::f32, no_event);
  BOOST_REQUIRE(sorted());
  BOOST_TEST(first_difference(read_back<float>(buffer, keys.size(), sorted),
                              permuted(keys, reference_permutation(keys, {}))) == keys.size());
}

BOOST_AUTO_TEST_SUITE_END()
