// `clsort sort`: sorts files (or standard input) of numbers or records on an OpenCL device.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace clsort::cli {

struct SortArguments {
  std::vector<std::string> inputs;
  std::optional<std::string> output;
  bool in_place = false;
  std::optional<std::string> format;
  std::optional<std::string> type;
  std::optional<std::size_t> record_size;
  std::optional<std::size_t> key_offset;
  std::optional<std::string> values;
  std::optional<std::string> values_out;
  std::optional<std::string> values_type;
  std::optional<std::string> argsort;
  std::optional<std::string> device;
  std::optional<std::string> profile;
  std::optional<unsigned> begin_bit;
  std::optional<unsigned> end_bit;
  std::optional<std::uint64_t> memory;
  std::optional<std::string> temporary_folder;
  std::string merge = "auto";
  bool descending = false;
  bool check = false;
  bool unique = false;
  bool verbose = false;
  bool quiet = false;
};

/// Declares the `sort` subcommand's options on `app`, filling `args` when parsed.
CLI::App* add_sort_command(CLI::App& app, SortArguments& args);

/// Runs a parsed `sort`; reports to `log`. Returns the exit status: 0 when every input was
/// sorted (or, with --check, found sorted), else 1. Throws UsageError for options that do not
/// go together, and clsort::Error when no device can be used.
int run_sort(const SortArguments& args, std::ostream& log);

}  // namespace clsort::cli
