// clsort-bench-histogram: what sets the time of a one-read digit histogram of u32 keys, by the
// local atomics per key, the width of the loads and the counters' copies (event-timed variants,
// counts checked).
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cl_status.hpp"
#include "clsort/device.hpp"
#include "clsort/opencl.hpp"
#include "median.hpp"

namespace {

using clsort::bench::check;

constexpr int warmups = 3;
constexpr int repeats = 20;
constexpr unsigned radix = 256;
constexpr unsigned max_digits = 4;  // digits of a u32 key at 8 bits each

// Grid-strided like onesweep's histogram kernel: each work-item loads BATCH keys (as uints or,
// with VECTOR, as uint4s) before counting any, then counts the low DIGITS 8-bit digits of each
// key with one local atomic each (DIGITS 0: loads only, their xor kept alive by a store that
// never happens). VECTOR needs n a multiple of 4 (main takes powers of two from 2^8). Each
// counter has COPIES copies side by side, a work-item counting into copy lid % COPIES, so that
// the work-items of a warp that hit one bank without copies spread over several; with HALVES
// the counters are 16 bits wide, two to a word (no overflow: main's keys are uniform).
const char* const kernel_source = R"CLC(
#define RADIX 256
#define COUNTERS ((DIGITS > 0 ? DIGITS : 1) * RADIX * COPIES)
#define WORDS (HALVES ? COUNTERS / 2 : COUNTERS)
inline void count_key(__local uint* counts, uint key, uint* seen) {
#if DIGITS == 0
  *seen ^= key;
#else
  const uint copy = get_local_id(0) % COPIES;
  #pragma unroll
  for (uint d = 0; d < DIGITS; ++d) {
    const uint slot = (d * RADIX + ((key >> (8 * d)) & 255)) * COPIES + copy;
    if (HALVES) atomic_add(&counts[slot / 2], 1u << (16 * (slot % 2)));
    else atomic_inc(&counts[slot]);
  }
#endif
}

inline uint counter(__local const uint* counts, uint slot) {
  return HALVES ? (counts[slot / 2] >> (16 * (slot % 2))) & 0xFFFFu : counts[slot];
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void histogram(__global const uint* keys, ulong n, __global uint* hist, __global uint* sink) {
  __local uint counts[WORDS];
  const uint lid = get_local_id(0);
  for (uint i = lid; i < WORDS; i += 256) counts[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint seen = 0;
  const ulong stride = get_global_size(0);
#if VECTOR
  __global const uint4* quads = (__global const uint4*)keys;
  const ulong quad_count = n / 4;
  ulong i = get_global_id(0);
  for (; i + (BATCH / 4 - 1) * stride < quad_count; i += (BATCH / 4) * stride) {
    uint4 batch[BATCH / 4];
    #pragma unroll
    for (uint b = 0; b < BATCH / 4; ++b) batch[b] = quads[i + b * stride];
    #pragma unroll
    for (uint b = 0; b < BATCH / 4; ++b) {
      count_key(counts, batch[b].x, &seen);
      count_key(counts, batch[b].y, &seen);
      count_key(counts, batch[b].z, &seen);
      count_key(counts, batch[b].w, &seen);
    }
  }
  for (; i < quad_count; i += stride) {
    const uint4 quad = quads[i];
    count_key(counts, quad.x, &seen);
    count_key(counts, quad.y, &seen);
    count_key(counts, quad.z, &seen);
    count_key(counts, quad.w, &seen);
  }
#else
  ulong i = get_global_id(0);
  for (; i < n && n - i > (BATCH - 1) * stride; i += BATCH * stride) {
    uint batch[BATCH];
    #pragma unroll
    for (uint b = 0; b < BATCH; ++b) batch[b] = keys[i + b * stride];
    #pragma unroll
    for (uint b = 0; b < BATCH; ++b) count_key(counts, batch[b], &seen);
  }
  for (; i < n; i += stride) count_key(counts, keys[i], &seen);
#endif
  if (seen == 0x9e3779b9u) sink[0] = seen;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = lid; d < DIGITS * RADIX; d += 256) {
    uint sum = 0;
    for (uint c = 0; c < COPIES; ++c) sum += counter(counts, d * COPIES + c);
    if (sum != 0) atomic_add(&hist[d], sum);
  }
}
)CLC";

struct Variant {
  bool vector;
  unsigned digits;
  unsigned batch;
  unsigned copies = 1;
  bool halves = false;
};

// The host's counts of the low `digits` digits of each key.
std::vector<cl_uint> expected_counts(const std::vector<cl_uint>& keys, std::size_t n,
                                     unsigned digits) {
  std::vector<cl_uint> counts(max_digits * radix, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (unsigned d = 0; d < digits; ++d) ++counts[d * radix + ((keys[i] >> (8 * d)) & 255)];
  return counts;
}

class Bench {
 public:
  Bench(const clsort::DeviceEntry& entry, std::size_t max_keys)
      : device_(entry.device),
        queue_(clsort::make_queue(entry.device, CL_QUEUE_PROFILING_ENABLE)),
        context_(queue_.getInfo<CL_QUEUE_CONTEXT>()),
        keys_(max_keys),
        compute_units_(entry.device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>()) {
    std::mt19937 random(7);
    for (auto& k : keys_) k = random();
    cl_int status = CL_SUCCESS;
    key_buffer_ = cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             keys_.size() * sizeof(cl_uint), keys_.data(), &status);
    check(status, "create key buffer");
    hist_ = cl::Buffer(context_, CL_MEM_READ_WRITE, max_digits * radix * sizeof(cl_uint));
    sink_ = cl::Buffer(context_, CL_MEM_READ_WRITE, sizeof(cl_uint));
  }

  cl::Kernel build(const Variant& v) const {
    cl::Program program(context_, kernel_source);
    const std::string options =
        "-DVECTOR=" + std::to_string(v.vector) + " -DDIGITS=" + std::to_string(v.digits) +
        " -DBATCH=" + std::to_string(v.batch) + " -DCOPIES=" + std::to_string(v.copies) +
        " -DHALVES=" + std::to_string(v.halves);
    if (program.build({device_}, options.c_str()) != CL_SUCCESS)
      throw std::runtime_error("build: " + program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device_));
    cl_int status = CL_SUCCESS;
    cl::Kernel kernel(program, "histogram", &status);
    check(status, "create kernel");
    return kernel;
  }

