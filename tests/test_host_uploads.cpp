// Host data uploaded through pinned staging: chunking, block reuse, the Sorter's use of it and
// the CLSORT_HOST_STAGING setting.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>

#include "pinned_upload.hpp"
#include "support/environment.hpp"
#include "support/opencl_fixture.hpp"
#include "support/sort_checks.hpp"

using namespace clsort;
using namespace clsort::test;

namespace {

std::vector<unsigned char> random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<unsigned char> bytes(n);
  for (unsigned char& byte : bytes) byte = static_cast<unsigned char>(random());
  return bytes;
}

std::vector<unsigned char> device_bytes(const cl::Buffer& buffer, std::size_t n) {
  std::vector<unsigned char> bytes(n);
  test_queue().enqueueReadBuffer(buffer, CL_TRUE, 0, n, bytes.data());
  return bytes;
}

// Sorts with CLSORT_HOST_STAGING set for the Sorter's lifetime.
struct StagingSetting {
  explicit StagingSetting(const std::string& mode) { environment.set("CLSORT_HOST_STAGING", mode); }
  Environment environment;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(host_uploads)

BOOST_AUTO_TEST_CASE(uploads_of_several_chunks_arrive_whole) {
  // Odd chunk and array sizes: a last chunk shorter than the others, each half of the block
  // refilled several times, and uploads of different sizes one after another through one block.
  const std::size_t chunk = 100003;
  detail::PinnedUpload upload(chunk);
  const std::size_t largest = chunk * 7 + 13;
  const cl::Buffer buffer(test_context(), CL_MEM_READ_WRITE, largest);
  for (const std::size_t bytes :
       {largest, chunk, chunk + 1, chunk * 2, std::size_t{4099}, std::size_t{1}, chunk * 5}) {
    BOOST_TEST_CONTEXT(bytes << " bytes in chunks of " << chunk) {
      const auto source = random_bytes(bytes, static_cast<std::uint32_t>(bytes));
      const auto kept = source;
      upload.write(test_queue(), buffer, source.data(), bytes, {}, "test bytes");
      BOOST_TEST((device_bytes(buffer, bytes) == source));
      BOOST_TEST((source == kept));  // the source is only read
    }
  }
}

BOOST_AUTO_TEST_CASE(an_upload_waits_for_the_events_it_is_given) {
  detail::PinnedUpload upload(4096);
  const std::size_t bytes = 3 * 4096 + 7;
  const cl::Buffer buffer(test_context(), CL_MEM_READ_WRITE, bytes);
  const auto source = random_bytes(bytes, 5);
  cl::UserEvent gate(test_context());
  std::atomic<bool> opened = false;
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    opened = true;
    gate.setStatus(CL_COMPLETE);
  });
  upload.write(test_queue(), buffer, source.data(), bytes, {gate}, "test bytes");
  BOOST_TEST(opened.load());  // it returned only after the gate opened
  opener.join();
  BOOST_TEST((device_bytes(buffer, bytes) == source));
}

BOOST_AUTO_TEST_CASE(sorts_of_host_data_through_pinned_staging) {
  StagingSetting pinned("pinned");  // every upload through the block, whatever its size
  Sorter sorter(test_queue());
  for (const std::size_t n : {std::size_t{1}, std::size_t{4099}, std::size_t{300007}}) {
    for (const Distribution distribution : {Distribution::uniform, Distribution::few_distinct}) {
      const auto keys = make_keys<std::uint32_t>(distribution, n, n);
      expect_sorted_keys(sorter, keys, {}, "pinned staging");
      expect_sorted_pairs<std::uint32_t, std::uint32_t>(sorter, keys, {}, "pinned staging");
    }
  }
  expect_sorted_pairs<float, Value16>(sorter, make_keys<float>(Distribution::extremes, 70001, 3),
                                      {}, "pinned staging");
  expect_sorted_keys(sorter, make_keys<std::int64_t>(Distribution::uniform, 65537, 4), {},
                     "pinned staging");
}

