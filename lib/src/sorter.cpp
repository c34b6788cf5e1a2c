// clsort::Sorter: argument checks, plan selection, host <-> device staging.
#include "clsort/sorter.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "cl_check.hpp"
#include "device_info.hpp"
#include "kernel_build.hpp"
#include "onesweep_plan.hpp"
#include "pinned_upload.hpp"
#include "program_cache.hpp"
#include "sort_plan.hpp"

namespace clsort {

namespace {

// Host bytes kept from sort to sort and never cleared: a fresh zeroed block costs its zeroing
// and page faults on every sort (1 GiB through one on the project's machine: 0.9-4.3 s, against
// 0.22-0.41 s through a block kept).
class HostStaging {
 public:
  unsigned char* at_least(std::size_t bytes) {
    if (bytes > bytes_) {
      bytes_ = 0;
      data_.reset();  // the old block goes first, so that the two are never held at once
      data_.reset(new unsigned char[bytes]);
      bytes_ = bytes;
    }
    return data_.get();
  }

 private:
  std::unique_ptr<unsigned char[]> data_;
  std::size_t bytes_ = 0;
};

// Where a buffer's bytes lie: the memory object they belong to (the parent of a sub-buffer, which
// OpenCL makes only of whole buffers) and their offset in it.
struct BufferPlace {
  cl_mem memory;
  std::uint64_t offset;
};

BufferPlace place_of(const cl::Buffer& buffer) {
  cl::Memory parent;
  std::size_t offset = 0;
  detail::check(buffer.getInfo(CL_MEM_ASSOCIATED_MEMOBJECT, &parent), "query buffer");
  detail::check(buffer.getInfo(CL_MEM_OFFSET, &offset), "query buffer");
  return {parent() ? parent() : buffer(), offset};
}

// Whether the first a_bytes of `a` and the first b_bytes of `b` share any byte.
bool share_bytes(const cl::Buffer& a, std::uint64_t a_bytes, const cl::Buffer& b,
                 std::uint64_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0) return false;
  const BufferPlace pa = place_of(a);
  const BufferPlace pb = place_of(b);
  return pa.memory == pb.memory && pa.offset < pb.offset + b_bytes &&
         pb.offset < pa.offset + a_bytes;
}

}  // namespace

struct Sorter::Impl {
  // A built plan and the class and parameters it was built for.
  struct PlanEntry {
    KeyType type;
    std::size_t value_bytes;
    bool wide;
    Params params;
    std::unique_ptr<detail::SortPlan> plan;
  };

  cl::CommandQueue queue;
  cl::Context context;
  cl::Device device;
  detail::DeviceLimits limits;
  std::optional<Params> fixed_params;
  std::optional<Profile> profile;
  std::string profile_path;
  std::map<std::pair<KeyType, std::size_t>, Params> overrides;  // set_params()
  // The built-in defaults of a class (built_in_params' tiers, kept here so that they can shrink
  // to a kernel's limit): `rank`, else `small` (where the device has them) for sorts within
  // their capacity, `mid` (where the device has one) up to mid_default_max_keys, `large` for the
  // others.
  struct BuiltInDefaults {
    Params large;
    std::optional<Params> compact_rank, rank, small, mid;
  };
  std::map<std::pair<KeyType, std::size_t>, BuiltInDefaults> defaults_by_class;
  std::vector<PlanEntry> plans;
  detail::DeviceBuffer host_keys, host_values;  // staging for the host-data API
  HostStaging readback;                         // pairs' all-or-nothing read-back
  detail::PinnedUpload upload;                  // host data of at least `pinned_from` bytes
  std::optional<std::uint64_t> pinned_from;     // (none: every upload goes straight)
  cl::Event last_sort;                          // scratch is shared: sorts run one after another

  explicit Impl(cl::CommandQueue q) : queue(std::move(q)) {
    detail::check(queue.getInfo(CL_QUEUE_CONTEXT, &context), "query queue");
    detail::check(queue.getInfo(CL_QUEUE_DEVICE, &device), "query queue");
    limits = detail::query_limits(device);
    pinned_from = detail::PinnedUpload::threshold_for(device);
  }

