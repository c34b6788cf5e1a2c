// Injected OpenCL failures: each is a clsort::Error naming the CL error and the operation, the
// host data is unchanged and the same Sorter sorts correctly afterwards.
#include <boost/test/unit_test.hpp>

#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "support/environment.hpp"
#include "support/opencl_faults.hpp"
#include "support/opencl_fixture.hpp"
#include "support/sort_checks.hpp"

using namespace clsort;
using namespace clsort::test;

namespace {

// The operations each injectable call may be reported as (clsort::Error::operation()): a wait
// fails the sort, or the upload whose transfer it waits for.
const std::map<std::string, std::set<std::string>> operations_of{
    {"clCreateBuffer", {"allocate buffer"}},
    {"clBuildProgram", {"build program"}},
    {"clCreateKernel", {"create kernel"}},
    {"clEnqueueNDRangeKernel", {"enqueue kernel"}},
    {"clEnqueueWriteBuffer", {"write buffer"}},
    {"clEnqueueReadBuffer", {"read buffer"}},
    {"clEnqueueCopyBuffer", {"enqueue copy"}},
    {"clEnqueueFillBuffer", {"enqueue fill"}},
    {"clEnqueueMarkerWithWaitList", {"enqueue marker"}},
    {"clWaitForEvents", {"sort", "write buffer"}},
    {"clEnqueueMapBuffer", {"map buffer"}}};

// A Sorter on its own new context, so that it allocates and builds (from the disk cache)
// everything it uses: every kind of call happens during its first sort.
Sorter fresh_sorter() {
  const cl::Context context(test_device());
  return Sorter(cl::CommandQueue(context, test_device()));
}

// One sort of a Sorter's life: the first, which allocates and builds, then one that reuses.
using SortRun = std::function<void(Sorter&)>;

std::map<std::string, std::uint64_t> calls_of(const SortRun& first_sort) {
  Sorter sorter = fresh_sorter();
  reset_call_counts();
  first_sort(sorter);
  std::map<std::string, std::uint64_t> counts;
  for (const std::string& call : fault_injectable_calls()) counts[call] = call_count(call);
  return counts;
}

// Which of `count` calls to fail: all of a few, else the first, some in between and the last.
std::vector<std::uint64_t> positions_to_fail(std::uint64_t count) {
  if (count <= 12) {
    std::vector<std::uint64_t> all(count);
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  return {0, 1, count / 4, count / 2, 3 * count / 4, count - 2, count - 1};
}

// A program binary from the disk cache that fails to build is rebuilt from source, so a build
// fault fails both (the kernels are in the disk cache once calls_of() has run).
std::uint64_t failures_to_inject(const std::string& call) {
  return call == "clBuildProgram" ? 2 : 1;
}

struct Tally {
  std::uint64_t injected = 0;
  std::map<std::string, std::uint64_t> per_call;
};

// Fails the call at each chosen position in turn; `attempt` sorts (and checks the host data is
// unchanged afterwards), `recover` sorts again on the same Sorter and checks the result.
void inject_everywhere(const SortRun& attempt, const SortRun& recover, Tally& tally) {
  const auto counts = calls_of(attempt);
  for (const auto& [call, count] : counts) {
    for (const std::uint64_t skip : positions_to_fail(count)) {
      BOOST_TEST_CONTEXT(call << " failing at call " << skip << " of " << count) {
        FaultScope scope;
        Sorter sorter = fresh_sorter();
        inject_fault({call, skip, failures_to_inject(call)});
        bool threw = false;
        try {
          attempt(sorter);
        } catch (const Error& e) {
          threw = true;
          BOOST_TEST(operations_of.at(call).count(e.operation()) == 1u, e.operation());
          BOOST_TEST(e.code() != 0);
          BOOST_TEST(std::string(e.what()).find(e.cl_error_name()) != std::string::npos);
        }
        BOOST_TEST(faults_fired() == failures_to_inject(call));
        BOOST_TEST(threw);
        clear_faults();
        recover(sorter);
        ++tally.injected;
        ++tally.per_call[call];
      }
    }
  }
}

template <class K>
std::vector<K> stably_sorted(const std::vector<K>& keys) {
  return permuted(keys, reference_permutation(keys, {}));
}

template <class K>
std::vector<K> random_keys(std::size_t n, std::uint64_t seed) {
  return make_keys<K>(Distribution::uniform, n, seed);
}

// Fails each call of sorting these keys with their positions as values in turn: the host
// arrays stay unchanged, and the Sorter sorts them correctly afterwards.
template <class K>
Tally inject_into_pairs_sorts(const std::vector<K>& original_keys) {
  const auto original_values = position_values<std::uint32_t>(original_keys.size());
  const auto order = reference_permutation(original_keys, {});
  const SortRun attempt = [&](Sorter& sorter) {
    auto keys = original_keys;
    auto values = original_values;
    try {
      sorter.sort_pairs(keys, values);
    } catch (const Error&) {
      BOOST_TEST(first_difference(keys, original_keys) == keys.size(), "keys changed");
      BOOST_TEST(first_difference(values, original_values) == values.size(), "values changed");
      throw;
    }
  };
  const SortRun recover = [&](Sorter& sorter) {
    auto keys = original_keys;
    auto values = original_values;
    sorter.sort_pairs(keys, values);
    BOOST_TEST(first_difference(keys, permuted(original_keys, order)) == keys.size());
    BOOST_TEST(first_difference(values, permuted(original_values, order)) == values.size());
  };
  Tally tally;
  inject_everywhere(attempt, recover, tally);
  return tally;
}

void report(const std::string& what, const Tally& tally) {
  std::string line = what + ": " + std::to_string(tally.injected) + " faults injected (";
  for (const auto& [call, count] : tally.per_call)
    line += call + " " + std::to_string(count) + ", ";
  BOOST_TEST_MESSAGE(line + ")");
}

// The suite fails the disk cache's binary builds too, so it keeps binaries on disk (the other
// suites build in memory: see CLSORT_TEST_ENVIRONMENT).
struct KernelsCachedOnDisk {
  KernelsCachedOnDisk() { environment.set("CLSORT_PROGRAM_CACHE", "disk"); }
  clsort::test::Environment environment;
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(faults, KernelsCachedOnDisk)

BOOST_AUTO_TEST_CASE(each_failing_call_while_sorting_keys) {
  const auto original = random_keys<std::uint32_t>(30011, 7);
  const auto expected = stably_sorted(original);
  const SortRun attempt = [&](Sorter& sorter) {
    auto keys = original;
    try {
      sorter.sort(keys);
    } catch (const Error&) {
      BOOST_TEST(first_difference(keys, original) == keys.size(), "keys changed by a failed sort");
      throw;
    }
  };
  const SortRun recover = [&](Sorter& sorter) {
    auto keys = original;
    sorter.sort(keys);
    BOOST_TEST(first_difference(keys, expected) == keys.size());
  };
  Tally tally;
  inject_everywhere(attempt, recover, tally);
  report("u32 keys", tally);
  BOOST_TEST(tally.per_call["clCreateBuffer"] > 0u);
  BOOST_TEST(tally.per_call["clBuildProgram"] > 0u);
  BOOST_TEST(tally.per_call["clEnqueueNDRangeKernel"] > 0u);
  BOOST_TEST(tally.per_call["clEnqueueReadBuffer"] > 0u);
}

BOOST_AUTO_TEST_CASE(each_failing_call_while_sorting_pairs) {
  const Tally tally = inject_into_pairs_sorts(random_keys<double>(20011, 8));
  report("f64 keys with u32 values", tally);
  BOOST_TEST(tally.injected > 10u);
}

BOOST_AUTO_TEST_CASE(each_failing_call_while_sorting_pairs_through_pinned_staging) {
  environment.set("CLSORT_HOST_STAGING", "pinned");  // both arrays through the pinned block
  const Tally tally = inject_into_pairs_sorts(random_keys<std::uint32_t>(30011, 11));
  report("u32 keys with u32 values through pinned staging", tally);
  BOOST_TEST(tally.per_call.at("clEnqueueMapBuffer") > 0u);
  BOOST_TEST(tally.per_call.at("clEnqueueWriteBuffer") > 0u);
}

BOOST_AUTO_TEST_CASE(a_failed_device_buffer_sort_leaves_the_sorter_usable) {
  const auto original = random_keys<std::uint64_t>(10007, 9);
  const cl::Context context = test_context();
  cl::Buffer buffer(context, CL_MEM_READ_WRITE, original.size() * 8);
  Sorter sorter(test_queue());
  const auto upload = [&] {
    test_queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, original.size() * 8, original.data());
  };
  // The sort's last launch fails: on a sort of several launches, after the first have run; on
  // one of a single launch (fused_onesweep without its histogram kernel), that launch. A first
  // sort counts them (with this sorter: a buffer must not meet another context's kernels).
  upload();
  reset_call_counts();
  sorter.sort(buffer, original.size(), KeyType::u64).wait();
  const std::uint64_t launches = call_count("clEnqueueNDRangeKernel");
  BOOST_TEST_REQUIRE(launches > 0u);
  upload();
  {
    FaultScope scope;
    inject_fault({"clEnqueueNDRangeKernel", /*skip=*/launches - 1});
    BOOST_CHECK_EXCEPTION(sorter.sort(buffer, original.size(), KeyType::u64), Error,
                          [](const Error& e) { return e.code() == CL_OUT_OF_RESOURCES; });
  }
  upload();
  sorter.sort(buffer, original.size(), KeyType::u64).wait();
  std::vector<std::uint64_t> sorted(original.size());
  test_queue().enqueueReadBuffer(buffer, CL_TRUE, 0, sorted.size() * 8, sorted.data());
  BOOST_TEST(first_difference(sorted, stably_sorted(original)) == sorted.size());
}

BOOST_AUTO_TEST_CASE(a_cached_binary_that_fails_to_build_is_rebuilt_from_source) {
  const auto original = random_keys<std::int16_t>(3001, 10);
  calls_of([&](Sorter& sorter) {
    auto keys = original;
    sorter.sort(keys);
  });
  FaultScope scope;
  Sorter sorter = fresh_sorter();
  inject_fault({"clBuildProgram"});
  auto keys = original;
  sorter.sort(keys);
  BOOST_TEST(faults_fired() == 1u);
  BOOST_TEST(first_difference(keys, stably_sorted(original)) == keys.size());
}

BOOST_AUTO_TEST_CASE(the_injector_counts_and_fires_as_asked) {
  FaultScope scope;
  reset_call_counts();
  inject_fault({"clCreateBuffer", /*skip=*/1, /*count=*/2, CL_INVALID_VALUE});
  const cl::Context context = test_context();
  std::vector<cl_int> statuses(4);
  for (cl_int& status : statuses) cl::Buffer(context, CL_MEM_READ_WRITE, 64, nullptr, &status);
  BOOST_TEST(
      statuses == std::vector<cl_int>({CL_SUCCESS, CL_INVALID_VALUE, CL_INVALID_VALUE, CL_SUCCESS}),
      boost::test_tools::per_element());
  BOOST_TEST(call_count("clCreateBuffer") == 4u);
  BOOST_TEST(faults_fired() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
