// clsort-huge-inputs: sorts one huge device-resident input (2^31 keys and beyond), checks the
// result completely and prints the time; or shows the error a too-large sort gets.
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <clsort/clsort.hpp>

namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Runs body(begin, end) over [0, n) split among the host's threads.
void parallel_for(std::uint64_t n, const std::function<void(std::uint64_t, std::uint64_t)>& body) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back(body, n * t / threads, n * (t + 1) / threads);
  for (std::thread& thread : pool) thread.join();
}

// Sums f(i) over [0, n) in parallel (wrapping: used as a multiset fingerprint).
std::uint64_t parallel_sum(std::uint64_t n, const std::function<std::uint64_t(std::uint64_t)>& f) {
  std::vector<std::uint64_t> partial(std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<unsigned> next{0};
  parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
    std::uint64_t sum = 0;
    for (std::uint64_t i = begin; i < end; ++i) sum += f(i);
    partial[next++] = sum;
  });
  std::uint64_t total = 0;
  for (std::uint64_t s : partial) total += s;
  return total;
}

template <class T>
std::uint64_t count_unsorted(const std::vector<T>& keys) {
  return parallel_sum(keys.size() > 0 ? keys.size() - 1 : 0,
                      [&](std::uint64_t i) { return keys[i + 1] < keys[i] ? 1 : 0; });
}

struct Options {
  std::string device;
  std::string type = "u32";
  std::uint64_t n = 0;
  bool pairs = false;
  bool expect_error = false;
};

template <class K>
cl::Buffer upload(const cl::CommandQueue& queue, const std::vector<K>& data) {
  cl::Buffer buffer(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE, data.size() * sizeof(K));
  queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, data.size() * sizeof(K), data.data());
  return buffer;
}

template <class K>
std::vector<K> download(const cl::CommandQueue& queue, const cl::Buffer& buffer, std::uint64_t n) {
  std::vector<K> data(n);
  queue.enqueueReadBuffer(buffer, CL_TRUE, 0, n * sizeof(K), data.data());
  return data;
}

// Keys only: sorted, and the same multiset (exact histogram for u8, 64-bit fingerprint else).
template <class K>
bool check_keys(const std::vector<K>& before, const std::vector<K>& after) {
  const std::uint64_t unsorted = count_unsorted(after);
  bool same_multiset = false;
  if constexpr (sizeof(K) == 1) {
    std::vector<std::uint64_t> a(256), b(256);
    for (K k : before) ++a[k];
    for (K k : after) ++b[k];
    same_multiset = a == b;
  } else {
    const auto fingerprint = [](const std::vector<K>& v) {
      return parallel_sum(v.size(), [&](std::uint64_t i) { return mix(v[i]); });
    };
    same_multiset = fingerprint(before) == fingerprint(after);
  }
  std::printf("check: %llu keys out of order; multiset %s (%s)\n",
              static_cast<unsigned long long>(unsorted), same_multiset ? "equal" : "DIFFERENT",
              sizeof(K) == 1 ? "exact histogram" : "64-bit fingerprint");
  return unsorted == 0 && same_multiset;
}

// Pairs with values = input positions: a complete check of a stable sort.
template <class K>
bool check_pairs(const std::vector<K>& before, const std::vector<K>& keys,
                 const std::vector<std::uint32_t>& positions) {
  std::vector<bool> seen(before.size());
  std::uint64_t bad = 0;
  for (std::uint64_t i = 0; i < keys.size(); ++i) {
    const std::uint32_t p = positions[i];
    if (p >= before.size() || seen[p] || before[p] != keys[i]) ++bad;
    if (p < before.size()) seen[p] = true;
    if (i > 0 && (keys[i] < keys[i - 1] || (keys[i] == keys[i - 1] && p < positions[i - 1]))) ++bad;
  }
  std::printf("check: %llu positions wrong, out of order or unstable (exact)\n",
              static_cast<unsigned long long>(bad));
  return bad == 0;
}

template <class K>
std::vector<K> random_keys(std::uint64_t n) {
  std::vector<K> keys(n);
  parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
    for (std::uint64_t i = begin; i < end; ++i) keys[i] = static_cast<K>(mix(i));
  });
  return keys;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void report_time(const Options& o, double seconds) {
  std::printf("sorted %llu %s keys%s in %.3f s (%.2f Gkeys/s, device-resident, wall clock)\n",
              static_cast<unsigned long long>(o.n), o.type.c_str(),
              o.pairs ? " with u32 values" : "", seconds, o.n / seconds * 1e-9);
}