  // Copies host data into a device buffer once `wait_events` complete; returns when done.
  void upload_host(const cl::Buffer& destination, const void* source, std::uint64_t bytes,
                   const std::vector<cl::Event>& wait_events, const char* what) {
    if (pinned_from && bytes >= *pinned_from) {
      upload.write(queue, destination, source, bytes, wait_events, what);
      return;
    }
    detail::check(queue.enqueueWriteBuffer(destination, CL_TRUE, 0, bytes, source, &wait_events),
                  "write buffer", what);
  }

  // The previous sort's event, for commands that must wait for it (none before the first sort).
  std::vector<cl::Event> after_last_sort() const {
    return last_sort() ? std::vector<cl::Event>{last_sort} : std::vector<cl::Event>{};
  }

  // Has the device back `buffers` now and waits for it: NVIDIA's OpenCL allocates a buffer's
  // memory at its first use, which cost a new Sorter's first sort 0.3-0.5 ms of 2^20-2^24 keys
  // (H200). Each gets a zero in its first byte, where every plan's buffers may hold one; the
  // writes wait for the previous sort, which may still use them.
  void back_on_device(const std::vector<cl::Buffer>& buffers) {
    const std::vector<cl::Event> previous = after_last_sort();
    std::vector<cl::Event> written(buffers.size());
    for (std::size_t i = 0; i < buffers.size(); ++i)
      detail::check(queue.enqueueFillBuffer(buffers[i], cl_uchar{0}, 0, 1, &previous, &written[i]),
                    "enqueue fill", "a prepared scratch buffer");
    if (!written.empty())
      detail::check(cl::Event::waitForEvents(written), "prepare", "waiting for scratch buffers");
  }

  // The parameters a sort of this class uses: set_params(), else the fixed set, else the
  // profile's class, else the default for its widths; onesweep (hybrid, fused_onesweep) beyond its
  // key limit runs reduce_then_scan with the same radix bits, single_group (single_group_hybrid,
  // rank_sort) beyond its capacity the default.
  Params params_for(KeyType type, std::size_t value_bytes, std::uint64_t n) {
    Params p;
    std::optional<Params> tuned;
    if (profile) tuned = profile->params_for(type, value_bytes, n);
    if (const auto it = overrides.find({type, value_bytes}); it != overrides.end()) {
      p = it->second;
    } else if (fixed_params) {
      p = *fixed_params;
    } else if (tuned) {
      p = *tuned;
    } else {
      p = built_in_default(type, value_bytes, n);
    }
    if (n > most_keys(p)) p = built_in_default(type, value_bytes, n);
    if (runs_onesweep_passes(p.algorithm) && n > detail::OnesweepPlan::max_keys) {
      p.algorithm = Algorithm::reduce_then_scan;
      if (p.ranking == Ranking::warp_match) p.ranking = Ranking::bitmask;
      // onesweep's own fields, which reduce_then_scan refuses
      p.prefetch_ahead = p.prefetch_values = p.resident_groups = p.occupancy_groups = 0;
      p.value_rounds = 1;
    } else if (p.algorithm == Algorithm::fused_onesweep &&
               n > detail::OnesweepPlan::max_portion_keys) {
      p.algorithm = Algorithm::onesweep;  // which runs its passes in portions
    }
    return p;
  }

  BuiltInDefaults& built_in_defaults(KeyType type, std::size_t value_bytes) {
    auto [it, added] = defaults_by_class.try_emplace({type, value_bytes});
    if (added) {
      it->second.large = default_params(device, key_size(type), value_bytes);
      // The rank set for the fewest keys, then the largest (the same set for 64-bit keys).
      it->second.compact_rank = default_rank_params(device, key_size(type), value_bytes, 0);
      it->second.rank = default_rank_params(device, key_size(type), value_bytes);
      it->second.mid = default_mid_params(device, key_size(type), value_bytes);
      try {
        it->second.small = default_small_params(device, key_size(type), value_bytes);
      } catch (const Error&) {
        // too little local memory for one: every sort runs `large`
      }
    }
    return it->second;
  }

