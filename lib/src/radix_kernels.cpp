// Builds and launches the count and scatter kernels for one configuration.
#include "radix_kernels.hpp"

#include "kernel_args.hpp"
#include "kernel_build.hpp"

namespace clsort::detail {

const char* storage_type(std::size_t bytes) {
  switch (bytes) {
    case 1:
      return "uchar";
    case 2:
      return "ushort";
    case 4:
      return "uint";
    case 8:
      return "ulong";
    default:
      return "ulong2";
  }
}

namespace {

const char* kind_name(KeyKind kind) {
  switch (kind) {
    case KeyKind::unsigned_integer:
      return "unsigned";
    case KeyKind::signed_integer:
      return "signed";
    default:
      return "float";
  }
}

}  // namespace

std::uint64_t keys_per_block(const Params& p) {
  const auto keys = static_cast<std::uint64_t>(p.elements_per_thread);
  return p.ranking == Ranking::serial ? keys : keys * static_cast<std::uint64_t>(p.work_group_size);
}

TemplateContext kernel_template_variables(const KernelConfig& c) {
  const std::size_t key_bytes = key_size(c.key_type);
  const Params& p = c.params;
  return {
      {"key_type", std::string(to_string(c.key_type))},
      {"key_storage", std::string(storage_type(key_bytes))},
      {"key_bits", static_cast<std::int64_t>(key_bytes * 8)},
      {"key_kind", std::string(kind_name(key_kind(c.key_type)))},
      {"exponent_mask", std::string(key_bytes == 8 ? "0x7FF0000000000000UL" : "0x7F800000U")},
      {"offset_type", std::string(c.wide_offsets ? "ulong" : "uint")},
      {"value_bytes", static_cast<std::int64_t>(c.value_bytes)},
      {"value_storage", std::string(storage_type(c.value_bytes))},
      {"radix_bits", std::int64_t{p.radix_bits}},
      {"bucket_bits", std::int64_t{p.bucket_bits}},
      {"work_group_size", std::int64_t{p.work_group_size}},
      {"elements_per_thread", std::int64_t{p.elements_per_thread}},
      {"ranking", std::string(to_string(p.ranking))},
      {"max_passes", static_cast<std::int64_t>((key_bytes * 8 + p.radix_bits - 1) / p.radix_bits)},
  };
}

RadixKernels::RadixKernels(const cl::Context& context, const cl::Device& device,
                           const KernelConfig& config)
    : config_(config) {
  validate_for_device(config.params, device, key_size(config.key_type), config.value_bytes);
  const TemplateContext vars = kernel_template_variables(config);
  const auto wg = static_cast<std::size_t>(config.params.work_group_size);
  count_ = make_kernel(build_template(context, device, "count.cl", vars), device, "count_digits",
                       wg, "work_group_size");
  scatter_ = make_kernel(build_template(context, device, "scatter.cl", vars), device,
                         "scatter_keys", wg, "work_group_size");
}

std::uint64_t RadixKernels::block_count(std::uint64_t n) const {
  const std::uint64_t keys = keys_per_block(config_.params);
  return (n + keys - 1) / keys;
}

std::uint64_t RadixKernels::global_size(std::uint64_t blocks) const {
  const auto wg = static_cast<std::uint64_t>(config_.params.work_group_size);
  if (config_.params.ranking == Ranking::bitmask) return blocks * wg;
  return (blocks + wg - 1) / wg * wg;
}

void RadixKernels::count(CommandChain& chain, const cl::Buffer& keys, std::uint64_t n,
                         PassDigit digit, bool descending, const cl::Buffer& hist) {
  const std::uint64_t blocks = block_count(n);
  KernelArgs(count_, config_.wide_offsets)
      .buffer(keys)
      .offset(n)
      .u32(digit.shift)
      .u32(digit.mask)
      .u32(descending)
      .buffer(hist)
      .offset(blocks);
  chain.launch(count_, global_size(blocks), config_.params.work_group_size);
}

void RadixKernels::scatter(CommandChain& chain, const PassData& from, const PassData& to,
                           std::uint64_t n, PassDigit digit, bool descending,
                           const cl::Buffer& offsets) {
  const std::uint64_t blocks = block_count(n);
  KernelArgs args(scatter_, config_.wide_offsets);
  args.buffer(from.keys).buffer(to.keys);
  if (config_.value_bytes > 0) args.buffer(from.values).buffer(to.values);
  args.offset(n).u32(digit.shift).u32(digit.mask).u32(descending).buffer(offsets).offset(blocks);
  chain.launch(scatter_, global_size(blocks), config_.params.work_group_size);
}

}  // namespace clsort::detail
