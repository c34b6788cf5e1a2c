// Devices with less than the defaults expect (per-kernel work-group limits, small local memory,
// no 64-bit atomics or fp64, no 64-bit integers): the library picks what runs or says why not.
#include <boost/test/unit_test.hpp>

#include "support/environment.hpp"
#include "support/error_checks.hpp"
#include "support/opencl_faults.hpp"
#include "support/opencl_fixture.hpp"
#include "support/sort_checks.hpp"

using namespace clsort;
using namespace clsort::test;

namespace {

// Disguises give the device the type GPU where the GPU defaults (bitmask ranking, 256-wide
// work-groups) should meet a limit, whatever device the tests run on.
constexpr cl_device_type gpu = CL_DEVICE_TYPE_GPU;

// A device whose driver reports kernels' work-group limits (CL_KERNEL_WORK_GROUP_SIZE) capped at
// 48. Not NVIDIA's, whose reported limit the library looks past (its driver reports 256 for
// every kernel); `vendor` says whose.
DeviceDisguise kernel_limit_of_48(std::optional<cl_device_type> type, cl_uint vendor) {
  DeviceDisguise disguise;
  disguise.type = type;
  disguise.kernel_work_group_limit = 48;
  disguise.vendor_id = vendor;
  return disguise;
}
constexpr cl_uint amd = 0x1002, nvidia = 0x10DE;

// Parameters whose 64-wide work-groups exceed that limit.
Params work_groups_of_64() {
  Params p;
  p.work_group_size = 64;
  p.scan_work_group_size = 32;
  return p;
}

// A sort that must be refused with an error naming `fragment`, leaving the keys unchanged.
template <class K>
void expect_refused(Sorter& sorter, std::vector<K> keys, const std::string& fragment) {
  const auto original = keys;
  BOOST_CHECK_EXCEPTION(sorter.sort(keys), Error,
                        [&](const Error& e) { return message_has(e, fragment); });
  BOOST_TEST(first_difference(keys, original) == keys.size());
}

// Every key width, keys and pairs, a size with a partial last block.
void expect_every_width_sorts(Sorter& sorter) {
  std::uint64_t seed = 40;
  for (Distribution d : {Distribution::uniform, Distribution::extremes}) {
    expect_sorted_keys(sorter, make_keys<std::uint8_t>(d, 5003, seed++), {}, to_string(d));
    expect_sorted_keys(sorter, make_keys<std::int16_t>(d, 5003, seed++), {}, to_string(d));
    expect_sorted_pairs<float, std::uint32_t>(sorter, make_keys<float>(d, 5003, seed++), {},
                                              to_string(d));
    expect_sorted_pairs<double, std::uint64_t>(sorter, make_keys<double>(d, 5003, seed++),
                                               {/*descending=*/true}, to_string(d));
  }
}

struct DefaultsOnly {
  Environment environment;
  DefaultsOnly() { environment.set("CLSORT_PROFILE", "none"); }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(device_trouble, DefaultsOnly)

BOOST_AUTO_TEST_CASE(defaults_shrink_to_a_kernel_work_group_limit) {
  FaultScope scope;
  disguise_device(kernel_limit_of_48(gpu, amd));
  Sorter sorter(test_queue());
  BOOST_TEST(sorter.params_for(KeyType::f32, 4, 5003).work_group_size > 48);
  expect_every_width_sorts(sorter);
  const Params used = sorter.params_for(KeyType::f32, 4, 5003);
  BOOST_TEST(used.work_group_size == 32);
  BOOST_TEST(used.scan_work_group_size <= 32);
}

BOOST_AUTO_TEST_CASE(chosen_parameters_over_a_kernel_limit_are_refused_by_name) {
  FaultScope scope;
  disguise_device(kernel_limit_of_48(std::nullopt, amd));
  Sorter sorter(test_queue(), work_groups_of_64());
  expect_refused(sorter, make_keys<std::uint32_t>(Distribution::uniform, 1000, 3),
                 "work_group_size = 64 exceeds CL_KERNEL_WORK_GROUP_SIZE = 48");
}

// NVIDIA's driver reports a kernel limit below what its kernels run (256 for every kernel), and
// every clsort kernel declares its work-group size, so there the device's maximum is the limit.
BOOST_AUTO_TEST_CASE(an_nvidia_kernel_limit_gives_way_to_the_device_limit) {
  FaultScope scope;
  disguise_device(kernel_limit_of_48(std::nullopt, nvidia));
  Sorter sorter(test_queue(), work_groups_of_64());
  expect_sorted_keys(sorter, make_keys<std::uint32_t>(Distribution::uniform, 5003, 4), {},
                     "uniform");
  BOOST_TEST(sorter.params_for(KeyType::u32, 0, 5003).work_group_size == 64);
}

// GPUs and CPUs have different defaults (a CPU's blocks live in local memory too).
BOOST_AUTO_TEST_CASE(defaults_fit_a_small_local_memory) {
  for (const cl_device_type type : {gpu, cl_device_type{CL_DEVICE_TYPE_CPU}}) {
    BOOST_TEST_CONTEXT("device type " << type) {
      FaultScope scope;
      disguise_device({type, /*local_memory_bytes=*/2048});
      Sorter sorter(test_queue());
      for (std::size_t key_bytes : {1, 2, 4, 8})
        for (std::size_t value_bytes : {0, 4, 8, 16}) {
          const Params p = default_params(test_device(), key_bytes, value_bytes);
          BOOST_TEST(local_memory_bytes(p, key_bytes, value_bytes) <= 2048u);
        }
      expect_every_width_sorts(sorter);
    }
  }
}

BOOST_AUTO_TEST_CASE(too_little_local_memory_is_a_clear_error) {
  FaultScope scope;
  disguise_device({gpu, /*local_memory_bytes=*/16});
  Sorter sorter(test_queue());
  expect_refused(sorter, make_keys<std::uint32_t>(Distribution::uniform, 1000, 4),
                 "CL_DEVICE_LOCAL_MEM_SIZE = 16");
}

// A Sorter given one set learns the widths with each sort: a set whose blocks fit local memory
// for u8 keys sorts them, and is refused by name for u32 keys.
BOOST_AUTO_TEST_CASE(one_set_is_checked_against_each_sorts_widths) {
  FaultScope scope;
  disguise_device({std::nullopt, /*local_memory_bytes=*/8192});
  Params p = default_params(test_device(), 1, 0);
  p.ranking = Ranking::serial;
  p.algorithm = Algorithm::reduce_then_scan;
  p.work_group_size = 1;
  p.elements_per_thread = 4096;
  BOOST_TEST(local_memory_bytes(p, 1, 0) <= 8192u);
  BOOST_TEST(local_memory_bytes(p, 4, 0) > 8192u);
  Sorter sorter(test_queue(), p);
  expect_sorted_keys(sorter, make_keys<std::uint8_t>(Distribution::uniform, 10007, 6), {},
                     "u8 keys");
  expect_refused(sorter, make_keys<std::uint32_t>(Distribution::uniform, 1000, 7),
                 "for 4-byte keys and 0-byte values; CL_DEVICE_LOCAL_MEM_SIZE = 8192");
}

BOOST_AUTO_TEST_CASE(no_64_bit_atomics_and_no_fp64_are_not_needed) {
  FaultScope scope;
  DeviceDisguise disguise;
  disguise.hidden_extensions = {"cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics",
                                "cl_khr_fp64"};
  disguise_device(disguise);
  Sorter sorter(test_queue());
  expect_every_width_sorts(sorter);
  expect_sorted_keys(sorter, make_keys<std::int64_t>(Distribution::extremes, 4099, 5), {},
                     "extremes");
}

BOOST_AUTO_TEST_CASE(an_embedded_profile_without_int64_sorts_32_bit_keys_and_refuses_64) {
  FaultScope scope;
  DeviceDisguise disguise;
  disguise.embedded_profile = true;
  disguise.hidden_extensions = {"cles_khr_int64"};
  disguise_device(disguise);
  Sorter sorter(test_queue());
  expect_sorted_pairs<std::uint32_t, std::uint32_t>(
      sorter, make_keys<std::uint32_t>(Distribution::uniform, 5003, 6), {}, "uniform");
  expect_refused(sorter, make_keys<double>(Distribution::uniform, 1000, 7),
                 "without cles_khr_int64");
}

BOOST_AUTO_TEST_SUITE_END()