  Params& built_in_default(KeyType type, std::size_t value_bytes, std::uint64_t n) {
    BuiltInDefaults& defaults = built_in_defaults(type, value_bytes);
    for (std::optional<Params>* rank : {&defaults.compact_rank, &defaults.rank})
      if (*rank && n <= single_group_capacity(**rank)) return **rank;
    if (defaults.small && n <= single_group_capacity(*defaults.small)) return *defaults.small;
    if (defaults.mid && n <= mid_default_max_keys) return *defaults.mid;
    return defaults.large;
  }

  // Only the built-in defaults adapt to what the driver reports when kernels are built:
  // parameters someone chose (set_params, a fixed set, a profile) run as given or are refused.
  bool uses_built_in_defaults(KeyType type, std::size_t value_bytes, std::uint64_t n) const {
    return !overrides.count({type, value_bytes}) && !fixed_params &&
           !(profile && profile->params_for(type, value_bytes, n));
  }

  // A kernel's own work-group limit (CL_KERNEL_WORK_GROUP_SIZE) can be below the device's
  // maximum the defaults were sized by; the defaults then shrink to it and the build repeats.
  detail::SortPlan& plan(KeyType type, std::size_t value_bytes, std::uint64_t n) {
    for (;;) {
      try {
        return plan_with(params_for(type, value_bytes, n), type, value_bytes, n);
      } catch (const detail::WorkGroupLimitError& e) {
        if (!uses_built_in_defaults(type, value_bytes, n) ||
            !detail::fit_work_groups(built_in_default(type, value_bytes, n), e.kernel_limit()))
          throw;
      }
    }
  }

  detail::SortPlan& plan_with(const Params& params, KeyType type, std::size_t value_bytes,
                              std::uint64_t n) {
    const std::uint64_t block_keys = detail::keys_per_block(params);
    const std::uint64_t hist_length =
        (std::uint64_t{1} << params.radix_bits) * (n / block_keys + 1);
    // Onesweep's passes index in 32 bits up to their own limit, OnesweepPlan::max_keys.
    const bool wide = !runs_onesweep_passes(params.algorithm) &&
                      (n + block_keys > UINT32_MAX || hist_length > UINT32_MAX);
    if (!limits.has_64bit_integers && (key_size(type) == 8 || value_bytes >= 8 || wide))
      throw Error("sort", limits.name +
                              " has the OpenCL embedded profile without cles_khr_int64, so it "
                              "cannot sort 64-bit keys, values of 8 or more bytes, or 2^32 keys "
                              "and more; this sort has " +
                              std::string(to_string(type)) + " keys, " +
                              std::to_string(value_bytes) + "-byte values and " +
                              std::to_string(n) + " keys");
    for (PlanEntry& entry : plans)
      if (entry.type == type && entry.value_bytes == value_bytes && entry.wide == wide &&
          entry.params == params)
        return *entry.plan;
    plans.push_back({type, value_bytes, wide, params,
                     detail::make_sort_plan(
                         context, device, detail::KernelConfig{type, value_bytes, wide, params})});
    return *plans.back().plan;
  }

  void check_buffer(const cl::Buffer& buffer, std::uint64_t bytes, const char* what) const {
    std::size_t size = 0;
    detail::check(buffer.getInfo(CL_MEM_SIZE, &size), "query buffer", what);
    if (size < bytes)
      throw Error("sort", std::string(what) + " buffer holds " + std::to_string(size) +
                              " bytes; the sort needs " + std::to_string(bytes));
  }

  void check_allocation(std::uint64_t bytes, std::uint64_t n, const char* what) const {
    if (bytes > limits.max_allocation_bytes)
      throw Error("sort", std::to_string(n) + " " + what + " take " + std::to_string(bytes) +
                              " bytes, over CL_DEVICE_MAX_MEM_ALLOC_SIZE = " +
                              std::to_string(limits.max_allocation_bytes) + " of " + limits.name);
  }

