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
#include "../src/exchange.hpp"
#include "../src/selection.hpp"
#include "../src/stopwatch.hpp"
#include "parallel_chunks.hpp"
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

// Random bytes, generated in chunks of 8 MiB with seeds of their own on `threads` threads.
std::vector<char> random_bytes(std::uint64_t bytes, std::uint64_t seed, unsigned threads) {
  constexpr std::uint64_t chunk_bytes = std::uint64_t{1} << 23;
  std::vector<char> data(bytes);
  const std::uint64_t chunks = (bytes + chunk_bytes - 1) / chunk_bytes;
  parallel_chunks(chunks, threads, [&](unsigned, std::uint64_t first, std::uint64_t last) {
    for (std::uint64_t chunk = first; chunk < last; ++chunk) {
      std::mt19937_64 generator(seed * chunks + chunk);
      const std::uint64_t end = std::min(bytes, (chunk + 1) * chunk_bytes);
      for (std::uint64_t at = chunk * chunk_bytes; at < end; at += 8) {
        const std::uint64_t word = generator();
        std::memcpy(data.data() + at, &word, std::min<std::uint64_t>(8, end - at));
      }
    }
  });
  return data;
}

// A rank's input: random keys with their global positions as values (so that the check sees
// stability), and the records' digest.
struct RankInput {
  std::vector<char> keys, values;
  std::uint64_t digest = 0;
};

RankInput make_input(MPI_Comm comm, KeyType type, std::uint64_t n, std::size_t value_bytes,
                     std::uint64_t seed) {
  const unsigned threads = threads_per_rank(comm);
  RankInput input{random_bytes(n * key_size(type), seed, threads),
                  std::vector<char>(n * value_bytes), 0};
  std::uint64_t first = 0;
  MPI_Exscan(&n, &first, 1, MPI_UINT64_T, MPI_SUM, comm);
  if (rank_of(comm) == 0) first = 0;  // MPI leaves rank 0's result undefined
  write_positions(input.values.data(), n, value_bytes, first, threads);
  input.digest =
      records_digest(input.keys.data(), input.values.data(), n, type, value_bytes, threads);
  return input;
}

// A rank's sorted slice on the host. Left uninitialised until the exchange fills it, as a
// program would: zero-filling it first would add a pass over its memory to the exchange.
struct HostSlice {
  std::unique_ptr<char[]> keys, values;
  std::uint64_t count = 0;
};

Slice sort_on_host(MPI_Comm comm, Sorter& sorter, KeyType type, std::uint64_t n,
                   std::size_t value_bytes, RankInput& input, HostSlice& output) {
  return sort_host_bytes(
      comm, sorter, input.keys.data(), n, type, input.values.data(), value_bytes,
      [&](std::uint64_t count) {
        output.count = count;
        output.keys.reset(new char[std::max<std::uint64_t>(count * key_size(type), 1)]);
        output.values.reset(new char[std::max<std::uint64_t>(count * value_bytes, 1)]);
        return std::pair<void*, void*>(output.keys.get(), output.values.get());
      },
      Options{});
}

cl::Buffer device_copy(Sorter& sorter, const std::vector<char>& host) {
  cl::Buffer buffer(sorter.queue().getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE,
                    std::max<std::size_t>(host.size(), 1));
  if (!host.empty())
    sorter.queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, host.size(), host.data());
  return buffer;
}

std::unique_ptr<char[]> host_copy(Sorter& sorter, const cl::Buffer& buffer, std::uint64_t bytes) {
  std::unique_ptr<char[]> host(new char[std::max<std::uint64_t>(bytes, 1)]);
  if (bytes) sorter.queue().enqueueReadBuffer(buffer, CL_TRUE, 0, bytes, host.get());
  return host;
}

// The input in device buffers, for mpi::sort_device.
struct ResidentInput {
  cl::Buffer keys, values;
};

