// clsort-mpi bench: random keys on every rank, the distributed sort timed phase by phase and
// compared with a model (local sort + one all-to-all of the same bytes).
#include "bench_job.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

#include <clsort/error.hpp>
#include <clsort/mpi.hpp>

#include "../src/collective.hpp"
#include "../src/device_copies.hpp"
#include "../src/exchange.hpp"
#include "../src/host_threads.hpp"
#include "../src/selection.hpp"
#include "../src/stopwatch.hpp"
#include "merge_place_names.hpp"
#include "phase_report.hpp"
#include "rank_device.hpp"
#include "slice_check.hpp"

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

// A rank's keys and values (its data's global positions, so that the check sees stability),
// allocated and touched once for every sort of the bench, and their records' digest.
struct RankInput {
  std::uint64_t n = 0;
  HostBytes keys, values;
  std::uint64_t digest = 0;
};

// The model's buffers: what a rank receives in its all-to-all, allocated and touched once.
struct ModelBuffers {
  std::vector<std::uint64_t> cuts, counts;
  HostMemory keys, values;
};

// What the sorts of a bench share: the rank's sorter, its threads, its input and the model's
// buffers.
struct BenchRank {
  MPI_Comm comm;
  Sorter& sorter;
  const BenchArguments& args;
  KeyType type;
  unsigned threads;
  RankInput input;
  ModelBuffers model;
};

// Random bytes, generated in chunks of 8 MiB with seeds of their own on `threads` threads.
void fill_random(char* data, std::uint64_t bytes, std::uint64_t seed, unsigned threads) {
  constexpr std::uint64_t chunk_bytes = std::uint64_t{1} << 23;
  const std::uint64_t chunks = (bytes + chunk_bytes - 1) / chunk_bytes;
  // A chunk is a thread's worth of work: with the default of 65,536 items a thread, every input
  // below 512 TiB took one thread (16 GiB: 35 s on an H100 machine's host).
  parallel_chunks(
      chunks, threads,
      [&](unsigned, std::uint64_t first, std::uint64_t last) {
        for (std::uint64_t chunk = first; chunk < last; ++chunk) {
          std::mt19937_64 generator(seed * chunks + chunk);
          const std::uint64_t end = std::min(bytes, (chunk + 1) * chunk_bytes);
          for (std::uint64_t at = chunk * chunk_bytes; at < end; at += 8) {
            const std::uint64_t word = generator();
            std::memcpy(data + at, &word, std::min<std::uint64_t>(8, end - at));
          }
        }
      },
      1);
}

// Fresh random keys with their positions as values, and their digest.
void refill_input(BenchRank& rank, std::uint64_t seed) {
  RankInput& input = rank.input;
  const std::size_t value_bytes = rank.args.value_bytes;
  fill_random(input.keys.data.get(), input.n * key_size(rank.type), seed, rank.threads);
  std::uint64_t first = 0;
  MPI_Exscan(&input.n, &first, 1, MPI_UINT64_T, MPI_SUM, rank.comm);
  if (rank_of(rank.comm) == 0) first = 0;  // MPI leaves rank 0's result undefined
  write_positions(input.values.data.get(), input.n, value_bytes, first, rank.threads);
  input.digest = records_digest(input.keys.data.get(), input.values.data.get(), input.n, rank.type,
                                value_bytes, rank.threads);
}

// The model's exchange sends an equal share of the rank's keys (and values) to every rank.
ModelBuffers model_buffers(const BenchRank& rank) {
  const int ranks = size_of(rank.comm);
  ModelBuffers model;
  model.cuts.resize(ranks + 1);
  for (int j = 0; j <= ranks; ++j) model.cuts[j] = slice_start(rank.input.n, ranks, j);
  model.counts = exchange_counts(rank.comm, model.cuts);
  const std::uint64_t receiving =
      std::accumulate(model.counts.begin(), model.counts.end(), std::uint64_t{0});
  model.keys = touched_bytes(receiving * key_size(rank.type), rank.threads);
  model.values = touched_bytes(receiving * rank.args.value_bytes, rank.threads);
  return model;
}

// The model's all-to-all of the input's bytes into its preallocated buffers. Seconds, the
// slowest rank's.
double uniform_all_to_all(BenchRank& rank) {
  const std::size_t message = std::size_t{1} << 30, value_bytes = rank.args.value_bytes;
  MPI_Barrier(rank.comm);
  const auto start = Clock::now();
  exchange(rank.comm, rank.input.keys.data.get(), rank.model.cuts, rank.model.counts,
           key_size(rank.type), rank.model.keys.get(), message, rank.threads);
  if (value_bytes)
    exchange(rank.comm, rank.input.values.data.get(), rank.model.cuts, rank.model.counts,
             value_bytes, rank.model.values.get(), message, rank.threads);
  return slowest_rank(rank.comm, seconds_since(start));
}

// A rank's sorted slice on the host.
struct HostSlice {
  HostBytes keys, values;
  std::uint64_t count = 0;
};

Options options_of(const BenchArguments& args) {
  Options options;
  options.merge = args.merge;
  return options;
}

// mpi::sort_host_bytes into slice buffers touched on the rank's threads, as the library's
// sort_device allocates its own.
Slice sort_on_host(BenchRank& rank, HostSlice& output) {
  const std::size_t value_bytes = rank.args.value_bytes;
  return sort_host_bytes(
      rank.comm, rank.sorter, rank.input.keys.data.get(), rank.input.n, rank.type,
      rank.input.values.data.get(), value_bytes,
      [&](std::uint64_t count) {
        output.count = count;
        output.keys = HostBytes(count * key_size(rank.type), rank.threads);
        output.values = HostBytes(count * value_bytes, rank.threads);
        return std::pair<void*, void*>(output.keys.data.get(), output.values.data.get());
      },
      options_of(rank.args));
}