  // Refuses an output buffer that shares bytes with an input buffer other than its own input
  // handle (a sub-buffer of the same memory): the passes would read what they overwrite.
  void check_no_overlap(const detail::PassData& input, const detail::PassData& output,
                        std::uint64_t key_bytes, std::uint64_t value_bytes) const {
    struct Named {
      const cl::Buffer* buffer;
      std::uint64_t bytes;
      const char* name;
    };
    std::vector<Named> inputs{{&input.keys, key_bytes, "keys_in"}};
    std::vector<Named> outputs{{&output.keys, key_bytes, "keys_out"}};
    if (value_bytes > 0) {
      inputs.push_back({&input.values, value_bytes, "values_in"});
      outputs.push_back({&output.values, value_bytes, "values_out"});
    }
    for (std::size_t i = 0; i < inputs.size(); ++i)
      for (std::size_t o = 0; o < outputs.size(); ++o) {
        const bool own_input = i == o && (*inputs[i].buffer)() == (*outputs[o].buffer)();
        if (!own_input &&
            share_bytes(*inputs[i].buffer, inputs[i].bytes, *outputs[o].buffer, outputs[o].bytes))
          throw Error("sort", std::string(outputs[o].name) + " shares bytes with " +
                                  inputs[i].name +
                                  ": an output must be its own input buffer or apart from "
                                  "every input");
      }
  }

  // Checks that every buffer holds the sort's bytes (named keys/values in place, else keys_in,
  // keys_out, ...) and that no output overlaps another input.
  void check_buffers(const detail::PassData& input, const detail::PassData& output,
                     std::uint64_t key_total, std::uint64_t value_total) const {
    const bool keys_apart = input.keys() != output.keys();
    check_buffer(input.keys, key_total, keys_apart ? "keys_in" : "keys");
    if (keys_apart) check_buffer(output.keys, key_total, "keys_out");
    if (value_total > 0) {
      const bool values_apart = input.values() != output.values();
      check_buffer(input.values, value_total, values_apart ? "values_in" : "values");
      if (values_apart) check_buffer(output.values, value_total, "values_out");
    }
    check_no_overlap(input, output, key_total, value_total);
  }

  // Copies `bytes` from one buffer to another on the chain, unless they are the same buffer.
  static void copy_unless_same(detail::CommandChain& chain, const cl::Buffer& from,
                               const cl::Buffer& to, std::uint64_t bytes, const char* what) {
    if (from() != to() && bytes > 0) detail::copy_buffer(chain, from, to, bytes, what);
  }

  // Sorts n keys (and values) of `input` into `output`: buffers either the same as input's (in
  // place) or apart from them (a buffer of one array in place, the other's apart: that one is
  // copied to its output and the two sorted there).
  cl::Event enqueue_sort(const detail::PassData& input, const detail::PassData& output,
                         std::uint64_t n, KeyType type, std::size_t value_bytes,
                         const SortOptions& options, const std::vector<cl::Event>* wait_events) {
    const unsigned width = key_bits(type);
    const unsigned end_bit = options.end_bit.value_or(width);
    if (options.begin_bit > end_bit || end_bit > width)
      throw Error("sort", "bit range [" + std::to_string(options.begin_bit) + ", " +
                              std::to_string(end_bit) + ") is invalid for " +
                              std::string(to_string(type)) +
                              " keys: need begin_bit <= end_bit <= " + std::to_string(width));
    if (value_bytes != 0 && !is_supported_value_size(value_bytes))
      throw Error("sort_pairs", "value size " + std::to_string(value_bytes) +
                                    " is not one of 1, 2, 4, 8, 16 bytes");
    const std::uint64_t key_total = n * key_size(type);
    const std::uint64_t value_total = n * value_bytes;
    check_allocation(key_total, n, "keys");
    check_allocation(value_total, n, "values");
    check_buffers(input, output, key_total, value_total);
    const bool apart = input.keys() != output.keys();

    std::vector<cl::Event> waits = wait_events ? *wait_events : std::vector<cl::Event>{};
    if (last_sort()) waits.push_back(last_sort);
    detail::CommandChain chain(queue, std::move(waits), options.return_event);
    try {
      const bool sorts = n > 1 && options.begin_bit < end_bit;
      const bool plan_apart =
          sorts && apart && (value_bytes == 0 || input.values() != output.values());
      if (!plan_apart) {
        copy_unless_same(chain, input.keys, output.keys, key_total, "keys_in to keys_out");
        if (value_bytes > 0)
          copy_unless_same(chain, input.values, output.values, value_total,
                           "values_in to values_out");
      }
      if (sorts) {
        const detail::SortSpec spec{options.begin_bit, end_bit, options.descending,
                                    options.constant_pass_check};
        plan(type, value_bytes, n).run(chain, plan_apart ? input : output, output, n, spec);
      }
      last_sort = chain.done();
    } catch (const Error&) {
      // Passes enqueued before the failure still run; the next sort must not overlap them.
      queue.finish();
      throw;
    }
    return last_sort;
  }
};

