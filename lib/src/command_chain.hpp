// CommandChain: enqueues one sort's commands each after the one before, with as few events as the
// queue allows.
#pragma once

#include <utility>
#include <vector>

#include "cl_check.hpp"
#include "clsort/opencl.hpp"

namespace clsort::detail {

/// Chains the commands of one sort on its queue, each after the previous one. On an in-order
/// queue the queue does that by itself, so only the first command waits for the caller's
/// events and a command makes an event only where one is asked for: NVIDIA's driver takes about
/// 2 us longer per launch that returns an event, which is most of a small sort's pass. On an
/// out-of-order queue every command waits for the previous one's event.
class CommandChain {
 public:
  CommandChain(cl::CommandQueue queue, std::vector<cl::Event> waits)
      : queue_(std::move(queue)),
        in_order_(
            (queue_.getInfo<CL_QUEUE_PROPERTIES>() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0),
        waits_(std::move(waits)) {}

  const cl::CommandQueue& queue() const { return queue_; }

  /// Enqueues a command through `enqueue(waits, event)` (an OpenCL enqueue call taking a wait
  /// list and an event pointer, either possibly null) after the previous one. Returns its event
  /// where `with_event` or the queue needs one, else a null event.
  template <class Enqueue>
  cl::Event add(Enqueue&& enqueue, bool with_event = false) {
    cl::Event event;
    const bool keep = with_event || !in_order_;
    enqueue(waits_.empty() ? nullptr : &waits_, keep ? &event : nullptr);
    waits_.clear();
    if (!in_order_) waits_.push_back(event);
    last_ = event;
    return event;
  }

  /// Enqueues a 1-D launch of `kernel` over `global` work-items in groups of `local`.
  cl::Event launch(const cl::Kernel& kernel, std::uint64_t global, std::size_t local,
                   bool with_event = false) {
    return add(
        [&](const std::vector<cl::Event>* waits, cl::Event* event) {
          const cl_int status = queue_.enqueueNDRangeKernel(
              kernel, cl::NullRange, cl::NDRange(global), cl::NDRange(local), waits, event);
          if (status != CL_SUCCESS)
            check(status, "enqueue kernel", kernel.getInfo<CL_KERNEL_FUNCTION_NAME>());
        },
        with_event);
  }

  /// An event that completes with every command so far: the last one's, or a marker's where
  /// the last made none (a marker on an in-order queue waits for all before it).
  cl::Event done() {
    if (last_()) return last_;
    return add(
        [&](const std::vector<cl::Event>* waits, cl::Event* event) {
          check(queue_.enqueueMarkerWithWaitList(waits, event), "enqueue marker");
        },
        true);
  }

 private:
  cl::CommandQueue queue_;
  bool in_order_;
  std::vector<cl::Event> waits_;  // what the next command must wait for
  cl::Event last_;                // the last command's event, if it made one
};

}  // namespace clsort::detail
