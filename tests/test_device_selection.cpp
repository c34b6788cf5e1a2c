// Tests of device specifications ("P:D", "gpu", "cpu", name substrings) over fake device lists.
#include <boost/test/unit_test.hpp>

#include <clsort/clsort.hpp>

#include "support/error_checks.hpp"

using namespace clsort;
using clsort::test::message_has;

namespace {

std::vector<DeviceDescription> machine() {
  return {
      {0, 0, "Portable Computing Language", "pthread-skylake-avx512", false, true},
      {1, 0, "NVIDIA CUDA", "NVIDIA H200", true, false},
      {1, 1, "NVIDIA CUDA", "NVIDIA H100 80GB HBM3", true, false},
  };
}

}  // namespace

BOOST_AUTO_TEST_SUITE(device_selection)

BOOST_AUTO_TEST_CASE(default_is_the_first_gpu_else_the_first_device) {
  BOOST_TEST(select_device("", machine()) == 1u);
  auto cpus_only = machine();
  cpus_only.resize(1);
  BOOST_TEST(select_device("", cpus_only) == 0u);
}

BOOST_AUTO_TEST_CASE(indices_types_and_names) {
  BOOST_TEST(select_device("1:1", machine()) == 2u);
  BOOST_TEST(select_device("0:0", machine()) == 0u);
  BOOST_TEST(select_device("cpu", machine()) == 0u);
  BOOST_TEST(select_device("GPU", machine()) == 1u);
  BOOST_TEST(select_device("h100", machine()) == 2u);
  BOOST_TEST(select_device("portable", machine()) == 0u);
  BOOST_TEST(select_device("nvidia", machine()) == 1u);
}

BOOST_AUTO_TEST_CASE(bad_specifications_are_named) {
  BOOST_CHECK_EXCEPTION(select_device("2:0", machine()), Error, [](const Error& e) {
    return message_has(e, "'2:0'") && message_has(e, "platform 2");
  });
  BOOST_CHECK_EXCEPTION(select_device("1:x", machine()), Error,
                        [](const Error& e) { return message_has(e, "expected P:D"); });
  BOOST_CHECK_EXCEPTION(select_device("radeon", machine()), Error, [](const Error& e) {
    return message_has(e, "'radeon'") && message_has(e, "no device matches");
  });
  auto cpus_only = machine();
  cpus_only.resize(1);
  BOOST_CHECK_EXCEPTION(select_device("gpu", cpus_only), Error,
                        [](const Error& e) { return message_has(e, "'gpu'"); });
  BOOST_CHECK_EXCEPTION(select_device("", {}), Error,
                        [](const Error& e) { return message_has(e, "no OpenCL device"); });
}

BOOST_AUTO_TEST_CASE(real_devices_are_listed) {
  const auto devices = list_devices();
  BOOST_TEST(!devices.empty());
  for (const auto& d : devices) BOOST_TEST(!d.description.device_name.empty());
}

BOOST_AUTO_TEST_SUITE_END()
