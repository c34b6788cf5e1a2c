// Several Sorters on several queues, sorting from several threads at once, stay correct.
#include <boost/test/unit_test.hpp>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "support/opencl_fixture.hpp"
#include "support/sort_checks.hpp"

using namespace clsort;
using namespace clsort::test;

namespace {

constexpr int thread_count = 4;

// Boost.Test's checks are not thread-safe: threads collect failures and the test reports them.
struct Failures {
  std::mutex mutex;
  std::vector<std::string> lines;
  void add(const std::string& line) {
    std::lock_guard lock(mutex);
    lines.push_back(line);
  }
};

// Holds threads until all have arrived, so that their sorts overlap.
class StartLine {
 public:
  explicit StartLine(int threads) : waiting_(threads) {}
  void arrive_and_wait() {
    std::unique_lock lock(mutex_);
    if (--waiting_ == 0) all_arrived_.notify_all();
    all_arrived_.wait(lock, [&] { return waiting_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable all_arrived_;
  int waiting_;
};

template <class K>
void sort_and_compare(Sorter& sorter, std::size_t n, std::uint64_t seed, Failures& failures) {
  auto keys = make_keys<K>(Distribution::uniform, n, seed);
  auto values = position_values<std::uint32_t>(n);
  const auto order = reference_permutation(keys, {});
  sorter.sort_pairs(keys, values);
  if (first_difference(keys, permuted(make_keys<K>(Distribution::uniform, n, seed), order)) != n ||
      first_difference(values, permuted(position_values<std::uint32_t>(n), order)) != n)
    failures.add(std::string(to_string(key_type_of<K>())) + " n=" + std::to_string(n) +
                 " seed=" + std::to_string(seed) + " sorted wrongly");
}

// Each thread gets a Sorter from `make_sorter(thread)` and sorts rounds of mixed inputs, all
// threads starting together.
template <class MakeSorter>
void sort_from_threads(MakeSorter make_sorter, int rounds) {
  Failures failures;
  StartLine start(thread_count);
  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t)
    threads.emplace_back([&, t] {
      try {
        Sorter sorter = make_sorter(t);
        start.arrive_and_wait();
        for (int round = 0; round < rounds; ++round) {
          const std::uint64_t seed = static_cast<std::uint64_t>(t * 1000 + round);
          sort_and_compare<std::uint32_t>(sorter, 20011 + 97 * round, seed, failures);
          sort_and_compare<double>(sorter, 5003 + 31 * t, seed, failures);
          sort_and_compare<std::int8_t>(sorter, 1021, seed, failures);
        }
      } catch (const std::exception& e) {
        failures.add("thread " + std::to_string(t) + ": " + e.what());
      }
    });
  for (std::thread& thread : threads) thread.join();
  BOOST_TEST(failures.lines.empty());
  for (const std::string& line : failures.lines) BOOST_TEST_MESSAGE(line);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(concurrency)

BOOST_AUTO_TEST_CASE(one_queue_per_thread_in_one_context) {
  sort_from_threads([](int) { return Sorter(cl::CommandQueue(test_context(), test_device())); }, 6);
}

BOOST_AUTO_TEST_CASE(one_context_per_thread_building_kernels_at_once) {
  sort_from_threads(
      [](int) {
        const cl::Context context(test_device());
        return Sorter(cl::CommandQueue(context, test_device()));
      },
      3);
}

BOOST_AUTO_TEST_CASE(sorters_sharing_one_queue) {
  sort_from_threads([](int) { return Sorter(test_queue()); }, 4);
}

BOOST_AUTO_TEST_CASE(device_buffer_sorts_on_an_out_of_order_queue) {
  const cl::CommandQueue queue(test_context(), test_device(),
                               CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  Sorter sorter(queue);
  std::vector<std::vector<std::uint32_t>> inputs;
  std::vector<cl::Buffer> buffers;
  std::vector<cl::Event> done;
  for (int i = 0; i < 4; ++i) {
    inputs.push_back(make_keys<std::uint32_t>(Distribution::uniform, 30011, 90 + i));
    buffers.emplace_back(test_context(), CL_MEM_READ_WRITE, inputs.back().size() * 4);
    queue.enqueueWriteBuffer(buffers.back(), CL_TRUE, 0, inputs.back().size() * 4,
                             inputs.back().data());
    done.push_back(sorter.sort(buffers.back(), inputs.back().size(), KeyType::u32));
  }
  cl::Event::waitForEvents(done);
  for (int i = 0; i < 4; ++i) {
    std::vector<std::uint32_t> sorted(inputs[i].size());
    queue.enqueueReadBuffer(buffers[i], CL_TRUE, 0, sorted.size() * 4, sorted.data());
    BOOST_TEST(first_difference(sorted, permuted(inputs[i], reference_permutation(
                                                                inputs[i], {}))) == sorted.size());
  }
}

BOOST_AUTO_TEST_SUITE_END()
