// Test-only OpenCL fault injection: chosen OpenCL calls fail, or the device reports smaller limits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <clsort/opencl.hpp>

// opencl_faults.cpp defines the OpenCL entry points below with C linkage, so every call the
// program makes (the library's included) goes through it first; with nothing armed it only
// counts the call and passes it on. Linked into the test binary, or preloaded into another
// program (LD_PRELOAD) and armed through CLSORT_TEST_FAULTS="call@skip*count=error,...".
namespace clsort::test {

/// The OpenCL calls that can be made to fail.
inline const std::vector<std::string>& fault_injectable_calls() {
  static const std::vector<std::string> calls{
      "clCreateBuffer",         "clBuildProgram",       "clCreateKernel",
      "clEnqueueNDRangeKernel", "clEnqueueWriteBuffer", "clEnqueueReadBuffer",
      "clEnqueueCopyBuffer",    "clEnqueueFillBuffer",  "clEnqueueMarkerWithWaitList",
      "clWaitForEvents",        "clEnqueueMapBuffer"};
  return calls;
}

struct Fault {
  std::string call;         ///< one of fault_injectable_calls()
  std::uint64_t skip = 0;   ///< calls that succeed before the first failure
  std::uint64_t count = 1;  ///< failures before calls succeed again
  cl_int error = 0;         ///< the error returned; 0 picks a typical one for the call
};

/// Arms a fault; calls are counted from here on.
void inject_fault(const Fault& fault);
/// Disarms every fault.
void clear_faults();
/// How many injected faults have fired since the last clear_faults().
std::uint64_t faults_fired();
/// How many times `call` was made since the last reset_call_counts().
std::uint64_t call_count(const std::string& call);
void reset_call_counts();

/// A device that reports other limits than it has; unset fields report the truth.
struct DeviceDisguise {
  std::optional<cl_device_type> type;
  std::optional<cl_ulong> local_memory_bytes;
  std::optional<std::size_t> kernel_work_group_limit;  ///< caps CL_KERNEL_WORK_GROUP_SIZE
  bool embedded_profile = false;                       ///< CL_DEVICE_PROFILE = EMBEDDED_PROFILE
  std::vector<std::string> hidden_extensions;
  std::optional<cl_uint> vendor_id;  ///< CL_DEVICE_VENDOR_ID
};

void disguise_device(const DeviceDisguise& disguise);
void clear_disguise();

/// Clears faults and disguise when a test ends, however it ends.
struct FaultScope {
  FaultScope() = default;
  FaultScope(const FaultScope&) = delete;
  FaultScope& operator=(const FaultScope&) = delete;
  ~FaultScope() {
    clear_faults();
    clear_disguise();
  }
};

}  // namespace clsort::test
