// A sort plan: the compiled kernels and scratch buffers of one configuration, and how it sorts.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "command_chain.hpp"
#include "radix_kernels.hpp"

namespace clsort::detail {

/// The digits of each pass for bits [begin_bit, end_bit), radix_bits at a time, low bits first.
std::vector<PassDigit> pass_digits(unsigned begin_bit, unsigned end_bit, int radix_bits);

/// What one sort orders by: bits [begin_bit, end_bit) of the ordered key, in which direction,
/// and whether constant-digit passes are looked for (see clsort::ConstantPassCheck).
struct SortSpec {
  unsigned begin_bit = 0;
  unsigned end_bit = 0;
  bool descending = false;
  ConstantPassCheck constant_pass_check = ConstantPassCheck::after_first_pass;
};

class SortPlan {
 public:
  virtual ~SortPlan() = default;

  /// Enqueues on `chain` the sort of n keys (and values if the config has them) of `input` into
  /// `output` as `spec` says. `output` is either `input` itself (the sort is in place) or
  /// buffers that share no bytes with input's, which are then only read.
  virtual void run(CommandChain& chain, const PassData& input, const PassData& output,
                   std::uint64_t n, const SortSpec& spec) = 0;

  /// Allocates the scratch buffers for n keys now (they grow on demand otherwise) and builds
  /// what the sort would build at its first use; returns every buffer the plan holds for n
  /// keys, for the caller to have the device back them (see Sorter::prepare).
  virtual std::vector<cl::Buffer> reserve(std::uint64_t n) = 0;
};

/// The plan for a configuration's algorithm (config.params.algorithm).
std::unique_ptr<SortPlan> make_sort_plan(const cl::Context& context, const cl::Device& device,
                                         const KernelConfig& config);

/// Whether a and b are the same buffers (for a sort's input and output: the sort is in place), by
/// the keys' buffer handles: a Sorter passes plans keys and values both in place or neither.
bool same_buffers(const PassData& a, const PassData& b);

/// Enqueues on `chain` the copy of `bytes` bytes from one buffer to another; `what` names them in
/// an error.
void copy_buffer(CommandChain& chain, const cl::Buffer& from, const cl::Buffer& to,
                 std::uint64_t bytes, const char* what);

/// Enqueues on `chain` the copy of n keys (and values, if value_bytes > 0) from `from` to `to`.
void copy_pass_data(CommandChain& chain, const PassData& from, const PassData& to, std::uint64_t n,
                    std::size_t key_bytes, std::size_t value_bytes);

}  // namespace clsort::detail
