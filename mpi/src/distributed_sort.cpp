// The distributed sort: local sort, exact splitters, all-to-all exchange, stable merge.
#include <numeric>
#include <vector>

#include <clsort/mpi.hpp>

#include "collective.hpp"
#include "device_copies.hpp"
#include "exchange.hpp"
#include "host_merge.hpp"
#include "host_threads.hpp"
#include "selection.hpp"
#include "stopwatch.hpp"

namespace clsort::mpi {

namespace {

// Pieces from more than one rank need merging; one piece is already in order.
bool needs_merge(const std::vector<std::uint64_t>& receive_counts) {
  int pieces = 0;
  for (std::uint64_t count : receive_counts) pieces += count != 0;
  return pieces > 1;
}

std::uint64_t total_of(const std::vector<std::uint64_t>& counts) {
  return std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
}

std::uint64_t offset_of(MPI_Comm comm, std::uint64_t count) {
  std::uint64_t before = 0;
  MPI_Exscan(&count, &before, 1, MPI_UINT64_T, MPI_SUM, comm);
  return rank_of(comm) == 0 ? 0 : before;
}

// Sorts the received slice (its keys, its values and the count from each rank) in place.
using Merge = std::function<void(void*, void*, const std::vector<std::uint64_t>&)>;

// Where the received pieces are merged: `Options::merge`, or for `automatic` on the host when the
// rank's device is a CPU (whose device sort would run on the same cores, with a device sort's
// passes and copies), on the device otherwise.
bool merges_on_host(const Options& options, const Sorter& sorter) {
  if (options.merge != MergePlace::automatic) return options.merge == MergePlace::host;
  const cl::Device device = sorter.queue().getInfo<CL_QUEUE_DEVICE>();
  return (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0;
}

// Everything after the local sort, on host data: cuts, exchange, merge.
Slice distribute_sorted(MPI_Comm comm, const void* keys, std::uint64_t n, KeyType type,
                        const void* values, std::size_t value_bytes, const SliceStorage& storage,
                        const Options& options, unsigned threads, const Merge& merge, Slice where) {
  auto start = Clock::now();
  const std::vector<std::uint64_t> cuts = find_cuts(comm, keys, n, type, options.sort);
  where.times.splitters = seconds_since(start);

  start = Clock::now();
  const std::vector<std::uint64_t> counts = exchange_counts(comm, cuts);
  where.count = total_of(counts);
  std::pair<void*, void*> slice;
  on_every_rank(comm, "allocate the slice", [&] { slice = storage(where.count); });
  exchange(comm, keys, cuts, counts, key_size(type), slice.first, options.max_message_bytes,
           threads);
  if (value_bytes)
    exchange(comm, values, cuts, counts, value_bytes, slice.second, options.max_message_bytes,
             threads);
  where.times.exchange = seconds_since(start);

  start = Clock::now();
  on_every_rank(comm, "merge", [&] {
    if (needs_merge(counts)) merge(slice.first, slice.second, counts);
  });
  where.times.merge = seconds_since(start);
  MPI_Allreduce(&n, &where.total, 1, MPI_UINT64_T, MPI_SUM, comm);
  where.offset = offset_of(comm, where.count);
  return where;
}

}  // namespace

Slice sort_host_bytes(MPI_Comm comm, Sorter& sorter, void* keys, std::uint64_t n, KeyType type,
                      void* values, std::size_t value_bytes, const SliceStorage& storage,
                      const Options& options) {
  Slice where;
  const auto start = Clock::now();
  on_every_rank(comm, "local sort",
                [&] { sorter.sort_host_bytes(keys, n, type, values, value_bytes, options.sort); });
  where.times.local_sort = seconds_since(start);
  // The received pieces are each sorted and arrive in rank order: a stable merge of them, or a
  // stable sort of their concatenation, keeps equal keys in (rank, position) order.
  const unsigned threads = threads_per_rank(comm);
  const bool on_host = merges_on_host(options, sorter);
  const Merge merge = [&](void* slice_keys, void* slice_values,
                          const std::vector<std::uint64_t>& counts) {
    if (on_host)
      merge_runs(slice_keys, slice_values, counts, type, value_bytes, options.sort, threads);
    else
      sorter.sort_host_bytes(slice_keys, total_of(counts), type, slice_values, value_bytes,
                             options.sort);
  };
  return distribute_sorted(comm, keys, n, type, values, value_bytes, storage, options, threads,
                           merge, where);
}

DeviceSlice sort_device(MPI_Comm comm, Sorter& sorter, const cl::Buffer& keys, std::uint64_t n,
                        KeyType type, const cl::Buffer* values, std::size_t value_bytes,
                        const Options& options) {
  const cl::CommandQueue& queue = sorter.queue();
  if (!values) value_bytes = 0;
  const unsigned threads = threads_per_rank(comm);
  Slice where;
  HostBytes host_keys, host_values;
  const auto start = Clock::now();
  on_every_rank(comm, "local sort", [&] {
    if (n) {
      cl::Event done = value_bytes
                           ? sorter.sort_pairs(keys, *values, n, type, value_bytes, options.sort)
                           : sorter.sort(keys, n, type, options.sort);
      done.wait();
    }
    host_keys = read_buffer(queue, keys, n * key_size(type), threads);
    if (value_bytes) host_values = read_buffer(queue, *values, n * value_bytes, threads);
  });
  where.times.local_sort = seconds_since(start);

  HostBytes slice_keys, slice_values;
  const SliceStorage storage = [&](std::uint64_t count) {
    slice_keys = HostBytes(count * key_size(type), threads);
    slice_values = HostBytes(count * value_bytes, threads);
    return std::pair<void*, void*>(slice_keys.data.get(), slice_values.data.get());
  };
  DeviceSlice result;
  // Merged on the host and uploaded, or uploaded and sorted on the device; the host copies are
  // only the exchange's.
  const bool on_host = merges_on_host(options, sorter);
  const Merge merge = [&](void* slice_keys_at, void* slice_values_at,
                          const std::vector<std::uint64_t>& counts) {
    if (on_host)
      merge_runs(slice_keys_at, slice_values_at, counts, type, value_bytes, options.sort, threads);
    result.keys = upload(queue, slice_keys);
    if (value_bytes) result.values = upload(queue, slice_values);
    if (on_host) return;
    const std::uint64_t count = total_of(counts);
    cl::Event done = value_bytes ? sorter.sort_pairs(result.keys, result.values, count, type,
                                                     value_bytes, options.sort)
                                 : sorter.sort(result.keys, count, type, options.sort);
    done.wait();
  };
  result.slice = distribute_sorted(comm, host_keys.data.get(), n, type, host_values.data.get(),
                                   value_bytes, storage, options, threads, merge, where);
  on_every_rank(comm, "upload the slice", [&] {
    if (result.keys()) return;  // uploaded by the merge already
    result.keys = upload(queue, slice_keys);
    if (value_bytes) result.values = upload(queue, slice_values);
  });
  return result;
}

}  // namespace clsort::mpi