// The input in device buffers, for mpi::sort_device.
struct ResidentInput {
  cl::Buffer keys, values;
};

// The sorted slice read back from the device, for the check.
HostSlice read_back(const BenchRank& rank, const DeviceSlice& sorted) {
  const cl::CommandQueue& queue = rank.sorter.queue();
  const std::size_t value_bytes = rank.args.value_bytes;
  HostSlice output;
  output.count = sorted.slice.count;
  output.keys = read_buffer(queue, sorted.keys, output.count * key_size(rank.type), rank.threads);
  if (value_bytes)
    output.values = read_buffer(queue, sorted.values, output.count * value_bytes, rank.threads);
  return output;
}

// What one sort measured, each the slowest rank's: the whole sort, its phases, and the model's
// all-to-all of the same bytes; and rank 0's time around them (new input, the output's check).
struct Measurement {
  double wall = 0;
  PhaseTimes phases;
  double all_to_all = 0;
  double prepare = 0, check = 0;
};

// One timed distributed sort of fresh random data (host data, or device buffers with
// --resident), its output checked, then the model's all-to-all.
Measurement one_sort(BenchRank& rank, std::uint64_t seed) {
  const std::size_t value_bytes = rank.args.value_bytes;
  const std::uint64_t n = rank.input.n;
  Measurement measured;
  auto start = Clock::now();
  refill_input(rank, seed);
  std::optional<ResidentInput> resident;
  if (rank.args.resident)
    resident = ResidentInput{upload(rank.sorter.queue(), rank.input.keys),
                             upload(rank.sorter.queue(), rank.input.values)};
  measured.prepare = seconds_since(start);
  HostSlice output;
  DeviceSlice sorted;
  MPI_Barrier(rank.comm);
  start = Clock::now();
  if (resident)
    sorted =
        sort_device(rank.comm, rank.sorter, resident->keys, n, rank.type,
                    value_bytes ? &resident->values : nullptr, value_bytes, options_of(rank.args));
  else
    sorted.slice = sort_on_host(rank, output);
  measured.wall = slowest_rank(rank.comm, seconds_since(start));
  start = Clock::now();
  if (resident) output = read_back(rank, sorted);
  check_sorted_slices(rank.comm, output.keys.data.get(), output.values.data.get(), output.count,
                      rank.type, value_bytes, rank.input.digest);
  measured.check = seconds_since(start);
  const PhaseSeconds slow = slowest(rank.comm, phase_seconds(0, sorted.slice.times, 0));
  measured.phases = PhaseTimes{slow[1], slow[2], slow[3], slow[4]};
  measured.all_to_all = uniform_all_to_all(rank);
  return measured;
}

// Rank 0's line for one sort as it ends, so that a run stopped by a time limit shows how far it
// came and where its time went.
void report_sort(std::ostream& progress, const std::string& which, const Measurement& measured) {
  const PhaseTimes& phases = measured.phases;
  progress << std::fixed << std::setprecision(3) << "clsort-mpi bench: " << which << ": new input "
           << measured.prepare << " s, sort " << measured.wall << " s (local sort "
           << phases.local_sort << ", splitters " << phases.splitters << ", exchange "
           << phases.exchange << ", merge " << phases.merge << "), check " << measured.check
           << " s, all-to-all " << measured.all_to_all << " s" << std::endl;
}

}  // namespace

void bench(MPI_Comm comm, const BenchArguments& args, std::ostream& log, std::ostream& progress) {
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
  const unsigned threads = threads_per_rank(comm);
  const auto start = Clock::now();
  BenchRank rank{comm, *sorter, args, *type, threads, {}, {}};
  rank.input.n = n;
  rank.input.keys = HostBytes(n * key_size(*type), threads);
  rank.input.values = HostBytes(n * args.value_bytes, threads);
  rank.model = model_buffers(rank);
  if (me == 0)
    progress << std::fixed << std::setprecision(3) << "clsort-mpi bench: host buffers "
             << seconds_since(start) << " s" << std::endl;
  const Measurement warm_up = one_sort(rank, 7 + me);  // kernels, device buffers
  if (me == 0) report_sort(progress, "warm-up", warm_up);
  std::vector<double> walls, local, splitters, exchanges, merges, all_to_all;
  for (int repeat = 0; repeat < args.repeats; ++repeat) {
    const Measurement measured = one_sort(rank, 1000 * repeat + 2 * me);
    if (me == 0)
      report_sort(progress,
                  "sort " + std::to_string(repeat + 1) + " of " + std::to_string(args.repeats),
                  measured);
    walls.push_back(measured.wall);
    local.push_back(measured.phases.local_sort);
    splitters.push_back(measured.phases.splitters);
    exchanges.push_back(measured.phases.exchange);
    merges.push_back(measured.phases.merge);
    all_to_all.push_back(measured.all_to_all);
  }
  if (me != 0) return;
  const double wall = median(walls), model = median(local) + median(all_to_all);
  const double exchanged = static_cast<double>(n) * (key_size(*type) + args.value_bytes);
  log << std::fixed << std::setprecision(4) << "clsort-mpi bench: " << ranks << " ranks, "
      << (args.weak ? "weak" : "strong") << " scaling, " << total << " " << args.type << " keys"
      << (args.value_bytes ? " + " + std::to_string(args.value_bytes) + "-byte values" : "")
      << (args.resident ? " in device buffers" : " in host memory") << " on " << device_name
      << " (rank 0), every output checked\n  sort " << wall << " s (" << std::setprecision(1)
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
      << median(all_to_all) << "," << model << "," << wall / model << ","
      << (args.resident ? "device" : "host") << "," << merge_place_name(args.merge) << "\n";
}

}  // namespace clsort::mpi
