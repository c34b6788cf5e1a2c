// clsort-bench-phases: where a one-launch sort's time goes, by the driver's timestamps of its
// event.
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "clsort/clsort.hpp"
#include "median.hpp"

namespace {

constexpr int warmups = 10;
constexpr int repeats = 50;

using clsort::bench::median;

// Microseconds between two of the event's profiling timestamps.
double between(const cl::Event& event, cl_profiling_info from, cl_profiling_info to) {
  cl_ulong a = 0, b = 0;
  event.getProfilingInfo(from, &a);
  event.getProfilingInfo(to, &b);
  return static_cast<double>(b - a) / 1e3;
}

struct Phases {
  std::vector<double> queued_to_submitted, submitted_to_started, running;
};

// Sorts n random u32 keys repeatedly on a profiling queue and collects the phases of each sort's
// event, which for rank_sort and single_group is the sort's one launch.
Phases measure(clsort::Sorter& sorter, const cl::CommandQueue& queue, std::uint32_t n) {
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  std::vector<std::uint32_t> keys(n);
  std::mt19937 random(n);
  for (auto& k : keys) k = random();
  const cl::Buffer pristine(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4u, keys.data());
  const cl::Buffer buffer(context, CL_MEM_READ_WRITE, n * 4u);
  Phases phases;
  for (int r = 0; r < warmups + repeats; ++r) {
    queue.enqueueCopyBuffer(pristine, buffer, 0, 0, n * 4u);
    queue.finish();
    const cl::Event sorted = sorter.sort(buffer, n, clsort::KeyType::u32);
    sorted.wait();
    if (r < warmups) continue;
    phases.queued_to_submitted.push_back(
        between(sorted, CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT));
    phases.submitted_to_started.push_back(
        between(sorted, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START));
    phases.running.push_back(between(sorted, CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END));
  }
  return phases;
}

}  // namespace

// Usage: clsort-bench-phases [DEVICE [PARAMS_JSON]] (the device's profile or defaults without
// parameters). A size whose parameters take more than one command (not rank_sort, single_group or
// single_group_hybrid) is refused by name.
int main(int argc, char** argv) try {
  const clsort::DeviceEntry entry = clsort::find_device(argc > 1 ? argv[1] : "");
  const cl::CommandQueue queue = clsort::make_queue(entry.device, CL_QUEUE_PROFILING_ENABLE);
  clsort::Sorter sorter =
      argc > 2 ? clsort::Sorter(queue, nlohmann::json::parse(argv[2]).get<clsort::Params>())
               : clsort::Sorter(queue);
  std::printf("device: %s; u32 keys, medians of %d sorts, us\n",
              entry.description.device_name.c_str(), repeats);
  std::printf("%8s %-14s %18s %18s %10s\n", "n", "algorithm", "queued->submitted",
              "submitted->started", "running");
  for (std::uint32_t n : {256u, 1024u, 2048u, 4096u}) {
    const clsort::Algorithm chosen = sorter.params_for(clsort::KeyType::u32, 0, n).algorithm;
    const std::string algorithm(clsort::to_string(chosen));
    // The event's timestamps cover the whole sort only where the sort is that one launch.
    if (!clsort::has_key_capacity(chosen))
      throw std::runtime_error(algorithm + " sorts " + std::to_string(n) +
                               " keys in several commands; pass one-launch parameters");
    const Phases p = measure(sorter, queue, n);
    std::printf("%8u %-14s %18.1f %18.1f %10.1f\n", n, algorithm.c_str(),
                median(p.queued_to_submitted), median(p.submitted_to_started), median(p.running));
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "clsort-bench-phases: error: %s\n", e.what());
  return 1;
}
