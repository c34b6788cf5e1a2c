// clsort::mpi: a collective sort across the ranks of an MPI communicator, each with its own device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include <mpi.h>

#include <clsort/key_order.hpp>
#include <clsort/sorter.hpp>

namespace clsort::mpi {

/// Where a rank merges the sorted pieces it receives.
enum class MergePlace {
  automatic,  ///< on the host when the rank's device is a CPU, else on the device
  host,       ///< a stable multi-threaded merge in host memory (a scratch copy of the slice)
  device,     ///< a stable sort of the pieces' concatenation on the rank's device
};

/// Options of a distributed sort.
struct Options {
  /// Order, bit range and pass checks, as for one device; every rank must pass the same.
  SortOptions sort;
  /// Largest single message of the all-to-all exchange in bytes (at most 2^31 - 1, since MPI
  /// counts are int): a rank's piece for a peer beyond it travels as several messages.
  std::size_t max_message_bytes = std::size_t{1} << 30;
  /// Where the received pieces are merged; every rank may choose for itself.
  MergePlace merge = MergePlace::automatic;
};

/// Seconds each phase took on this rank.
struct PhaseTimes {
  double local_sort = 0;  ///< sorting the rank's own keys on its device
  double splitters = 0;   ///< finding where each rank's slice begins (exact selection)
  double exchange = 0;    ///< the all-to-all exchange of keys and values
  double merge = 0;       ///< merging the received pieces (and, for device data, the upload)
};

/// Where this rank's slice lies in the globally sorted sequence.
struct Slice {
  std::uint64_t offset = 0;  ///< global position of the slice's first key
  std::uint64_t count = 0;   ///< keys in the slice
  std::uint64_t total = 0;   ///< keys over all ranks
  PhaseTimes times;
};

/// Storage for a rank's slice: called once with its length, returns where its keys (and values,
/// null for keys only) go.
using SliceStorage = std::function<std::pair<void*, void*>(std::uint64_t count)>;

/// The collective sort, type-erased. Every rank of `comm` calls it with its n local keys of
/// `type` (and values of `value_bytes` each, 0 for none) and a Sorter for its own device. The
/// local data are sorted in place on the way. Rank r receives the r-th slice of the global
/// order: keys [r*N/P, (r+1)*N/P) of the N keys, ordered as a stable sort of all ranks' keys
/// concatenated in rank order. Slices are exactly balanced whatever the keys (the splitters are
/// found by exact selection, ties broken by rank and position). Host memory per rank: its
/// input, its slice, a scratch copy of the slice when merging on the host, and the device
/// sorts' staging. A failure on any rank (device, memory) throws clsort::Error on every rank,
/// naming the failing rank; the input data are then left in an unspecified order.
Slice sort_host_bytes(MPI_Comm comm, Sorter& sorter, void* keys, std::uint64_t n, KeyType type,
                      void* values, std::size_t value_bytes, const SliceStorage& storage,
                      const Options& options = {});

/// Sorts across the ranks: on return `keys` holds this rank's slice of the global order.
template <class K>
Slice sort(MPI_Comm comm, Sorter& sorter, std::vector<K>& keys, const Options& options = {}) {
  std::vector<K> slice;
  const Slice where = sort_host_bytes(
      comm, sorter, keys.data(), keys.size(), key_type_of<K>(), nullptr, 0,
      [&slice](std::uint64_t count) {
        slice.resize(count);
        return std::pair<void*, void*>(slice.data(), nullptr);
      },
      options);
  keys.swap(slice);
  return where;
}

/// Sorts key/value pairs across the ranks: on return `keys` and `values` hold this rank's slice.
template <class K, class V>
Slice sort_pairs(MPI_Comm comm, Sorter& sorter, std::vector<K>& keys, std::vector<V>& values,
                 const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<V> && is_supported_value_size(sizeof(V)),
                "values must be trivially copyable and 1, 2, 4, 8 or 16 bytes");
  if (keys.size() != values.size())
    throw Error("mpi::sort_pairs", "keys and values differ in length (" +
                                       std::to_string(keys.size()) + " vs " +
                                       std::to_string(values.size()) + ")");
  std::vector<K> key_slice;
  std::vector<V> value_slice;
  const Slice where = sort_host_bytes(
      comm, sorter, keys.data(), keys.size(), key_type_of<K>(), values.data(), sizeof(V),
      [&](std::uint64_t count) {
        key_slice.resize(count);
        value_slice.resize(count);
        return std::pair<void*, void*>(key_slice.data(), value_slice.data());
      },
      options);
  keys.swap(key_slice);
  values.swap(value_slice);
  return where;
}

/// A rank's slice in device memory.
struct DeviceSlice {
  cl::Buffer keys;
  cl::Buffer values;  ///< null for keys only
  Slice slice;
};

/// The collective sort of device buffers: the first n keys of `keys` (and their values, of
/// `value_bytes` each, when `values` is not null) on this rank's Sorter's device. The local
/// sort runs on the device in place; the exchange goes through host memory (no GPU-aware MPI
/// is assumed); the slice comes back in new buffers of the Sorter's context.
DeviceSlice sort_device(MPI_Comm comm, Sorter& sorter, const cl::Buffer& keys, std::uint64_t n,
                        KeyType type, const cl::Buffer* values, std::size_t value_bytes,
                        const Options& options = {});

}  // namespace clsort::mpi