// A sorted copy: the inputs are only read and the other arrays get the stable order, uploaded
// directly and through the pinned block.
BOOST_AUTO_TEST_CASE(sorts_into_other_host_arrays) {
  for (const char* mode : {"direct", "pinned"}) {
    StagingSetting setting(mode);
    Sorter sorter(test_queue());
    for (const std::size_t n :
         {std::size_t{0}, std::size_t{1}, std::size_t{4099}, std::size_t{300007}}) {
      BOOST_TEST_CONTEXT(mode << " staging, n = " << n) {
        const auto keys = make_keys<std::uint32_t>(Distribution::few_distinct, n, n);
        const auto values = position_values<std::uint32_t>(n);
        const auto order = reference_permutation(keys, {});
        std::vector<std::uint32_t> sorted_keys(n, 0xDEADBEEFu), sorted_values(n, 0xDEADBEEFu);
        sorter.sort_host_bytes_into(keys.data(), sorted_keys.data(), n, KeyType::u32, nullptr,
                                    nullptr, 0);
        BOOST_TEST(first_difference(sorted_keys, permuted(keys, order)) == n);
        std::fill(sorted_keys.begin(), sorted_keys.end(), 0xDEADBEEFu);
        sorter.sort_host_bytes_into(keys.data(), sorted_keys.data(), n, KeyType::u32, values.data(),
                                    sorted_values.data(), sizeof(std::uint32_t));
        BOOST_TEST(first_difference(sorted_keys, permuted(keys, order)) == n);
        BOOST_TEST(first_difference(sorted_values, permuted(values, order)) == n);
        BOOST_TEST(first_difference(
                       keys, make_keys<std::uint32_t>(Distribution::few_distinct, n, n)) == n);
        BOOST_TEST(first_difference(values, position_values<std::uint32_t>(n)) == n);
      }
    }
    BOOST_TEST_CONTEXT(mode << " staging, f64 keys with 16-byte values, descending") {
      const auto keys = make_keys<double>(Distribution::extremes, 70001, 3);
      const auto values = position_values<Value16>(keys.size());
      const SortOptions descending{true};
      const auto order = reference_permutation(keys, descending);
      std::vector<double> sorted_keys(keys.size());
      std::vector<Value16> sorted_values(keys.size());
      sorter.sort_host_bytes_into(keys.data(), sorted_keys.data(), keys.size(), KeyType::f64,
                                  values.data(), sorted_values.data(), sizeof(Value16), descending);
      BOOST_TEST(first_difference(sorted_keys, permuted(keys, order)) == keys.size());
      BOOST_TEST(first_difference(sorted_values, permuted(values, order)) == keys.size());
    }
  }
}

BOOST_AUTO_TEST_CASE(the_staging_setting_is_checked) {
  {
    StagingSetting direct("direct");
    BOOST_TEST(!detail::PinnedUpload::threshold_for(test_device()).has_value());
  }
  {
    StagingSetting pinned("pinned");
    const auto threshold = detail::PinnedUpload::threshold_for(test_device());
    BOOST_TEST((threshold && *threshold == 0));
  }
  {
    StagingSetting automatic("auto");
    const bool gpu_or_accelerator = (test_device().getInfo<CL_DEVICE_TYPE>() &
                                     (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) != 0;
    const auto threshold = detail::PinnedUpload::threshold_for(test_device());
    BOOST_TEST(threshold.has_value() == gpu_or_accelerator);
    if (gpu_or_accelerator) BOOST_TEST(*threshold == detail::PinnedUpload::gpu_min_bytes);
  }
  StagingSetting wrong("fast");
  BOOST_CHECK_EXCEPTION(Sorter{test_queue()}, Error, [](const Error& e) {
    const std::string text = e.what();
    return text.find("CLSORT_HOST_STAGING") != std::string::npos &&
           text.find("'fast'") != std::string::npos;
  });
}

BOOST_AUTO_TEST_SUITE_END()