Sorter::Sorter(cl::CommandQueue queue) : impl_(std::make_unique<Impl>(std::move(queue))) {
  ProfileSearch found = find_profile(impl_->device);
  impl_->profile = std::move(found.profile);
  impl_->profile_path = found.path;
}
Sorter::Sorter(cl::CommandQueue queue, const Params& params)
    : impl_(std::make_unique<Impl>(std::move(queue))) {
  // Key and value widths come with each sort, whose plan checks them: here the set must fit
  // the narrowest (a set sized for u8 keys is no error until it meets wider ones).
  validate_for_device(params, impl_->device, 1, 0);
  impl_->fixed_params = params;
}
Sorter::Sorter(cl::CommandQueue queue, const Profile& profile, const std::string& source)
    : impl_(std::make_unique<Impl>(std::move(queue))) {
  for (const TunedClass& c : profile.classes)
    validate_for_device(c.params, impl_->device, c.problem.key_bits / 8, c.problem.value_bytes);
  impl_->profile = profile;
  impl_->profile_path = source;
}
Sorter::~Sorter() = default;
Sorter::Sorter(Sorter&&) noexcept = default;
Sorter& Sorter::operator=(Sorter&&) noexcept = default;

cl::Event Sorter::sort(const cl::Buffer& keys, std::uint64_t n, KeyType type,
                       const SortOptions& options, const std::vector<cl::Event>* wait_events) {
  return impl_->enqueue_sort({keys, {}}, {keys, {}}, n, type, 0, options, wait_events);
}

cl::Event Sorter::sort_into(const cl::Buffer& keys_in, const cl::Buffer& keys_out, std::uint64_t n,
                            KeyType type, const SortOptions& options,
                            const std::vector<cl::Event>* wait_events) {
  return impl_->enqueue_sort({keys_in, {}}, {keys_out, {}}, n, type, 0, options, wait_events);
}

cl::Event Sorter::sort_pairs(const cl::Buffer& keys, const cl::Buffer& values, std::uint64_t n,
                             KeyType type, std::size_t value_bytes, const SortOptions& options,
                             const std::vector<cl::Event>* wait_events) {
  if (value_bytes == 0)
    throw Error("sort_pairs", "value size 0 is not one of 1, 2, 4, 8, 16 bytes");
  return impl_->enqueue_sort({keys, values}, {keys, values}, n, type, value_bytes, options,
                             wait_events);
}

cl::Event Sorter::sort_pairs_into(const cl::Buffer& keys_in, const cl::Buffer& values_in,
                                  const cl::Buffer& keys_out, const cl::Buffer& values_out,
                                  std::uint64_t n, KeyType type, std::size_t value_bytes,
                                  const SortOptions& options,
                                  const std::vector<cl::Event>* wait_events) {
  if (value_bytes == 0)
    throw Error("sort_pairs_into", "value size 0 is not one of 1, 2, 4, 8, 16 bytes");
  return impl_->enqueue_sort({keys_in, values_in}, {keys_out, values_out}, n, type, value_bytes,
                             options, wait_events);
}

