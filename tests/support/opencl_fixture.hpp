// The OpenCL queue the tests run on: CLSORT_TEST_DEVICE (device spec syntax), else the default.
#pragma once

#include <cstdlib>

#include <clsort/clsort.hpp>

namespace clsort::test {

inline const cl::CommandQueue& test_queue() {
  static const cl::CommandQueue queue = [] {
    const char* spec = std::getenv("CLSORT_TEST_DEVICE");
    return make_queue(find_device(spec ? spec : "").device);
  }();
  return queue;
}

inline cl::Device test_device() {
  return test_queue().getInfo<CL_QUEUE_DEVICE>();
}
inline cl::Context test_context() {
  return test_queue().getInfo<CL_QUEUE_CONTEXT>();
}

}  // namespace clsort::test
