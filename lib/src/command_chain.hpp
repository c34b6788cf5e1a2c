// CommandChain: enqueues one sort's commands each after the one before, with as few events as the
// queue allows.
#pragma once

#include <utility>
#include <vector>

#include "cl_check.hpp"
#include "clsort/opencl.hpp"

namespace clsort::detail {

/// Why a command makes an event: none needed, or the host waits for it (it reads back what the
/// command wrote, or the command ends the sort and the caller gets its event).
enum class EventFor { nothing, host };

/// Chains the commands of one sort on its queue, each after the previous one. On an in-order
/// queue the queue does that by itself, so only the first command waits for the caller's
/// events and a command makes an event only where the host waits for it. The caller's event
/// comes from a marker after the last command: NVIDIA's driver takes about 2 us longer for a
/// launch that makes an event, and a marker's costs half of that (H200). On an out-of-order
/// queue every command waits for the previous one's event.
class CommandChain {
 public:
  /// `end_event`: whether the caller wants an event marking the sort's end (an out-of-order
  /// queue always makes one, since nothing else orders what follows).
  CommandChain(cl::CommandQueue queue, std::vector<cl::Event> waits, bool end_event = true)
      : queue_(std::move(queue)),
        in_order_(
            (queue_.getInfo<CL_QUEUE_PROPERTIES>() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0),
        end_event_(end_event || !in_order_),
        waits_(std::move(waits)) {}

  const cl::CommandQueue& queue() const { return queue_; }

  /// Enqueues a command through `enqueue(waits, event)` (an OpenCL enqueue call taking a wait
  /// list and an event pointer, either possibly null) after the previous one. Returns its event
  /// where `use` or the queue needs one, else a null event.
  template <class Enqueue>
  cl::Event add(Enqueue&& enqueue, EventFor use = EventFor::nothing) {
    cl::Event event;
    const bool keep = use == EventFor::host || !in_order_;
    enqueue(waits_.empty() ? nullptr : &waits_, keep ? &event : nullptr);
    waits_.clear();
    if (!in_order_) waits_.push_back(event);
    last_ = event;
    return event;
  }

  /// Enqueues a 1-D launch of `kernel` over `global` work-items in groups of `local`.
  cl::Event launch(const cl::Kernel& kernel, std::uint64_t global, std::size_t local,
                   EventFor use = EventFor::nothing) {
    return add(
        [&](const std::vector<cl::Event>* waits, cl::Event* event) {
          const cl_int status = queue_.enqueueNDRangeKernel(
              kernel, cl::NullRange, cl::NDRange(global), cl::NDRange(local), waits, event);
          if (status != CL_SUCCESS)
            check(status, "enqueue kernel", kernel.getInfo<CL_KERNEL_FUNCTION_NAME>());
        },
        use);
  }

  /// An event that completes with every command so far: the last one's where it made one, else
  /// a marker's (a marker on an in-order queue waits for all before it). A null event where the
  /// caller wants none.
  cl::Event done() {
    if (!end_event_) return {};
    if (last_()) return last_;
    return add(
        [&](const std::vector<cl::Event>* waits, cl::Event* event) {
          check(queue_.enqueueMarkerWithWaitList(waits, event), "enqueue marker");
        },
        EventFor::host);
  }

 private:
  cl::CommandQueue queue_;
  bool in_order_;
  bool end_event_;
  std::vector<cl::Event> waits_;  // what the next command must wait for
  cl::Event last_;                // the last command's event, if it made one
};

}  // namespace clsort::detail
