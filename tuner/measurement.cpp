// Candidate measurement: keys of a distribution and index values, a host reference, timed runs.
#include "measurement.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include <clsort/device.hpp>
#include <clsort/error.hpp>
#include <clsort/key_order.hpp>
#include <clsort/sorter.hpp>

#include "bench_inputs.hpp"
#include "opencl_timing.hpp"

namespace clsort::tune {

struct Bench::Input {
  std::vector<unsigned char> keys, values;                // as uploaded
  std::vector<unsigned char> sorted_keys, sorted_values;  // the reference result
};

namespace {

// A key's position in the stable order: sorting (ordered bits, index) pairs gives it.
struct Ranked {
  std::uint64_t bits;
  std::uint64_t index;
  bool operator<(const Ranked& other) const {
    return bits != other.bits ? bits < other.bits : index < other.index;
  }
};

// Sorts on every core: each thread sorts a slice, then neighbouring slices merge in rounds. At
// 2^28 keys one thread took minutes per size class.
void parallel_sort(std::vector<Ranked>& items) {
  const std::size_t slices = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::size_t> bounds;  // slice i is [bounds[i], bounds[i + 1])
  for (std::size_t s = 0; s <= slices; ++s) bounds.push_back(items.size() * s / slices);
  const auto at = [&](std::size_t i) { return items.begin() + static_cast<std::ptrdiff_t>(i); };
  std::vector<std::thread> workers;
  for (std::size_t s = 0; s < slices; ++s)
    workers.emplace_back([&, s] { std::sort(at(bounds[s]), at(bounds[s + 1])); });
  for (std::thread& w : workers) w.join();
  while (bounds.size() > 2) {
    workers.clear();
    std::vector<std::size_t> merged{0};
    for (std::size_t i = 0; i + 1 < bounds.size(); i += 2) {
      if (i + 2 < bounds.size())
        workers.emplace_back(
            [&, i] { std::inplace_merge(at(bounds[i]), at(bounds[i + 1]), at(bounds[i + 2])); });
      merged.push_back(bounds[std::min(i + 2, bounds.size() - 1)]);
    }
    for (std::thread& w : workers) w.join();
    bounds = std::move(merged);
  }
}

// Keys of the problem's distribution, as clsort-bench makes them; values (when asked) carry each
// key's index in their first bytes, so a wrong permutation or an unstable one shows.
Bench::Input make_input(const Problem& problem) {
  Bench::Input input;
  const std::size_t key = key_size(problem.key_type), n = problem.n;
  input.keys = bench::make_key_bytes(problem.distribution, n, key, n * 31 + key);
  input.values.resize(n * problem.value_bytes);
  for (std::size_t i = 0; i < n && problem.value_bytes; ++i)
    std::memcpy(&input.values[i * problem.value_bytes], &i,
                std::min<std::size_t>(problem.value_bytes, sizeof i));
  std::vector<Ranked> order(n);
  with_key_type(problem.key_type, [&](auto tag) {
    using K = typename decltype(tag)::type;
    for (std::size_t i = 0; i < n; ++i) {
      K k;
      std::memcpy(&k, &input.keys[i * sizeof(K)], sizeof(K));
      order[i] = {static_cast<std::uint64_t>(ordered_bits(k)), i};
    }
  });
  parallel_sort(order);
  input.sorted_keys.resize(input.keys.size());
  input.sorted_values.resize(input.values.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t from = order[i].index;
    std::memcpy(&input.sorted_keys[i * key], &input.keys[from * key], key);
    if (problem.value_bytes)
      std::memcpy(&input.sorted_values[i * problem.value_bytes],
                  &input.values[from * problem.value_bytes], problem.value_bytes);
  }
  return input;
}

}  // namespace

Bench::Bench(cl::Device device, std::size_t kept_inputs)
    : device_(std::move(device)), kept_inputs_(std::max<std::size_t>(kept_inputs, 1)) {
  recreate();
}

void Bench::recreate() {
  context_ = cl::Context(device_);
  queue_ = cl::CommandQueue(context_, device_, 0);  // timed by the wall clock
}

const Bench::Input& Bench::input_for(const Problem& problem) {
  const auto kept = std::find_if(inputs_.begin(), inputs_.end(),
                                 [&](const auto& entry) { return entry.first == problem; });
  if (kept != inputs_.end()) {
    std::rotate(inputs_.begin(), kept, kept + 1);
  } else {
    if (inputs_.size() == kept_inputs_) inputs_.pop_back();  // before making the next: memory
    inputs_.emplace_front(problem, std::make_shared<Input>(make_input(problem)));
  }
  return *inputs_.front().second;
}

// Some drivers finish building a kernel at its first launch (PoCL compiles a work-group
// function per kernel and local size then, for seconds). One untimed sort of a few keys takes
// that out of the first warm-up run, which decides whether a candidate is too slow to time: on
// PoCL, without it, 155 of the first 236 candidates were recorded as slow (with it 94 of 235).
// The keys sorted are whatever the buffer holds; every run restores them first.
void Bench::prime(Sorter& sorter, const cl::Buffer& keys, const cl::Buffer& values,
                  const Problem& problem) {
  const std::uint64_t few = std::min<std::uint64_t>(problem.n, 4096);
  if (problem.value_bytes)
    sorter.sort_pairs(keys, values, few, problem.key_type, problem.value_bytes);
  else
    sorter.sort(keys, few, problem.key_type);
  queue_.finish();
}

bool wants_another_run(int timed_runs, double timed_ms, int repeats) {
  constexpr double enough_ms = 2;
  constexpr int most_runs = 100;
  return timed_runs < repeats || (timed_ms < enough_ms && timed_runs < most_runs);
}

Measurement Bench::measure(const Params& params, const Problem& problem, int repeats, int warmup,
                           double give_up_ms) {
  const Input& input = input_for(problem);

  Measurement result;
  result.n = problem.n;
  const char* stage = "compile";
  try {
    Sorter sorter(queue_, params);
    sorter.prepare(problem.key_type, problem.value_bytes, problem.n);
    stage = "launch";
    const cl::Buffer pristine_keys(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   input.keys.size(),
                                   const_cast<unsigned char*>(input.keys.data()));
    const cl::Buffer keys(context_, CL_MEM_READ_WRITE, input.keys.size());
    cl::Buffer pristine_values, values;
    if (problem.value_bytes) {
      pristine_values =
          cl::Buffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, input.values.size(),
                     const_cast<unsigned char*>(input.values.data()));
      values = cl::Buffer(context_, CL_MEM_READ_WRITE, input.values.size());
    }
    prime(sorter, keys, values, problem);
    // What a caller waiting for the sort sees: small sorts are mostly launch latency, which
    // event timing leaves partly out.
    bench::Timer timer(queue_, /*wall_clock=*/true);
    std::vector<double> times;
    double timed_ms = 0;
    for (int run = 0;
         run < warmup || wants_another_run(static_cast<int>(times.size()), timed_ms, repeats);
         ++run) {
      queue_.enqueueCopyBuffer(pristine_keys, keys, 0, 0, input.keys.size());
      if (problem.value_bytes)
        queue_.enqueueCopyBuffer(pristine_values, values, 0, 0, input.values.size());
      const double ms = timer.measure([&] {
        if (problem.value_bytes)
          sorter.sort_pairs(keys, values, problem.n, problem.key_type, problem.value_bytes);
        else
          sorter.sort(keys, problem.n, problem.key_type);
      });
      if (run == 0 && ms > give_up_ms) {
        result.status = "slow";
        result.milliseconds = ms;
        return result;
      }
      if (run >= warmup) {
        times.push_back(ms);
        timed_ms += ms;
      }
    }
    std::vector<unsigned char> out_keys(input.keys.size()), out_values(input.values.size());
    queue_.enqueueReadBuffer(keys, CL_TRUE, 0, out_keys.size(), out_keys.data());
    if (problem.value_bytes)
      queue_.enqueueReadBuffer(values, CL_TRUE, 0, out_values.size(), out_values.data());
    if (out_keys != input.sorted_keys || out_values != input.sorted_values) {
      result.status = "wrong result";
      return result;
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    result.milliseconds = times[times.size() / 2];
  } catch (const std::exception& e) {
    result.status = stage;
    result.detail = e.what();
    recreate();
  }
  return result;
}

}  // namespace clsort::tune
