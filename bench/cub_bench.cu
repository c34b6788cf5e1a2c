// clsort-bench-cub: CUB's DeviceRadixSort on the same inputs, in clsort-bench's CSV format.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
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

// V is the value type; value_bytes 0 sorts keys alone.
template <class K, class V>
double time_cub(std::size_t n, std::size_t value_bytes, const std::vector<unsigned char>& keys,
                int end_bit, Clock clock, int warmup, int repeats) {
  K *pristine, *k0, *k1;
  V *v0 = nullptr, *v1 = nullptr;
  check(cudaMalloc(&pristine, n * sizeof(K)), "cudaMalloc");
  check(cudaMalloc(&k0, n * sizeof(K)), "cudaMalloc");
  check(cudaMalloc(&k1, n * sizeof(K)), "cudaMalloc");
  check(cudaMemcpy(pristine, keys.data(), n * sizeof(K), cudaMemcpyHostToDevice), "copy in");
  if (value_bytes) {
    check(cudaMalloc(&v0, n * sizeof(V)), "cudaMalloc");
    check(cudaMalloc(&v1, n * sizeof(V)), "cudaMalloc");
  }
  cub::DoubleBuffer<K> key_buffers(k0, k1);
  cub::DoubleBuffer<V> value_buffers(v0, v1);
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

// Calls f with a zero of the key type `type` names (u8, u16, u32, u64, f32, f64), if any.
template <class F>
void with_key_type(const std::string& type, F&& f) {
  if (type == "u8") f((unsigned char)0);
  if (type == "u16") f((unsigned short)0);
  if (type == "u32") f(0U);
  if (type == "u64") f(0ULL);
  if (type == "f32") f(0.0f);
  if (type == "f64") f(0.0);
}

// 0 for a name of no key type.
std::size_t key_bytes_of(const std::string& type) {
  std::size_t bytes = 0;
  with_key_type(type, [&](auto key) { bytes = sizeof key; });
  return bytes;
}

// CUB's time for one case: the key type by name, values of 0 (keys alone), 4 or 8 bytes.
double time_case(const std::string& type, std::size_t value_bytes, std::size_t n,
                 const std::vector<unsigned char>& keys, int end_bit, Clock clock) {
  double ms = 0;
  with_key_type(type, [&](auto key) {
    using K = decltype(key);
    ms = value_bytes == 8
             ? time_cub<K, unsigned long long>(n, value_bytes, keys, end_bit, clock, 2, 10)
             : time_cub<K, unsigned>(n, value_bytes, keys, end_bit, clock, 2, 10);
  });
  return ms;
}

struct Case {
  std::string type;
  std::size_t value_bytes;
};

// "u32,u32+4,..." -> cases; an unknown type or value size ends the program with its name.
std::vector<Case> parse_cases(const std::string& list) {
  std::vector<Case> cases;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t end = std::min(list.find(',', begin), list.size());
    const std::string item = list.substr(begin, end - begin);
    const std::size_t plus = item.find('+');
    Case c{item.substr(0, plus), 0};
    if (plus != std::string::npos)
      c.value_bytes = std::strtoul(item.c_str() + plus + 1, nullptr, 10);
    if (key_bytes_of(c.type) == 0 ||
        (c.value_bytes != 0 && c.value_bytes != 4 && c.value_bytes != 8)) {
      std::fprintf(stderr, "clsort-bench-cub: unknown case '%s' (TYPE or TYPE+4 or TYPE+8)\n",
                   item.c_str());
      std::exit(2);
    }
    cases.push_back(c);
    begin = end + 1;
  }
  return cases;
}

}  // namespace

// The key counts the first three arguments name: n:COUNT,... as listed, else the powers of two
// from 2^MIN_LOG2 to 2^MAX_LOG2 by STEP.
std::vector<std::size_t> key_counts(int argc, char** argv) {
  const std::string first = argc > 1 ? argv[1] : "20";
  std::vector<std::size_t> counts;
  if (first.rfind("n:", 0) == 0) {
    std::stringstream list(first.substr(2));
    for (std::string count; std::getline(list, count, ',');) {
      const std::size_t n = std::strtoull(count.c_str(), nullptr, 10);
      if (n == 0) {
        std::fprintf(stderr, "clsort-bench-cub: '%s' in %s is not a positive key count\n",
                     count.c_str(), first.c_str());
        std::exit(2);
      }
      counts.push_back(n);
    }
    return counts;
  }
  const int max_log2 = argc > 2 ? std::atoi(argv[2]) : 28;
  const int step = argc > 3 ? std::atoi(argv[3]) : 2;
  for (int log2n = std::atoi(first.c_str()); log2n <= max_log2; log2n += step)
    counts.push_back(std::size_t{1} << log2n);
  return counts;
}

// Usage: clsort-bench-cub MIN_LOG2 MAX_LOG2 STEP [DISTRIBUTION [END_BIT [CLOCK [CASES]]]];
// prints CSV rows. MIN_LOG2 may instead be n:COUNT,COUNT,... (key counts, e.g. n:2048,3000),
// which MAX_LOG2 and STEP then do not change. With END_BIT above 0, keys are sorted by their bits
// [0, END_BIT) only (where the key is wider). CLOCK is `events` (the default) or `host`;
// host-clock rows are named cub/host. CASES lists key types (u8, u16, u32, u64, f32, f64), each
// with +4 or +8 for values of that many bytes; the default is u32,u32+4,f32,f32+4,u64,u64+4,f64.
int main(int argc, char** argv) {
  const std::vector<std::size_t> counts = key_counts(argc, argv);
  const std::string distribution = argc > 4 ? argv[4] : "uniform";
  const int end_bit_arg = argc > 5 ? std::atoi(argv[5]) : 0;
  const std::string clock_name = argc > 6 ? argv[6] : "events";
  const std::vector<Case> cases =
      parse_cases(argc > 7 ? argv[7] : "u32,u32+4,f32,f32+4,u64,u64+4,f64");
  if (clock_name != "events" && clock_name != "host") {
    std::fprintf(stderr, "clsort-bench-cub: CLOCK must be events or host, not '%s'\n",
                 clock_name.c_str());
    return 2;
  }
  const Clock clock = clock_name == "host" ? Clock::host : Clock::events;
  cudaDeviceProp properties;
  check(cudaGetDeviceProperties(&properties, 0), "device");
  std::printf("%s\n", csv_header());
  for (const Case& c : cases) {
    const std::size_t key_bytes = key_bytes_of(c.type);
    for (const std::size_t n : counts) {
      const auto keys = make_key_bytes(distribution, n, key_bytes, input_seed(n));
      const int key_bits = static_cast<int>(key_bytes * 8);
      const int end_bit = end_bit_arg > 0 ? std::min(end_bit_arg, key_bits) : key_bits;
      const double ms = time_case(c.type, c.value_bytes, n, keys, end_bit, clock);
      std::string name = end_bit < key_bits ? "cub/" + std::to_string(end_bit) + "b" : "cub";
      if (clock == Clock::host) name += "/host";
      const Row row{name, properties.name, c.type, c.value_bytes, distribution, n, ms};
      std::printf("%s\n", csv_line(row).c_str());
    }
  }
  return 0;
}
