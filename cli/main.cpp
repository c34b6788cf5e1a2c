// The clsort command-line tool: parses arguments and runs a subcommand, mapping errors to exits.
#include <CLI/CLI.hpp>

#include <iostream>

#include <clsort/version.hpp>

#include "devices_command.hpp"
#include "input_error.hpp"
#include "interrupt.hpp"
#include "sort_command.hpp"

namespace {

constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

}  // namespace

int main(int argc, char** argv) {
  clsort::cli::install_interrupt_cleanup();
  CLI::App app{"clsort: fast, stable radix sort of numeric files on any OpenCL device", "clsort"};
  app.set_version_flag("--version", clsort::version_line("clsort"));
  app.require_subcommand(1);
  app.footer(
      "Exit status: 0 done (with --check: every input sorted); 1 an input could not be sorted\n"
      "(the others were), no usable device, or --check found an input unsorted; 2 bad usage;\n"
      "130 interrupted (143 terminated): unfinished outputs are removed, inputs untouched.\n"
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
  } catch (const clsort::cli::UsageError& e) {
    std::cerr << "clsort: error: " << e.what() << "\n";
    return exit_usage;
  } catch (const std::exception& e) {  // clsort::Error, InputError and allocation failures
    std::cerr << "clsort: error: " << e.what() << "\n";
  }
  return exit_failure;
}
