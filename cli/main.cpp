// The clsort command-line tool: parses arguments and runs a subcommand, mapping errors to exits.
#include <CLI/CLI.hpp>

#include <iostream>

#include "devices_command.hpp"
#include "sort_command.hpp"

namespace {

constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"clsort: fast, stable radix sort of numeric files on any OpenCL device", "clsort"};
  app.require_subcommand(1);
  app.footer(
      "Exit status: 0 done (or --check found the input sorted); 1 a file, device or sort error,\n"
      "or --check found the input unsorted; 2 bad usage.\n"
      "Run 'clsort sort --help' for examples.");
  CLI::App* devices = app.add_subcommand("devices", "List OpenCL platforms and devices");
  clsort::cli::SortArguments sort_args;
  CLI::App* sort = clsort::cli::add_sort_command(app, sort_args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : exit_usage;
  }
  try {
    if (devices->parsed()) return clsort::cli::run_devices(std::cout);
    if (sort->parsed()) return clsort::cli::run_sort(sort_args, std::cerr);
  } catch (const std::exception& e) {  // clsort::Error, InputError and allocation failures

    std::cerr << "clsort: error: " << e.what() << "\n";
  }
  return exit_failure;
}
