// Checks a distributed sort's output: each slice in order, the slices in rank order, no pair lost.
#include "slice_check.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include <clsort/error.hpp>
#include <clsort/key_order.hpp>

#include "../src/collective.hpp"
#include "../src/host_threads.hpp"

namespace clsort::mpi {

namespace {

// splitmix64's finaliser: every input bit moves every output bit.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The first min(bytes, 8) bytes at `at`, little-endian, as a number.
std::uint64_t load_word(const char* at, std::size_t bytes) {
  std::uint64_t word = 0;
  std::memcpy(&word, at, std::min<std::size_t>(bytes, 8));
  return word;
}

// Key i's ordered bits (what the sort compares), widened.
template <class K>
std::uint64_t ordered_key(const void* keys, std::uint64_t i) {
  K key;
  std::memcpy(&key, static_cast<const char*>(keys) + i * sizeof(K), sizeof(K));
  return ordered_bits(key);
}

std::uint64_t position_of(const void* values, std::uint64_t i, std::size_t value_bytes) {
  return load_word(static_cast<const char*>(values) + i * value_bytes, value_bytes);
}

// Where keys i - 1 and i of one ordered sequence break the sort, if they do.
const char* order_fault(std::uint64_t key_before, std::uint64_t key, std::uint64_t position_before,
                        std::uint64_t position, bool check_stability) {
  if (key_before > key) return "keys out of order";
  if (check_stability && key_before == key && position_before >= position)
    return "equal keys out of their input order";
  return nullptr;
}

// The first i (with its fault) at which keys i - 1 and i of the slice break the order, or
// (count, null).
template <class Position>
std::pair<std::uint64_t, const char*> first_order_fault(const void* keys, std::uint64_t count,
                                                        KeyType type, const Position& position,
                                                        bool stability, unsigned threads) {
  std::vector<std::pair<std::uint64_t, const char*>> faults(std::max(threads, 1u),
                                                            {count, nullptr});
  with_key_type(type, [&](auto tag) {
    using K = typename decltype(tag)::type;
    parallel_chunks(count, threads, [&](unsigned t, std::uint64_t begin, std::uint64_t end) {
      for (std::uint64_t i = std::max<std::uint64_t>(begin, 1); i < end; ++i) {
        const char* fault = order_fault(ordered_key<K>(keys, i - 1), ordered_key<K>(keys, i),
                                        position(i - 1), position(i), stability);
        if (fault) {
          faults[t] = {i, fault};
          return;
        }
      }
    });
  });
  return *std::min_element(faults.begin(), faults.end(),
                           [](const auto& a, const auto& b) { return a.first < b.first; });
}

// This rank's first and last key and position, and whether it has any.
struct SliceEnds {
  std::uint64_t nonempty, first_key, first_position, last_key, last_position;
};

std::vector<SliceEnds> gather_ends(MPI_Comm comm, const SliceEnds& mine) {
  std::vector<SliceEnds> all(size_of(comm));
  MPI_Allgather(&mine, 5, MPI_UINT64_T, all.data(), 5, MPI_UINT64_T, comm);
  return all;
}

}  // namespace

std::uint64_t records_digest(const void* keys, const void* values, std::uint64_t n, KeyType type,
                             std::size_t value_bytes, unsigned threads) {
  const std::size_t key_bytes = key_size(type);
  const char* key_at = static_cast<const char*>(keys);
  const char* value_at = static_cast<const char*>(values);
  std::vector<std::uint64_t> sums(std::max(threads, 1u), 0);
  parallel_chunks(n, threads, [&](unsigned t, std::uint64_t begin, std::uint64_t end) {
    std::uint64_t sum = 0;
    for (std::uint64_t i = begin; i < end; ++i) {
      std::uint64_t record = mix(load_word(key_at + i * key_bytes, key_bytes));
      if (value_bytes) {
        const char* value = value_at + i * value_bytes;
        record = mix(record ^ load_word(value, value_bytes));
        if (value_bytes > 8) record = mix(record ^ load_word(value + 8, value_bytes - 8));
      }
      sum += record;
    }
    sums[t] = sum;
  });
  return std::accumulate(sums.begin(), sums.end(), std::uint64_t{0});
}

void write_positions(void* values, std::uint64_t n, std::size_t value_bytes, std::uint64_t first,
                     unsigned threads) {
  char* at = static_cast<char*>(values);
  parallel_chunks(n, threads, [&](unsigned, std::uint64_t begin, std::uint64_t end) {
    std::memset(at + begin * value_bytes, 0, (end - begin) * value_bytes);
    for (std::uint64_t i = begin; i < end; ++i) {
      const std::uint64_t position = first + i;
      std::memcpy(at + i * value_bytes, &position, std::min<std::size_t>(value_bytes, 8));
    }
  });
}

void check_sorted_slices(MPI_Comm comm, const void* keys, const void* values, std::uint64_t count,
                         KeyType type, std::size_t value_bytes, std::uint64_t input_digest) {
  const unsigned threads = threads_per_rank(comm);
  std::uint64_t total = 0;
  std::uint64_t output_digest = records_digest(keys, values, count, type, value_bytes, threads);
  MPI_Allreduce(&count, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, &input_digest, 1, MPI_UINT64_T, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, &output_digest, 1, MPI_UINT64_T, MPI_SUM, comm);
  // Positions are unique, so they show stability, when the values hold every one of them.
  const bool stability = value_bytes >= 8 || (value_bytes > 0 && total >> (8 * value_bytes) == 0);
  const auto position = [&](std::uint64_t i) {
    return stability ? position_of(values, i, value_bytes) : 0;
  };
  SliceEnds mine{count != 0, 0, 0, 0, 0};
  if (count)
    with_key_type(type, [&](auto tag) {
      using K = typename decltype(tag)::type;
      mine = {1, ordered_key<K>(keys, 0), position(0), ordered_key<K>(keys, count - 1),
              position(count - 1)};
    });
  const std::vector<SliceEnds> ends = gather_ends(comm, mine);
  on_every_rank(comm, "check", [&] {
    if (input_digest != output_digest)
      throw Error("check", "the sorted records over all ranks are not the input's");
    const auto [at, fault] = first_order_fault(keys, count, type, position, stability, threads);
    if (fault)
      throw Error("check", std::string(fault) + " at slice positions " + std::to_string(at - 1) +
                               " and " + std::to_string(at));
    const int me = rank_of(comm);
    for (int before = me - 1; count && before >= 0; --before) {
      if (!ends[before].nonempty) continue;
      const char* fault = order_fault(ends[before].last_key, mine.first_key,
                                      ends[before].last_position, mine.first_position, stability);
      if (fault)
        throw Error("check", std::string(fault) + " between rank " + std::to_string(before) +
                                 "'s last key and this rank's first");
      break;
    }
  });
}

}  // namespace clsort::mpi
