// clsort::Sorter: sorts keys and key/value pairs on one OpenCL command queue.
#pragma once

#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "clsort/error.hpp"
#include "clsort/opencl.hpp"
#include "clsort/params.hpp"
#include "clsort/profile.hpp"
#include "clsort/types.hpp"

namespace clsort {

/// Sorts on one command queue (in-order or out-of-order). Scratch buffers and compiled kernels
/// are kept and reused across calls. A Sorter is not thread-safe: use one per thread (several
/// Sorters may share a context, a device and the process-wide program cache).
class Sorter {
 public:
  /// Uses the device's profile, found as find_profile() says, for the problem classes it
  /// covers, and the built-in default for the others. Throws clsort::Error if $CLSORT_PROFILE
  /// names a profile that cannot be used.
  explicit Sorter(cl::CommandQueue queue);
  /// Uses `params` for every sort. Validated against the device for the narrowest keys (throws
  /// clsort::Error); a sort whose key and value widths need more local memory is refused.
  Sorter(cl::CommandQueue queue, const Params& params);
  /// Uses `profile` for the classes it covers (every class validated against the device),
  /// the built-in default elsewhere; `source` is what profile_path() reports.
  Sorter(cl::CommandQueue queue, const Profile& profile, const std::string& source = "");
  ~Sorter();
  Sorter(Sorter&&) noexcept;
  Sorter& operator=(Sorter&&) noexcept;

  /// Sorts host keys in place; synchronous. `keys` is any contiguous sequence of a supported
  /// key type that std::data and std::size accept: a std::vector, std::array, C array or
  /// (C++20) std::span. On error the keys are left unchanged.
  template <class Keys, class = decltype(std::data(std::declval<Keys&>()))>
  void sort(Keys&& keys, const SortOptions& options = {}) {
    sort_host_bytes(mutable_data(keys), std::size(keys), key_type_of<element_of<Keys>>(), nullptr,
                    0, options);
  }

  /// Sorts host keys in place and moves each value with its key; synchronous. Keys and values
  /// are contiguous sequences as for sort(); values may be any trivially copyable type of 1, 2,
  /// 4, 8 or 16 bytes. On error both are left unchanged: the smaller of the two comes back
  /// through a host copy first, which the Sorter keeps for its next sorts (host memory the
  /// size of that array in its largest such sort).
  template <class Keys, class Values, class = decltype(std::data(std::declval<Keys&>())),
            class = decltype(std::data(std::declval<Values&>()))>
  void sort_pairs(Keys&& keys, Values&& values, const SortOptions& options = {}) {
    using Value = element_of<Values>;
    static_assert(std::is_trivially_copyable_v<Value> && is_supported_value_size(sizeof(Value)),
                  "values must be trivially copyable and 1, 2, 4, 8 or 16 bytes");
    if (std::size(values) != std::size(keys))
      throw Error("sort_pairs", "keys and values differ in length (" +
                                    std::to_string(std::size(keys)) + " vs " +
                                    std::to_string(std::size(values)) + ")");
    sort_host_bytes(mutable_data(keys), std::size(keys), key_type_of<element_of<Keys>>(),
                    mutable_data(values), sizeof(Value), options);
  }

  /// Sorts n host keys of `type` in place, moving `value_bytes`-sized values (0: none, values
  /// may then be null) with them; synchronous. The type-erased form of the two calls above,
  /// for keys whose type is known only at run time. On error the host data is left unchanged.
  /// Arrays of 32 MiB or more reach a GPU through 128 MiB of pinned host memory that the Sorter
  /// allocates on first use and keeps (CLSORT_HOST_STAGING: auto, pinned for every array on
  /// any device, direct for none; docs/library.md).
  void sort_host_bytes(void* keys, std::size_t n, KeyType type, void* values,
                       std::size_t value_bytes, const SortOptions& options = {});

  /// sort_host_bytes from one pair of host arrays into another: reads n keys from keys_in (and
  /// values from values_in) and writes them sorted to keys_out (values_out), which may be the
  /// input arrays or others of the same sizes, so that a sorted copy costs no copy of its own.
  /// Inputs that are not outputs are only read; an input that is its output is left unchanged on
  /// error, as sort_host_bytes leaves it; other outputs then hold unspecified bytes.
  void sort_host_bytes_into(const void* keys_in, void* keys_out, std::size_t n, KeyType type,
                            const void* values_in, void* values_out, std::size_t value_bytes,
                            const SortOptions& options = {});