namespace {

struct HostArray {
  void* data;
  std::uint64_t bytes;
  const char* what;
};

// Reads sorted keys and values back so that a failed read leaves both host arrays as they were:
// the smaller array goes through a staging copy first, the larger is the last transfer.
void read_pairs_all_or_nothing(const cl::CommandQueue& queue, const detail::PassData& data,
                               HostArray keys, HostArray values, HostStaging& staging) {
  const bool stage_keys = keys.bytes <= values.bytes;
  const HostArray& staged = stage_keys ? keys : values;
  const HostArray& direct = stage_keys ? values : keys;
  unsigned char* const copy = staging.at_least(staged.bytes);
  detail::check(
      queue.enqueueReadBuffer(stage_keys ? data.keys : data.values, CL_TRUE, 0, staged.bytes, copy),
      "read buffer", staged.what);
  detail::check(queue.enqueueReadBuffer(stage_keys ? data.values : data.keys, CL_TRUE, 0,
                                        direct.bytes, direct.data),
                "read buffer", direct.what);
  std::memcpy(staged.data, copy, staged.bytes);
}

}  // namespace

void Sorter::sort_host_bytes(void* keys, std::size_t n, KeyType type, void* values,
                             std::size_t value_bytes, const SortOptions& options) {
  sort_host_bytes_into(keys, keys, n, type, values, values, value_bytes, options);
}

void Sorter::sort_host_bytes_into(const void* keys_in, void* keys_out, std::size_t n, KeyType type,
                                  const void* values_in, void* values_out, std::size_t value_bytes,
                                  const SortOptions& options) {
  Impl& s = *impl_;
  const std::uint64_t key_bytes = n * key_size(type);
  const std::uint64_t value_total = n * value_bytes;
  s.check_allocation(key_bytes, n, "keys");
  s.check_allocation(value_total, n, "values");
  detail::PassData data{s.host_keys.at_least(s.context, key_bytes, "keys"), {}};
  if (value_bytes > 0) data.values = s.host_values.at_least(s.context, value_total, "values");
  if (n > 0) {
    // After the previous sort, which may still use the staging buffers if its wait failed.
    const std::vector<cl::Event> previous = s.after_last_sort();
    s.upload_host(data.keys, keys_in, key_bytes, previous, "keys to the device");
    if (value_bytes > 0)
      s.upload_host(data.values, values_in, value_total, previous, "values to the device");
  }
  SortOptions with_event = options;
  with_event.return_event = true;  // waited for below
  cl::Event sorted = s.enqueue_sort(data, data, n, type, value_bytes, with_event, nullptr);
  // Wait first: the host data is only overwritten once the sort is known to have succeeded.
  detail::check(sorted.wait(), "sort", "waiting for the sort to finish");
  if (n == 0) return;
  if (value_bytes == 0) {
    detail::check(s.queue.enqueueReadBuffer(data.keys, CL_TRUE, 0, key_bytes, keys_out),
                  "read buffer", "sorted keys");
    return;
  }
  read_pairs_all_or_nothing(s.queue, data, {keys_out, key_bytes, "sorted keys"},
                            {values_out, value_total, "sorted values"}, s.readback);
}

void Sorter::prepare(KeyType type, std::size_t value_bytes, std::uint64_t n) {
  impl_->back_on_device(impl_->plan(type, value_bytes, n).reserve(n));
}

Params Sorter::params_for(KeyType type, std::size_t value_bytes, std::uint64_t n) const {
  return impl_->params_for(type, value_bytes, n);
}

void Sorter::set_params(KeyType type, std::size_t value_bytes, const Params& params) {
  validate_for_device(params, impl_->device, key_size(type), value_bytes);
  impl_->overrides[{type, value_bytes}] = params;
}

const std::string& Sorter::profile_path() const {
  return impl_->profile_path;
}

const cl::CommandQueue& Sorter::queue() const {
  return impl_->queue;
}

BuildStatistics build_statistics() {
  return detail::program_statistics();
}

}  // namespace clsort
