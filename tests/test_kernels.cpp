// Each kernel on its own against a CPU reference: count, scan and scatter, 32- and 64-bit offsets.
#include <boost/test/unit_test.hpp>

#include <numeric>
#include <random>

#include "prefix_scan.hpp"
#include "radix_kernels.hpp"
#include "sort_plan.hpp"
#include "support/inputs.hpp"
#include "support/opencl_fixture.hpp"

using namespace clsort;
using namespace clsort::detail;
using namespace clsort::test;

namespace {

template <class T>
cl::Buffer upload(const std::vector<T>& data) {
  return cl::Buffer(test_context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                    std::max<std::size_t>(1, data.size() * sizeof(T)), const_cast<T*>(data.data()));
}

template <class T>
std::vector<T> download(const cl::Buffer& buffer, std::size_t n) {
  std::vector<T> data(n);
  if (n > 0) test_queue().enqueueReadBuffer(buffer, CL_TRUE, 0, n * sizeof(T), data.data());
  return data;
}

// Offsets as the kernels store them: 32 or 64 bits wide.
std::vector<std::uint64_t> download_offsets(const cl::Buffer& buffer, std::size_t n, bool wide) {
  if (wide) return download<std::uint64_t>(buffer, n);
  const auto narrow = download<std::uint32_t>(buffer, n);
  return {narrow.begin(), narrow.end()};
}

cl::Buffer upload_offsets(const std::vector<std::uint64_t>& data, bool wide) {
  if (wide) return upload(data);
  return upload(std::vector<std::uint32_t>(data.begin(), data.end()));
}

std::vector<Params> kernel_variants() {
  Params serial;
  serial.ranking = Ranking::serial;
  serial.work_group_size = 4;
  serial.elements_per_thread = 37;
  Params bitmask;
  bitmask.radix_bits = 6;
  bitmask.work_group_size = 96;  // not a multiple of 64: the last bitmask word is partial
  bitmask.elements_per_thread = 5;
  return {serial, bitmask};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels)

BOOST_AUTO_TEST_CASE(pass_digits_cover_the_bit_range) {
  const auto passes = pass_digits(3, 20, 8);
  BOOST_TEST(passes.size() == 3u);
  BOOST_TEST(passes[0].shift == 3u);
  BOOST_TEST(passes[0].mask == 0xFFu);
  BOOST_TEST(passes[2].shift == 19u);
  BOOST_TEST(passes[2].mask == 1u);
  BOOST_TEST(pass_digits(5, 5, 4).empty());
}

// Enqueues what `enqueue` adds to a command chain on the test queue, and waits for it.
template <class Enqueue>
void run_and_wait(Enqueue&& enqueue) {
  CommandChain chain(test_queue(), {});
  enqueue(chain);
  chain.done().wait();
}

BOOST_AUTO_TEST_CASE(count_matches_cpu_histograms) {
  for (bool wide : {false, true}) {
    for (const Params& params : kernel_variants()) {
      RadixKernels k(test_context(), test_device(), {KeyType::i32, 0, wide, params});
      for (std::size_t n : {1u, 100u, 5000u, 77777u}) {
        const auto signed_keys = make_keys<std::int32_t>(Distribution::uniform, n, n);
        const std::uint64_t blocks = k.block_count(n);
        for (PassDigit digit : {PassDigit{0, (1u << params.radix_bits) - 1}, PassDigit{29, 7}}) {
          for (bool descending : {false, true}) {
            const std::size_t length = (digit.mask + 1) * blocks;
            cl::Buffer hist(test_context(), CL_MEM_READ_WRITE, length * 8);
            run_and_wait([&](CommandChain& c) {
              k.count(c, upload(signed_keys), n, digit, descending, hist);
            });
            // The reference works on the signed key's ordered bits through the same helper.
            std::vector<std::uint64_t> expected((digit.mask + 1) * blocks, 0);
            const std::size_t per_block = keys_per_block(params);
            for (std::size_t i = 0; i < n; ++i) {
              const unsigned d =
                  (reference_ordered_bits(signed_keys[i], descending) >> digit.shift) & digit.mask;
              ++expected[d * blocks + i / per_block];
            }
            BOOST_TEST(download_offsets(hist, length, wide) == expected,
                       "wide=" << wide << " ranking=" << to_string(params.ranking) << " n=" << n
                               << " shift=" << digit.shift << " descending=" << descending);
          }
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(scan_matches_cpu_exclusive_scan) {
  std::mt19937_64 rng(5);
  for (bool wide : {false, true}) {
    for (auto [wg, ept] :
         {std::pair{1, 2}, std::pair{2, 1}, std::pair{4, 3}, std::pair{64, 4}, std::pair{33, 2}}) {
      PrefixScan scan(test_context(), test_device(), wide, wg, ept);
      // Lengths that need one, two and three levels of tile sums.
      for (std::size_t length : {1u, 7u, 64u, 1000u, 70001u}) {
        std::vector<std::uint64_t> data(length);
        for (auto& v : data) v = rng() % 1000;
        std::vector<std::uint64_t> expected(length);
        std::exclusive_scan(data.begin(), data.end(), expected.begin(), std::uint64_t{0});
        const cl::Buffer buffer = upload_offsets(data, wide);
        run_and_wait([&](CommandChain& c) { scan.run(c, buffer, length); });
        BOOST_TEST(download_offsets(buffer, length, wide) == expected,
                   "wide=" << wide << " wg=" << wg << " ept=" << ept << " length=" << length);
      }
    }
  }
}

// Few distinct keys test stability; uniform ones put keys in every digit, and the last key is in
// the last block's last digit (the serial scatter reads each block's counts from the scanned
// offsets, that entry's up to n).
BOOST_AUTO_TEST_CASE(scatter_places_keys_stably_at_scanned_offsets) {
  for (bool wide : {false, true}) {
    for (const Params& params : kernel_variants()) {
      RadixKernels k(test_context(), test_device(), {KeyType::u16, 4, wide, params});
      for (auto [n, distribution] : {std::pair{std::size_t{1}, Distribution::few_distinct},
                                     std::pair{std::size_t{999}, Distribution::few_distinct},
                                     std::pair{std::size_t{40000}, Distribution::few_distinct},
                                     std::pair{std::size_t{40000}, Distribution::uniform}}) {
        auto keys = make_keys<std::uint16_t>(distribution, n, n + 1);
        if (distribution == Distribution::uniform) keys.back() = 0xFFFF;  // in the last digit
        std::vector<std::uint32_t> values(n);
        std::iota(values.begin(), values.end(), 0u);
        const PassDigit digit{4, (1u << params.radix_bits) - 1};
        const std::uint64_t blocks = k.block_count(n);
        const std::size_t length = (digit.mask + 1) * blocks;
        cl::Buffer offsets(test_context(), CL_MEM_READ_WRITE, length * 8);
        const PassData from{upload(keys), upload(values)};
        const PassData to{cl::Buffer(test_context(), CL_MEM_READ_WRITE, n * 2),
                          cl::Buffer(test_context(), CL_MEM_READ_WRITE, n * 4)};
        // Offsets from a CPU scan of the device histogram, so only the scatter is under test.
        run_and_wait([&](CommandChain& c) { k.count(c, from.keys, n, digit, false, offsets); });
        auto hist = download_offsets(offsets, length, wide);
        std::exclusive_scan(hist.begin(), hist.end(), hist.begin(), std::uint64_t{0});
        const cl::Buffer scanned = upload_offsets(hist, wide);
        run_and_wait([&](CommandChain& c) { k.scatter(c, from, to, n, digit, false, scanned); });

        std::vector<std::uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
          return ((keys[a] >> 4) & digit.mask) < ((keys[b] >> 4) & digit.mask);
        });
        BOOST_TEST(download<std::uint32_t>(to.values, n) == order,
                   "wide=" << wide << " ranking=" << to_string(params.ranking) << " n=" << n << " "
                           << to_string(distribution));
        BOOST_TEST(download<std::uint16_t>(to.keys, n) ==
                   permuted(keys, std::vector<std::size_t>(order.begin(), order.end())));
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
