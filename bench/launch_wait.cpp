// clsort-bench-launch: a tiny kernel's cost from enqueue to the host seeing it finish, by each way
// of waiting.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cl_status.hpp"
#include "clsort/device.hpp"
#include "clsort/opencl.hpp"

namespace {

using clsort::bench::check;

double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

constexpr int repeats = 300;

double median(std::vector<double> times) {
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

// Median of `repeats` host-clock timings of `work` after 30 warm-ups.
double median_us(const std::function<void()>& work) {
  for (int i = 0; i < 30; ++i) work();
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    const double start = now_us();
    work();
    times.push_back(now_us() - start);
  }
  return median(times);
}

// Median host-clock time of the enqueue alone, the queue drained (untimed) after each.
double enqueue_us(const std::function<void()>& enqueue, const cl::CommandQueue& queue) {
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    const double start = now_us();
    enqueue();
    times.push_back(now_us() - start);
    queue.finish();
  }
  return median(times);
}

// Polls the event until it completes, never blocking in the driver.
void spin_until_complete(const cl::Event& event) {
  while (event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() > CL_COMPLETE) {
  }
}

}  // namespace

// Usage: clsort-bench-launch [DEVICE] (clsort's device specification; the first GPU by default).
int main(int argc, char** argv) try {
  const clsort::DeviceEntry entry = clsort::find_device(argc > 1 ? argv[1] : "");
  const cl::CommandQueue queue = clsort::make_queue(entry.device);
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  cl::Program program(context,
                      "__kernel void add_one(__global uint* a, uint n) {"
                      "  if (get_global_id(0) < n) a[get_global_id(0)] += 1; }");
  check(program.build({entry.device}), "build");
  cl_int status = CL_SUCCESS;
  cl::Kernel kernel(program, "add_one", &status);
  check(status, "create kernel");
  constexpr cl_uint n = 4096;
  const cl::Buffer buffer(context, CL_MEM_READ_WRITE, n * sizeof(cl_uint));
  kernel.setArg(0, buffer);
  kernel.setArg(1, n);
  const auto launch = [&](cl::Event* event) {
    check(queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(n), cl::NDRange(256),
                                     nullptr, event),
          "enqueue");
  };
  std::printf("device: %s\n", entry.description.device_name.c_str());
  std::printf("finish on an empty queue: %.1f us\n", median_us([&] { queue.finish(); }));
  std::printf("set 2 arguments: %.2f us\n", median_us([&] {
                kernel.setArg(0, buffer);
                kernel.setArg(1, n);
              }));
  std::printf("one enqueue alone: %.1f us\n", enqueue_us([&] { launch(nullptr); }, queue));
  std::printf("launches | finish | wait for event | flush, spin on event (us)\n");
  for (int launches : {1, 2, 4, 8}) {
    const auto enqueue_all = [&](cl::Event* last) {
      for (int i = 0; i + 1 < launches; ++i) launch(nullptr);
      launch(last);
    };
    const double finish = median_us([&] {
      enqueue_all(nullptr);
      queue.finish();
    });
    const double wait = median_us([&] {
      cl::Event last;
      enqueue_all(&last);
      last.wait();
    });
    const double spin = median_us([&] {
      cl::Event last;
      enqueue_all(&last);
      queue.flush();
      spin_until_complete(last);
    });
    std::printf("%8d | %6.1f | %14.1f | %.1f\n", launches, finish, wait, spin);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "clsort-bench-launch: error: %s\n", e.what());
  return 1;
}