template <class K>
bool sort_keys(clsort::Sorter& sorter, const Options& o) {
  const std::vector<K> before = random_keys<K>(o.n);
  const cl::Buffer buffer = upload(sorter.queue(), before);
  sorter.prepare(clsort::key_type_of<K>(), 0, o.n);
  const auto start = Clock::now();
  sorter.sort(buffer, o.n, clsort::key_type_of<K>()).wait();
  report_time(o, seconds_since(start));
  return check_keys(before, download<K>(sorter.queue(), buffer, o.n));
}

template <class K>
bool sort_pairs(clsort::Sorter& sorter, const Options& o) {
  const std::vector<K> before = random_keys<K>(o.n);
  std::vector<std::uint32_t> positions(o.n);
  parallel_for(o.n, [&](std::uint64_t begin, std::uint64_t end) {
    for (std::uint64_t i = begin; i < end; ++i) positions[i] = static_cast<std::uint32_t>(i);
  });
  const cl::Buffer keys = upload(sorter.queue(), before);
  const cl::Buffer values = upload(sorter.queue(), positions);
  sorter.prepare(clsort::key_type_of<K>(), 4, o.n);
  const auto start = Clock::now();
  sorter.sort_pairs(keys, values, o.n, clsort::key_type_of<K>(), 4).wait();
  report_time(o, seconds_since(start));
  return check_pairs(before, download<K>(sorter.queue(), keys, o.n),
                     download<std::uint32_t>(sorter.queue(), values, o.n));
}

// A sort the device cannot hold: the host API must refuse it before touching the data, which
// is untouched address space here (mapped, never backed).
bool expect_refusal(clsort::Sorter& sorter, const Options& o) {
  const clsort::KeyType type = clsort::parse_key_type(o.type).value_or(clsort::KeyType::u32);
  const std::size_t bytes = o.n * clsort::key_size(type);
  void* keys = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (keys == MAP_FAILED)
    throw std::runtime_error("cannot map " + std::to_string(bytes) + " bytes");
  try {
    sorter.sort_host_bytes(keys, o.n, type, nullptr, 0);
    std::printf("expected an error, but the sort of %llu keys ran\n",
                static_cast<unsigned long long>(o.n));
    return false;
  } catch (const clsort::Error& e) {
    std::printf("refused as expected: %s\n", e.what());
    return true;
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app("Sorts one huge random input on the device and checks it completely.");
  app.add_option("--device", o.device, "Device spec (see clsort devices)");
  app.add_option("--type", o.type, "Key type: u8, u16, u32 or u64 (pairs: u32 or u64)");
  app.add_option("-n", o.n, "Number of keys")->required();
  app.add_flag("--pairs", o.pairs, "Sort the keys with their u32 input positions as values");
  app.add_flag("--expect-error", o.expect_error, "The sort must be refused with a clear error");
  CLI11_PARSE(app, argc, argv);
  try {
    const clsort::DeviceEntry entry = clsort::find_device(o.device);
    std::printf("device: %s (%s)\n", entry.description.device_name.c_str(),
                entry.description.platform_name.c_str());
    clsort::Sorter sorter(clsort::make_queue(entry.device));
    bool ok = false;
    if (o.expect_error)
      ok = expect_refusal(sorter, o);
    else if (o.pairs && o.type == "u32")
      ok = sort_pairs<std::uint32_t>(sorter, o);
    else if (o.pairs && o.type == "u64")
      ok = sort_pairs<std::uint64_t>(sorter, o);
    else if (o.pairs)
      throw std::runtime_error("--pairs takes --type u32 or u64");
    else if (o.type == "u8")
      ok = sort_keys<std::uint8_t>(sorter, o);
    else if (o.type == "u16")
      ok = sort_keys<std::uint16_t>(sorter, o);
    else if (o.type == "u32")
      ok = sort_keys<std::uint32_t>(sorter, o);
    else if (o.type == "u64")
      ok = sort_keys<std::uint64_t>(sorter, o);
    else
      throw std::runtime_error("--type must be u8, u16, u32 or u64");
    std::printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "clsort-huge-inputs: %s\n", e.what());
    return 1;
  }
}
