// Multi-level exclusive scan: scan tiles, scan the tile totals recursively, add them back.
#include "prefix_scan.hpp"

#include "kernel_args.hpp"
#include "kernel_build.hpp"

namespace clsort::detail {

PrefixScan::PrefixScan(const cl::Context& context, const cl::Device& device, bool wide_offsets,
                       int work_group_size, int elements_per_thread)
    : context_(context),
      wide_(wide_offsets),
      work_group_size_(static_cast<std::size_t>(work_group_size)),
      tile_(static_cast<std::uint64_t>(work_group_size) * elements_per_thread) {
  if (tile_ < 2) throw Error("prefix scan", "a scan tile must hold at least 2 entries");
  const TemplateContext vars{
      {"offset_type", std::string(wide_offsets ? "ulong" : "uint")},
      {"work_group_size", std::int64_t{work_group_size}},
      {"scan_elements_per_thread", std::int64_t{elements_per_thread}},
  };
  const cl::Program program = build_template(context, device, "scan.cl", vars);
  scan_tiles_ =
      make_kernel(program, device, "scan_tiles", work_group_size_, "scan_work_group_size");
  add_tile_offsets_ =
      make_kernel(program, device, "add_tile_offsets", work_group_size_, "scan_work_group_size");
}

void PrefixScan::run(CommandChain& chain, const cl::Buffer& data, std::uint64_t length) {
  run_level(chain, data, length, 0);
}

std::vector<cl::Buffer> PrefixScan::reserve(std::uint64_t length) {
  std::vector<cl::Buffer> held;
  for (std::size_t level = 0;; ++level) {
    held.push_back(level_sums(level, length));
    length = (length + tile_ - 1) / tile_;
    if (length == 1) return held;
  }
}

const cl::Buffer& PrefixScan::level_sums(std::size_t level, std::uint64_t length) {
  const std::uint64_t tiles = (length + tile_ - 1) / tile_;
  if (tile_sums_.size() <= level) tile_sums_.resize(level + 1);
  const std::size_t offset_bytes = wide_ ? 8 : 4;
  return tile_sums_[level].at_least(context_, tiles * offset_bytes, "scan tile sums");
}

void PrefixScan::run_level(CommandChain& chain, const cl::Buffer& data, std::uint64_t length,
                           std::size_t level) {
  const std::uint64_t tiles = (length + tile_ - 1) / tile_;
  const cl::Buffer sums = level_sums(level, length);

  KernelArgs(scan_tiles_, wide_).buffer(data).offset(length).buffer(sums);
  chain.launch(scan_tiles_, tiles * work_group_size_, work_group_size_);
  if (tiles == 1) return;

  run_level(chain, sums, tiles, level + 1);
  KernelArgs(add_tile_offsets_, wide_).buffer(data).offset(length).buffer(sums);
  chain.launch(add_tile_offsets_, tiles * work_group_size_, work_group_size_);
}

}  // namespace clsort::detail