  // Median microseconds of the kernel over n keys in `groups_per_unit` work-groups a compute
  // unit; throws if the counts of its last run are wrong.
  double time_us(cl::Kernel& kernel, const Variant& v, std::size_t n, unsigned groups_per_unit) {
    const std::size_t global = std::size_t{compute_units_} * groups_per_unit * 256;
    kernel.setArg(0, key_buffer_);
    kernel.setArg(1, cl_ulong{n});
    kernel.setArg(2, hist_);
    kernel.setArg(3, sink_);
    std::vector<double> times;
    for (int r = 0; r < warmups + repeats; ++r) {
      check(queue_.enqueueFillBuffer(hist_, cl_uint{0}, 0, max_digits * radix * sizeof(cl_uint)),
            "fill");
      cl::Event done;
      check(queue_.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(global),
                                        cl::NDRange(256), nullptr, &done),
            "enqueue");
      done.wait();
      if (r < warmups) continue;
      times.push_back(static_cast<double>(done.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                                          done.getProfilingInfo<CL_PROFILING_COMMAND_START>()) /
                      1e3);
    }
    std::vector<cl_uint> counts(max_digits * radix);
    check(
        queue_.enqueueReadBuffer(hist_, CL_TRUE, 0, counts.size() * sizeof(cl_uint), counts.data()),
        "read counts");
    if (counts != expected_counts(keys_, n, v.digits))
      throw std::runtime_error("wrong counts: " + std::to_string(v.digits) +
                               " digits at n = " + std::to_string(n));
    return clsort::bench::median(times);
  }

 private:
  cl::Device device_;
  cl::CommandQueue queue_;
  cl::Context context_;
  std::vector<cl_uint> keys_;
  cl_uint compute_units_;
  cl::Buffer key_buffer_, hist_, sink_;
};

}  // namespace

// Usage: clsort-bench-histogram [DEVICE [LOG2_N]] (clsort's device specification, the first GPU
// by default; 2^28 keys by default, and a sixteenth of that).
int main(int argc, char** argv) try {
  const clsort::DeviceEntry entry = clsort::find_device(argc > 1 ? argv[1] : "");
  const int log2_n = argc > 2 ? std::stoi(argv[2]) : 28;
  if (log2_n < 8 || log2_n > 30) throw std::runtime_error("LOG2_N must be in [8, 30]");
  const std::size_t large = std::size_t{1} << log2_n, small = large >> 4;
  Bench bench(entry, large);
  std::printf("device: %s; u32 keys, event-timed medians of %d, us\n",
              entry.description.device_name.c_str(), repeats);
  std::printf("%-6s %6s %5s %6s %4s %9s %12s %12s %10s\n", "loads", "digits", "batch", "copies",
              "bits", "groups/CU", ("2^" + std::to_string(log2_n - 4)).c_str(),
              ("2^" + std::to_string(log2_n)).c_str(), "GB/s read");
  for (const Variant& v :
       {Variant{false, 4, 8}, Variant{false, 4, 8, 2}, Variant{false, 4, 8, 4},
        Variant{false, 4, 8, 8}, Variant{false, 4, 8, 8, true}, Variant{false, 4, 8, 16, true},
        Variant{true, 4, 8}, Variant{true, 4, 8, 8}, Variant{false, 2, 8}, Variant{false, 2, 8, 8},
        Variant{false, 2, 8, 32, true}, Variant{false, 1, 8}, Variant{false, 0, 8}}) {
    cl::Kernel kernel = bench.build(v);
    for (unsigned groups : {4u, 8u, 16u}) {
      const double small_us = bench.time_us(kernel, v, small, groups);
      const double large_us = bench.time_us(kernel, v, large, groups);
      std::printf("%-6s %6u %5u %6u %4u %9u %12.1f %12.1f %10.0f\n", v.vector ? "uint4" : "uint",
                  v.digits, v.batch, v.copies, v.halves ? 16u : 32u, groups, small_us, large_us,
                  static_cast<double>(large * sizeof(cl_uint)) / (large_us * 1e3));
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "clsort-bench-histogram: error: %s\n", e.what());
  return 1;
}
