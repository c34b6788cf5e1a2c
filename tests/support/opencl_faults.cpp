// Interposes OpenCL entry points to inject failures and disguise device limits (test-only).
#include "opencl_faults.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>

namespace clsort::test {
namespace {

struct ArmedFault {
  Fault fault;
  std::uint64_t seen = 0;
  std::uint64_t fired = 0;
};

struct FaultState {
  std::mutex mutex;
  std::atomic<bool> armed{false};
  std::vector<ArmedFault> faults;
  std::uint64_t fired = 0;
  std::array<std::atomic<std::uint64_t>, 16> calls{};
  std::optional<DeviceDisguise> disguise;
};

FaultState& state() {
  static FaultState instance;
  return instance;
}

std::size_t call_index(const std::string& call) {
  const auto& calls = fault_injectable_calls();
  const auto it = std::find(calls.begin(), calls.end(), call);
  if (it == calls.end()) throw std::invalid_argument("no fault injection for OpenCL call " + call);
  return static_cast<std::size_t>(it - calls.begin());
}

cl_int typical_error(const std::string& call) {
  if (call == "clCreateBuffer") return CL_MEM_OBJECT_ALLOCATION_FAILURE;
  if (call == "clBuildProgram") return CL_BUILD_PROGRAM_FAILURE;
  if (call == "clWaitForEvents") return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  return CL_OUT_OF_RESOURCES;
}

// "call@skip*count=error": everything after the call name is optional.
Fault parse_fault(const std::string& text) {
  Fault fault;
  const std::size_t end_of_name = text.find_first_of("@*=");
  fault.call = text.substr(0, end_of_name);
  for (std::size_t at = end_of_name; at < text.size();) {
    const char field = text[at];
    std::size_t used = 0;
    const long long value = std::stoll(text.substr(at + 1), &used);
    if (field == '@') fault.skip = static_cast<std::uint64_t>(value);
    if (field == '*') fault.count = static_cast<std::uint64_t>(value);
    if (field == '=') fault.error = static_cast<cl_int>(value);
    at += 1 + used;
  }
  return fault;
}

void arm_from_environment() {
  const char* spec = std::getenv("CLSORT_TEST_FAULTS");
  if (!spec) return;
  const std::string text(spec);
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    if (end > begin) inject_fault(parse_fault(text.substr(begin, end - begin)));
    begin = end + 1;
  }
}

// Counts the call; returns the error to fail it with, or nullopt to pass it on.
std::optional<cl_int> injected_error(const char* call) {
  static std::once_flag environment_read;
  std::call_once(environment_read, arm_from_environment);
  FaultState& s = state();
  ++s.calls[call_index(call)];
  if (!s.armed.load()) return std::nullopt;
  std::lock_guard lock(s.mutex);
  for (ArmedFault& armed : s.faults) {
    if (armed.fault.call != call) continue;
    if (armed.seen++ < armed.fault.skip || armed.fired == armed.fault.count) continue;
    ++armed.fired;
    ++s.fired;
    return armed.fault.error != 0 ? armed.fault.error : typical_error(call);
  }
  return std::nullopt;
}

std::optional<DeviceDisguise> current_disguise() {
  std::lock_guard lock(state().mutex);
  return state().disguise;
}

// The next definition of an OpenCL entry point: the ICD loader's.
template <class Function>
Function next_definition(const char* name) {
  void* symbol = dlsym(RTLD_NEXT, name);
  if (!symbol) std::abort();
  return reinterpret_cast<Function>(symbol);
}

cl_int answer_string(const std::string& text, std::size_t size, void* value,
                     std::size_t* size_ret) {
  if (size_ret) *size_ret = text.size() + 1;
  if (!value) return CL_SUCCESS;
  if (size < text.size() + 1) return CL_INVALID_VALUE;
  std::memcpy(value, text.c_str(), text.size() + 1);
  return CL_SUCCESS;
}

template <class T>
void overwrite(void* value, std::size_t size, const std::optional<T>& replacement) {
  if (value && replacement && size >= sizeof(T)) std::memcpy(value, &*replacement, sizeof(T));
}

std::string without_hidden_extensions(std::string extensions, const DeviceDisguise& disguise) {
  for (const std::string& hidden : disguise.hidden_extensions)
    for (std::size_t at; (at = extensions.find(hidden)) != std::string::npos;)
      extensions.erase(at, hidden.size());
  return extensions;
}

}  // namespace

