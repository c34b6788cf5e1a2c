// clsort-mpi: the distributed sort of one file (sort) and its benchmark (bench), run by mpirun.
#include <iostream>
#include <stdexcept>

#include <mpi.h>
#include <CLI/CLI.hpp>

#include "bench_job.hpp"
#include "interrupt.hpp"
#include "merge_place_names.hpp"
#include "sort_job.hpp"

namespace {

using clsort::mpi::BenchArguments;
using clsort::mpi::SortArguments;

// --merge auto|host|device, for both commands.
void add_merge_option(CLI::App* command, std::string& name) {
  command
      ->add_option("--merge", name,
                   "Where each rank merges what it receives: auto (the host for CPU devices, "
                   "else the device), host or device")
      ->check(CLI::IsMember(clsort::mpi::merge_place_choices()));
}

void add_sort_command(CLI::App& app, SortArguments& args, std::string& merge_name) {
  CLI::App* sort = app.add_subcommand(
      "sort", "Sort one .npy or raw file with every rank; the output appears once all succeed");
  sort->add_option("input", args.input, "The keys (.npy or raw), visible to every rank")
      ->required();
  sort->add_option(
          "-o,--output", args.output,
          "The sorted keys (.npy: with a header), or a folder for them under the input's name")
      ->required();
  sort->add_option("--type", args.type,
                   "Key type of a raw input (u8 ... u64, i8 ... i64, f32, f64)");
  sort->add_option("--values", args.values, "Values moved with the keys (.npy or raw)");
  sort->add_option("--values-out", args.values_out, "Where the reordered values go")
      ->needs(sort->get_option("--values"));
  sort->get_option("--values")->needs(sort->get_option("--values-out"));
  sort->add_option("--values-type", args.values_type, "Element type of raw values");
  sort->add_flag("--descending", args.descending, "Largest first (NaNs still last), stable");
  sort->add_option("--begin-bit", args.begin_bit, "Sort by ordered-key bits from this one");
  sort->add_option("--end-bit", args.end_bit, "... up to (not including) this one");
  sort->add_option("--device", args.device,
                   "Device: P:D, cpu, gpu or a name part (default: $CLSORT_DEVICE, else the "
                   "node's GPU numbered local rank modulo GPUs, else the CPU device)");
  sort->add_option("--max-message", args.max_message_bytes,
                   "Largest message of the exchange in bytes (default 2^30)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{2147483647}));
  sort->add_flag("-v,--verbose", args.verbose, "Also name rank 0's device");
  sort->add_flag("-q,--quiet", args.quiet, "No progress line and no summary");
  add_merge_option(sort, merge_name);
}

void add_bench_command(CLI::App& app, BenchArguments& args, std::string& merge_name) {
  CLI::App* bench = app.add_subcommand(
      "bench", "Time the distributed sort of random keys phase by phase against a model");
  bench->add_option("--type", args.type, "Key type (default u32)");
  bench->add_option("-n,--count", args.count, "Keys over all ranks (per rank with --weak)");
  bench->add_flag("--weak", args.weak, "Weak scaling: --count keys on every rank");
  bench->add_option("--value-bytes", args.value_bytes, "Bytes of a value per key (0: keys only)")
      ->check(CLI::IsMember({0, 1, 2, 4, 8, 16}));
  bench->add_flag("--resident", args.resident,
                  "Keys start and end in device buffers (mpi::sort_device), not host memory");
  bench->add_option("--repeats", args.repeats, "Timed runs after one warm-up (median)")
      ->check(CLI::PositiveNumber);
  bench->add_option("--device", args.device, "Device, as for sort");
  bench->add_option("--csv", args.csv, "Append a row of the medians to this file (rank 0)");
  add_merge_option(bench, merge_name);
}

int run(int argc, char** argv, int rank) {
  CLI::App app{"clsort-mpi: sort one file across the ranks of mpirun, each on its own device"};
  app.require_subcommand(1);
  SortArguments sort_args;
  BenchArguments bench_args;
  std::string merge_name = "auto";
  add_sort_command(app, sort_args, merge_name);
  add_bench_command(app, bench_args, merge_name);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (rank != 0) return e.get_exit_code() == 0 ? 0 : 2;
    const int status = app.exit(e);
    return status == 0 ? 0 : 2;
  }
  try {
    sort_args.merge = bench_args.merge = clsort::mpi::merge_place_named(merge_name);
    if (app.got_subcommand("sort"))
      clsort::mpi::sort_file(MPI_COMM_WORLD, sort_args, std::cerr);
    else
      clsort::mpi::bench(MPI_COMM_WORLD, bench_args, std::cout, std::cerr);
    return 0;
  } catch (const std::exception& e) {  // collective: every rank has the same error
    if (rank == 0) std::cerr << "clsort-mpi: error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  clsort::cli::install_interrupt_cleanup();
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int status = run(argc, argv, rank);
  MPI_Finalize();
  return status;
}
