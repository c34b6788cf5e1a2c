// clsort-mpi bench: random keys on every rank, the distributed sort timed phase by phase and
// compared with a model (local sort + one all-to-all of the same bytes).
#include "bench_job.hpp"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <random>
#include <vector>

#include <clsort/error.hpp>
#include <clsort/mpi.hpp>

#include "../src/collective.hpp"
#include "../src/exchange.hpp"
#include "../src/selection.hpp"
#include "../src/stopwatch.hpp"
#include "phase_report.hpp"
#include "rank_device.hpp"

namespace clsort::mpi {

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double slowest_rank(MPI_Comm comm, double seconds) {
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  return seconds;
}

std::vector<char> random_bytes(std::uint64_t bytes, std::uint64_t seed) {
  std::vector<char> data(bytes);
  std::mt19937_64 generator(seed);
  for (std::uint64_t at = 0; at < bytes; at += 8) {
    const std::uint64_t word = generator();
    std::copy_n(reinterpret_cast<const char*>(&word), std::min<std::uint64_t>(8, bytes - at),
                data.begin() + at);
  }
  return data;
}

// One timed distributed sort of fresh random data: (wall seconds, phases), slowest rank's.
std::pair<double, PhaseTimes> one_sort(MPI_Comm comm, Sorter& sorter, KeyType type, std::uint64_t n,
                                       std::size_t value_bytes, int seed) {
  std::vector<char> keys = random_bytes(n * key_size(type), seed);
  std::vector<char> values = random_bytes(n * value_bytes, seed + 1);
  std::vector<char> slice_keys, slice_values;
  MPI_Barrier(comm);
  const auto start = Clock::now();
  const Slice where = sort_host_bytes(
      comm, sorter, keys.data(), n, type, values.data(), value_bytes,
      [&](std::uint64_t count) {
        slice_keys.resize(count * key_size(type));
        slice_values.resize(count * value_bytes);
        return std::pair<void*, void*>(slice_keys.data(), slice_values.data());
      },
      Options{});
  const double wall = seconds_since(start);
  const PhaseSeconds slow = slowest(comm, phase_seconds(0, where.times, 0));
  return {slowest_rank(comm, wall), PhaseTimes{slow[1], slow[2], slow[3], slow[4]}};
}

// The model's exchange: every rank sends an equal share of its `bytes` to every rank.
double uniform_all_to_all(MPI_Comm comm, std::uint64_t items, std::size_t item_bytes) {
  const int ranks = size_of(comm);
  std::vector<std::uint64_t> cuts(ranks + 1);
  for (int j = 0; j <= ranks; ++j) cuts[j] = slice_start(items, ranks, j);
  const std::vector<std::uint64_t> counts = exchange_counts(comm, cuts);
  std::uint64_t receiving = 0;
  for (std::uint64_t count : counts) receiving += count;
  std::vector<char> sending(items * item_bytes), received(receiving * item_bytes);
  MPI_Barrier(comm);
  const auto start = Clock::now();
  exchange(comm, sending.data(), cuts, counts, item_bytes, received.data(), std::size_t{1} << 30);
  return slowest_rank(comm, seconds_since(start));
}

}  // namespace

void bench(MPI_Comm comm, const BenchArguments& args, std::ostream& log) {
  const int ranks = size_of(comm), me = rank_of(comm);
  const std::optional<KeyType> type = parse_key_type(args.type);
  if (!type) throw Error("--type", "unknown key type " + args.type);
  std::optional<Sorter> sorter;
  std::string device_name;
  on_every_rank(comm, "device", [&] {
    const DeviceEntry device = device_for_rank(comm, args.device);
    device_name = device.description.device_name;
    sorter.emplace(make_queue(device.device));
  });
  const std::uint64_t total = args.weak ? args.count * ranks : args.count;
  const std::uint64_t n = slice_start(total, ranks, me + 1) - slice_start(total, ranks, me);
  one_sort(comm, *sorter, *type, n, args.value_bytes, 7 + me);  // warm-up: kernels, buffers
  std::vector<double> walls, local, splitters, exchanges, merges, all_to_all;
  for (int repeat = 0; repeat < args.repeats; ++repeat) {
    const auto [wall, phases] =
        one_sort(comm, *sorter, *type, n, args.value_bytes, 1000 * repeat + 2 * me);
    walls.push_back(wall);
    local.push_back(phases.local_sort);
    splitters.push_back(phases.splitters);
    exchanges.push_back(phases.exchange);
    merges.push_back(phases.merge);
    all_to_all.push_back(uniform_all_to_all(comm, n, key_size(*type) + args.value_bytes));
  }
  if (me != 0) return;
  const double wall = median(walls), model = median(local) + median(all_to_all);
  const double exchanged = static_cast<double>(n) * (key_size(*type) + args.value_bytes);
  log << std::fixed << std::setprecision(4) << "clsort-mpi bench: " << ranks << " ranks, "
      << (args.weak ? "weak" : "strong") << " scaling, " << total << " " << args.type << " keys"
      << (args.value_bytes ? " + " + std::to_string(args.value_bytes) + "-byte values" : "")
      << " on " << device_name << " (rank 0)\n  sort " << wall << " s (" << std::setprecision(1)
      << total / wall / 1e6 << " Mkeys/s): local sort " << std::setprecision(4) << median(local)
      << ", splitters " << median(splitters) << ", exchange " << median(exchanges) << ", merge "
      << median(merges) << "\n  model " << model
      << " s (local sort + an all-to-all of the same bytes: " << median(all_to_all) << " s, "
      << std::setprecision(2) << exchanged / median(all_to_all) / 1e9
      << " GB/s per rank); sort / model " << wall / model << "\n";
  if (!args.csv) return;
  std::ofstream csv(*args.csv, std::ios::app);
  csv << ranks << "," << (args.weak ? "weak" : "strong") << "," << args.type << ","
      << args.value_bytes << "," << total << "," << wall << "," << median(local) << ","
      << median(splitters) << "," << median(exchanges) << "," << median(merges) << ","
      << median(all_to_all) << "," << model << "," << wall / model << "\n";
}

}  // namespace clsort::mpi