void inject_fault(const Fault& fault) {
  call_index(fault.call);
  std::lock_guard lock(state().mutex);
  state().faults.push_back({fault});
  state().armed = true;
}

void clear_faults() {
  std::lock_guard lock(state().mutex);
  state().faults.clear();
  state().fired = 0;
  state().armed = false;
}

std::uint64_t faults_fired() {
  std::lock_guard lock(state().mutex);
  return state().fired;
}

std::uint64_t call_count(const std::string& call) {
  return state().calls[call_index(call)].load();
}

void reset_call_counts() {
  for (auto& count : state().calls) count = 0;
}

void disguise_device(const DeviceDisguise& disguise) {
  std::lock_guard lock(state().mutex);
  state().disguise = disguise;
}

void clear_disguise() {
  std::lock_guard lock(state().mutex);
  state().disguise.reset();
}

}  // namespace clsort::test

using clsort::test::injected_error;

// A failed create call returns no object and reports the error through errcode_ret.
#define CLSORT_FAIL_CREATE(call)                  \
  if (const auto error = injected_error(#call)) { \
    if (errcode_ret) *errcode_ret = *error;       \
    return nullptr;                               \
  }
#define CLSORT_FAIL_CALL(call) \
  if (const auto error = injected_error(#call)) return *error;
#define CLSORT_NEXT(call) clsort::test::next_definition<decltype(&call)>(#call)

extern "C" {

CL_API_ENTRY cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size,
                                               void* host_ptr, cl_int* errcode_ret) {
  CLSORT_FAIL_CREATE(clCreateBuffer)
  static const auto next = CLSORT_NEXT(clCreateBuffer);
  return next(context, flags, size, host_ptr, errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clBuildProgram(cl_program program, cl_uint num_devices,
                                               const cl_device_id* device_list, const char* options,
                                               void(CL_CALLBACK* notify)(cl_program, void*),
                                               void* user_data) {
  CLSORT_FAIL_CALL(clBuildProgram)
  static const auto next = CLSORT_NEXT(clBuildProgram);
  return next(program, num_devices, device_list, options, notify, user_data);
}

CL_API_ENTRY cl_kernel CL_API_CALL clCreateKernel(cl_program program, const char* kernel_name,
                                                  cl_int* errcode_ret) {
  CLSORT_FAIL_CREATE(clCreateKernel)
  static const auto next = CLSORT_NEXT(clCreateKernel);
  return next(program, kernel_name, errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel,
                                                       cl_uint work_dim, const size_t* offset,
                                                       const size_t* global, const size_t* local,
                                                       cl_uint wait_count, const cl_event* waits,
                                                       cl_event* event) {
  CLSORT_FAIL_CALL(clEnqueueNDRangeKernel)
  static const auto next = CLSORT_NEXT(clEnqueueNDRangeKernel);
  return next(queue, kernel, work_dim, offset, global, local, wait_count, waits, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer,
                                                     cl_bool blocking, size_t offset, size_t size,
                                                     const void* ptr, cl_uint wait_count,
                                                     const cl_event* waits, cl_event* event) {
  CLSORT_FAIL_CALL(clEnqueueWriteBuffer)
  static const auto next = CLSORT_NEXT(clEnqueueWriteBuffer);
  return next(queue, buffer, blocking, offset, size, ptr, wait_count, waits, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer,
                                                    cl_bool blocking, size_t offset, size_t size,
                                                    void* ptr, cl_uint wait_count,
                                                    const cl_event* waits, cl_event* event) {
  CLSORT_FAIL_CALL(clEnqueueReadBuffer)
  static const auto next = CLSORT_NEXT(clEnqueueReadBuffer);
  return next(queue, buffer, blocking, offset, size, ptr, wait_count, waits, event);
}

CL_API_ENTRY void* CL_API_CALL clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer,
                                                  cl_bool blocking, cl_map_flags flags,
                                                  size_t offset, size_t size, cl_uint wait_count,
                                                  const cl_event* waits, cl_event* event,
                                                  cl_int* errcode_ret) {
  CLSORT_FAIL_CREATE(clEnqueueMapBuffer)
  static const auto next = CLSORT_NEXT(clEnqueueMapBuffer);
  return next(queue, buffer, blocking, flags, offset, size, wait_count, waits, event, errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue queue, cl_mem source,
                                                    cl_mem destination, size_t source_offset,
                                                    size_t destination_offset, size_t size,
                                                    cl_uint wait_count, const cl_event* waits,
                                                    cl_event* event) {
  CLSORT_FAIL_CALL(clEnqueueCopyBuffer)
  static const auto next = CLSORT_NEXT(clEnqueueCopyBuffer);
  return next(queue, source, destination, source_offset, destination_offset, size, wait_count,
              waits, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer,
                                                    const void* pattern, size_t pattern_size,
                                                    size_t offset, size_t size, cl_uint wait_count,
                                                    const cl_event* waits, cl_event* event) {
  CLSORT_FAIL_CALL(clEnqueueFillBuffer)
  static const auto next = CLSORT_NEXT(clEnqueueFillBuffer);
  return next(queue, buffer, pattern, pattern_size, offset, size, wait_count, waits, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue queue,
                                                            cl_uint wait_count,
                                                            const cl_event* waits,
                                                            cl_event* event) {
  CLSORT_FAIL_CALL(clEnqueueMarkerWithWaitList)
  static const auto next = CLSORT_NEXT(clEnqueueMarkerWithWaitList);
  return next(queue, wait_count, waits, event);
}

CL_API_ENTRY cl_int CL_API_CALL clWaitForEvents(cl_uint count, const cl_event* events) {
  CLSORT_FAIL_CALL(clWaitForEvents)
  static const auto next = CLSORT_NEXT(clWaitForEvents);
  return next(count, events);
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceInfo(cl_device_id device, cl_device_info name,
                                                size_t size, void* value, size_t* size_ret) {
  static const auto next = CLSORT_NEXT(clGetDeviceInfo);
  const auto disguise = clsort::test::current_disguise();
  if (disguise && name == CL_DEVICE_PROFILE && disguise->embedded_profile)
    return clsort::test::answer_string("EMBEDDED_PROFILE", size, value, size_ret);
  if (disguise && name == CL_DEVICE_EXTENSIONS && !disguise->hidden_extensions.empty()) {
    std::size_t length = 0;
    if (const cl_int status = next(device, name, 0, nullptr, &length); status != CL_SUCCESS)
      return status;
    std::string extensions(length, '\0');
    if (const cl_int status = next(device, name, length, extensions.data(), nullptr);
        status != CL_SUCCESS)
      return status;
    extensions.resize(std::strlen(extensions.c_str()));
    return clsort::test::answer_string(
        clsort::test::without_hidden_extensions(extensions, *disguise), size, value, size_ret);
  }
  const cl_int status = next(device, name, size, value, size_ret);
  if (status != CL_SUCCESS || !disguise) return status;
  if (name == CL_DEVICE_TYPE) clsort::test::overwrite(value, size, disguise->type);
  if (name == CL_DEVICE_LOCAL_MEM_SIZE)
    clsort::test::overwrite(value, size, disguise->local_memory_bytes);
  if (name == CL_DEVICE_VENDOR_ID) clsort::test::overwrite(value, size, disguise->vendor_id);
  return status;
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device,
                                                         cl_kernel_work_group_info name,
                                                         size_t size, void* value,
                                                         size_t* size_ret) {
  static const auto next = CLSORT_NEXT(clGetKernelWorkGroupInfo);
  const cl_int status = next(kernel, device, name, size, value, size_ret);
  const auto disguise = clsort::test::current_disguise();
  if (status != CL_SUCCESS || !disguise || !disguise->kernel_work_group_limit || !value ||
      name != CL_KERNEL_WORK_GROUP_SIZE)
    return status;
  std::size_t limit = 0;
  std::memcpy(&limit, value, sizeof limit);
  limit = std::min(limit, *disguise->kernel_work_group_limit);
  std::memcpy(value, &limit, sizeof limit);
  return status;
}

}  // extern "C"
