// `clsort sort`: sorts a .npy or raw file (optionally with a values file) on an OpenCL device.
#pragma once

#include <optional>
#include <ostream>
#include <string>

namespace CLI {
class App;
}

namespace clsort::cli {

struct SortArguments {
  std::string input;
  std::string output;
  std::optional<std::string> type;
  std::optional<std::string> values;
  std::optional<std::string> values_out;
  std::optional<std::string> values_type;
  std::optional<std::string> device;
  std::optional<std::string> argsort;
  std::optional<unsigned> begin_bit;
  std::optional<unsigned> end_bit;
  bool descending = false;
  bool check = false;
  bool unique = false;
  bool verbose = false;
};

/// Declares the `sort` subcommand's options on `app`, filling `args` when parsed.
CLI::App* add_sort_command(CLI::App& app, SortArguments& args);

/// Runs a parsed `sort`; reports to `log`. Returns the exit code; throws on errors.
int run_sort(const SortArguments& args, std::ostream& log);

}  // namespace clsort::cli