  /// Sorts the first n keys of a device buffer in place; asynchronous. Starts after `wait_events`
  /// (and after this Sorter's previous sort); the returned event completes with the sort. Where
  /// a onesweep sort reads its digit counts back to skip constant passes
  /// (SortOptions::constant_pass_check), the call returns only once they are read.
  cl::Event sort(const cl::Buffer& keys, std::uint64_t n, KeyType type,
                 const SortOptions& options = {},
                 const std::vector<cl::Event>* wait_events = nullptr);

  /// Like sort(), moving `value_bytes`-sized values of the `values` buffer with their keys.
  cl::Event sort_pairs(const cl::Buffer& keys, const cl::Buffer& values, std::uint64_t n,
                       KeyType type, std::size_t value_bytes, const SortOptions& options = {},
                       const std::vector<cl::Event>* wait_events = nullptr);

  /// Like sort(), from the first n keys of `keys_in` into `keys_out`, leaving keys_in as it was.
  /// Cheaper than a copy and a sort in place: the first pass (or the one kernel of rank_sort and
  /// single_group) reads keys_in, and an odd number of passes then needs no copy, where in place
  /// it needs one (fused_onesweep with more than one pass copies keys_in as it counts). keys_out
  /// may be keys_in itself (a sort in place); otherwise the two must share no bytes, which the
  /// call checks for sub-buffers of one buffer (throws clsort::Error).
  cl::Event sort_into(const cl::Buffer& keys_in, const cl::Buffer& keys_out, std::uint64_t n,
                      KeyType type, const SortOptions& options = {},
                      const std::vector<cl::Event>* wait_events = nullptr);

  /// Like sort_pairs(), from keys_in and values_in into keys_out and values_out, as sort_into()
  /// does: each output is its own input buffer or shares no bytes with any input.
  cl::Event sort_pairs_into(const cl::Buffer& keys_in, const cl::Buffer& values_in,
                            const cl::Buffer& keys_out, const cl::Buffer& values_out,
                            std::uint64_t n, KeyType type, std::size_t value_bytes,
                            const SortOptions& options = {},
                            const std::vector<cl::Event>* wait_events = nullptr);

  /// Builds the kernels and allocates the scratch buffers a sort of n keys of `type` with
  /// `value_bytes`-byte values (0: keys only) over every key bit needs, so that the sort itself
  /// does neither, and returns once the device holds the buffers' memory (a GPU driver may
  /// allocate it only at a buffer's first use), after this Sorter's previous sort.
  void prepare(KeyType type, std::size_t value_bytes, std::uint64_t n);

  /// The parameters a sort of n keys of `type` with values of `value_bytes` (0: keys only)
  /// uses: set_params(), else the set given to the constructor, else the profile's class,
  /// else the device's default for those widths.
  Params params_for(KeyType type, std::size_t value_bytes, std::uint64_t n) const;

  /// Overrides the parameters of every sort of keys of `type` with `value_bytes` values,
  /// whatever the profile says (validated against the device; throws clsort::Error).
  void set_params(KeyType type, std::size_t value_bytes, const Params& params);

  /// The profile file in use ("" when none: fixed parameters or the built-in default).
  const std::string& profile_path() const;

  const cl::CommandQueue& queue() const;

 private:
  /// The element type of a contiguous sequence.
  template <class Sequence>
  using element_of = std::remove_pointer_t<decltype(std::data(std::declval<Sequence&>()))>;
  /// The sequence's first element; a sequence of const elements does not compile, since the
  /// sort writes into it.
  template <class Sequence>
  static void* mutable_data(Sequence& sequence) {
    static_assert(!std::is_const_v<element_of<Sequence>>,
                  "clsort sorts in place: keys and values must be writable");
    return std::data(sequence);
  }

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Counts of how kernel programs were obtained in this process (all Sorters together).
struct BuildStatistics {
  std::uint64_t compiled = 0;          ///< built from source
  std::uint64_t loaded_from_disk = 0;  ///< built from a binary in the on-disk cache
  std::uint64_t reused = 0;            ///< found already built in memory
};
BuildStatistics build_statistics();

}  // namespace clsort
