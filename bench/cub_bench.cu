// clsort-bench-cub: CUB's DeviceRadixSort on the same inputs, in clsort-bench's CSV format.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_inputs.hpp"

using namespace clsort::bench;

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "clsort-bench-cub: %s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

// events: CUDA events around the sort (launch latency left out); host: the host's steady clock
// around the sort and a stream synchronize, as clsort-bench --wall-clock times clsort.
enum class Clock { events, host };

template <class K>
double time_cub(std::size_t n, std::size_t value_bytes, const std::vector<unsigned char>& keys,
                int end_bit, Clock clock, int warmup, int repeats) {
  K *pristine, *k0, *k1;
  unsigned *v0 = nullptr, *v1 = nullptr;
  check(cudaMalloc(&pristine, n * sizeof(K)), "cudaMalloc");
  check(cudaMalloc(&k0, n * sizeof(K)), "cudaMalloc");
  check(cudaMalloc(&k1, n * sizeof(K)), "cudaMalloc");
  check(cudaMemcpy(pristine, keys.data(), n * sizeof(K), cudaMemcpyHostToDevice), "copy in");
  if (value_bytes) {
    check(cudaMalloc(&v0, n * 4), "cudaMalloc");
    check(cudaMalloc(&v1, n * 4), "cudaMalloc");
  }
  cub::DoubleBuffer<K> key_buffers(k0, k1);
  cub::DoubleBuffer<unsigned> value_buffers(v0, v1);
  std::size_t temp_bytes = 0;
  if (value_bytes)
    cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, key_buffers, value_buffers, n, 0, end_bit);
  else
    cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, key_buffers, n, 0, end_bit);
  void* temp;
  check(cudaMalloc(&temp, temp_bytes), "cudaMalloc temp");
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<double> ms;
  for (int r = 0; r < warmup + repeats; ++r) {
    check(cudaMemcpy(key_buffers.Current(), pristine, n * sizeof(K), cudaMemcpyDeviceToDevice),
          "restore");
    check(cudaDeviceSynchronize(), "restore");
    const auto host_start = std::chrono::steady_clock::now();
    if (clock == Clock::events) cudaEventRecord(start);
    if (value_bytes)
      cub::DeviceRadixSort::SortPairs(temp, temp_bytes, key_buffers, value_buffers, n, 0, end_bit);
    else
      cub::DeviceRadixSort::SortKeys(temp, temp_bytes, key_buffers, n, 0, end_bit);
    float t = 0;
    if (clock == Clock::events) {
      cudaEventRecord(stop);
      check(cudaEventSynchronize(stop), "sort");
      cudaEventElapsedTime(&t, start, stop);
    } else {
      check(cudaStreamSynchronize(0), "sort");
      t = std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - host_start)
              .count();
    }
    if (r >= warmup) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  cudaFree(pristine), cudaFree(k0), cudaFree(k1), cudaFree(v0), cudaFree(v1), cudaFree(temp);
  return ms[ms.size() / 2];
}

}  // namespace

// Usage: clsort-bench-cub MIN_LOG2 MAX_LOG2 STEP [DISTRIBUTION [END_BIT [CLOCK]]]; prints CSV
// rows. With END_BIT above 0, keys are sorted by their bits [0, END_BIT) only (where the key is
// wider). CLOCK is `events` (the default) or `host`; host-clock rows are named cub/host.
int main(int argc, char** argv) {
  const int min_log2 = argc > 1 ? std::atoi(argv[1]) : 20;
  const int max_log2 = argc > 2 ? std::atoi(argv[2]) : 28;
  const int step = argc > 3 ? std::atoi(argv[3]) : 2;
  const std::string distribution = argc > 4 ? argv[4] : "uniform";
  const int end_bit_arg = argc > 5 ? std::atoi(argv[5]) : 0;
  const std::string clock_name = argc > 6 ? argv[6] : "events";
  if (clock_name != "events" && clock_name != "host") {
    std::fprintf(stderr, "clsort-bench-cub: CLOCK must be events or host, not '%s'\n",
                 clock_name.c_str());
    return 2;
  }
  const Clock clock = clock_name == "host" ? Clock::host : Clock::events;
  cudaDeviceProp properties;
  check(cudaGetDeviceProperties(&properties, 0), "device");
  std::printf("%s\n", csv_header());
  struct Case {
    const char* type;
    std::size_t key_bytes;
    std::size_t value_bytes;
  };
  for (const Case c : {Case{"u32", 4, 0}, Case{"u32", 4, 4}, Case{"f32", 4, 0}, Case{"f32", 4, 4},
                       Case{"u64", 8, 0}, Case{"u64", 8, 4}, Case{"f64", 8, 0}}) {
    for (int log2n = min_log2; log2n <= max_log2; log2n += step) {
      const std::size_t n = std::size_t{1} << log2n;
      const auto keys = make_key_bytes(distribution, n, c.key_bytes, 42 + log2n);
      const std::string type = c.type;
      const int key_bits = static_cast<int>(c.key_bytes * 8);
      const int end_bit = end_bit_arg > 0 ? std::min(end_bit_arg, key_bits) : key_bits;
      double ms = 0;
      if (type == "u32") ms = time_cub<unsigned>(n, c.value_bytes, keys, end_bit, clock, 2, 10);
      if (type == "f32") ms = time_cub<float>(n, c.value_bytes, keys, end_bit, clock, 2, 10);
      if (type == "u64")
        ms = time_cub<unsigned long long>(n, c.value_bytes, keys, end_bit, clock, 2, 10);
      if (type == "f64") ms = time_cub<double>(n, c.value_bytes, keys, end_bit, clock, 2, 10);
      std::string name = end_bit < key_bits ? "cub/" + std::to_string(end_bit) + "b" : "cub";
      if (clock == Clock::host) name += "/host";
      const Row row{name, properties.name, type, c.value_bytes, distribution, n, ms};
      std::printf("%s\n", csv_line(row).c_str());
    }
  }
  return 0;
}