// The sorted slice read back from the device, for the check.
HostSlice read_back(Sorter& sorter, const DeviceSlice& sorted, KeyType type,
                    std::size_t value_bytes) {
  HostSlice output;
  output.count = sorted.slice.count;
  output.keys = host_copy(sorter, sorted.keys, output.count * key_size(type));
  if (value_bytes) output.values = host_copy(sorter, sorted.values, output.count * value_bytes);
  return output;
}

// The model's exchange: every rank sends an equal share of its keys (and values) to every rank,
// from its input into buffers touched beforehand (as preallocated buffers would be). Seconds,
// the slowest rank's.
double uniform_all_to_all(MPI_Comm comm, const RankInput& input, std::uint64_t n, KeyType type,
                          std::size_t value_bytes) {
  const int ranks = size_of(comm);
  std::vector<std::uint64_t> cuts(ranks + 1);
  for (int j = 0; j <= ranks; ++j) cuts[j] = slice_start(n, ranks, j);
  const std::vector<std::uint64_t> counts = exchange_counts(comm, cuts);
  const std::uint64_t receiving = std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
  std::vector<char> keys(receiving * key_size(type)), values(receiving * value_bytes);
  MPI_Barrier(comm);
  const auto start = Clock::now();
  const std::size_t message = std::size_t{1} << 30;
  exchange(comm, input.keys.data(), cuts, counts, key_size(type), keys.data(), message);
  if (value_bytes)
    exchange(comm, input.values.data(), cuts, counts, value_bytes, values.data(), message);
  return slowest_rank(comm, seconds_since(start));
}

// What one sort measured, each the slowest rank's: the whole sort, its phases, and the model's
// all-to-all of the same bytes.
struct Measurement {
  double wall = 0;
  PhaseTimes phases;
  double all_to_all = 0;
};

// One timed distributed sort of fresh random data (host data, or device buffers with
// `resident`), its output checked, then the model's all-to-all.
Measurement one_sort(MPI_Comm comm, Sorter& sorter, const BenchArguments& args, KeyType type,
                     std::uint64_t n, std::uint64_t seed) {
  const std::size_t value_bytes = args.value_bytes;
  RankInput input = make_input(comm, type, n, value_bytes, seed);
  std::optional<ResidentInput> resident;
  if (args.resident)
    resident = ResidentInput{device_copy(sorter, input.keys), device_copy(sorter, input.values)};
  HostSlice output;
  DeviceSlice sorted;
  MPI_Barrier(comm);
  const auto start = Clock::now();
  if (resident)
    sorted = sort_device(comm, sorter, resident->keys, n, type,
                         value_bytes ? &resident->values : nullptr, value_bytes);
  else
    sorted.slice = sort_on_host(comm, sorter, type, n, value_bytes, input, output);
  Measurement measured;
  measured.wall = slowest_rank(comm, seconds_since(start));
  if (resident) output = read_back(sorter, sorted, type, value_bytes);
  check_sorted_slices(comm, output.keys.get(), output.values.get(), output.count, type, value_bytes,
                      input.digest);
  const PhaseSeconds slow = slowest(comm, phase_seconds(0, sorted.slice.times, 0));
  measured.phases = PhaseTimes{slow[1], slow[2], slow[3], slow[4]};
  output = HostSlice{};  // its memory back before the model's buffers take theirs
  sorted = DeviceSlice{};
  measured.all_to_all = uniform_all_to_all(comm, input, n, type, value_bytes);
  return measured;
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
  one_sort(comm, *sorter, args, *type, n, 7 + me);  // warm-up: kernels, buffers
  std::vector<double> walls, local, splitters, exchanges, merges, all_to_all;
  for (int repeat = 0; repeat < args.repeats; ++repeat) {
    const Measurement measured = one_sort(comm, *sorter, args, *type, n, 1000 * repeat + 2 * me);
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
      << (args.resident ? "device" : "host") << "\n";
}

}  // namespace clsort::mpi
