// The distributed sort's merge on the host: sorted runs, in rank order, become one sorted run.
#include "host_merge.hpp"

#include <algorithm>
#include <type_traits>
#include <utility>

#include <clsort/key_order.hpp>

#include "host_threads.hpp"
#include "sort_keys.hpp"

namespace clsort::mpi {

namespace {

// A value of `Bytes` bytes, moved whole.
template <std::size_t Bytes>
struct Value {
  unsigned char bytes[Bytes == 0 ? 1 : Bytes];
};

// Keys and values of one buffer: the runs' source, or their destination.
template <class K, std::size_t ValueBytes>
struct Records {
  K* keys;
  Value<ValueBytes>* values;

  void take(std::uint64_t to, const Records& from, std::uint64_t at) const {
    keys[to] = from.keys[at];
    if constexpr (ValueBytes > 0) values[to] = from.values[at];
  }
};

// A run of the source: its first position and its length.
struct Run {
  std::uint64_t begin, count;
};

// How many of the first `out` records of merging runs a and b come from a, a's first among
// equal keys: the smallest i such that a[i] does not precede b[out - i - 1].
template <class K>
std::uint64_t taken_from_first(const SortKeys<K>& key, Run a, Run b, std::uint64_t out) {
  std::uint64_t low = out > b.count ? out - b.count : 0, high = std::min(out, a.count);
  while (low < high) {
    const std::uint64_t middle = low + (high - low) / 2;
    if (key.at(a.begin + middle) <= key.at(b.begin + out - middle - 1))
      low = middle + 1;
    else
      high = middle;
  }
  return low;
}

// Merges runs a and b of `source` (consecutive) into the same positions of `target`, on
// `threads` threads each taking an equal share of the output.
template <class K, std::size_t ValueBytes>
void merge_pair(const Records<K, ValueBytes>& source, const Records<K, ValueBytes>& target,
                const SortKeys<K>& key, Run a, Run b, unsigned threads) {
  parallel_chunks(a.count + b.count, threads,
                  [&](unsigned, std::uint64_t out_begin, std::uint64_t out_end) {
                    std::uint64_t i = taken_from_first(key, a, b, out_begin);
                    std::uint64_t j = out_begin - i;
                    const std::uint64_t i_end = taken_from_first(key, a, b, out_end);
                    const std::uint64_t j_end = out_end - i_end;
                    std::uint64_t to = a.begin + out_begin;
                    while (i < i_end && j < j_end) {
                      if (key.at(b.begin + j) < key.at(a.begin + i))
                        target.take(to++, source, b.begin + j++);
                      else
                        target.take(to++, source, a.begin + i++);
                    }
                    while (i < i_end) target.take(to++, source, a.begin + i++);
                    while (j < j_end) target.take(to++, source, b.begin + j++);
                  });
}

template <class K, std::size_t ValueBytes>
void merge_typed(K* keys, void* values, const std::vector<std::uint64_t>& run_counts,
                 const SortOptions& options, unsigned threads) {
  std::vector<Run> runs;
  std::uint64_t total = 0;
  for (std::uint64_t count : run_counts) {
    if (count) runs.push_back({total, count});
    total += count;
  }
  if (runs.size() < 2) return;
  const auto scratch_keys = touched_bytes(total * sizeof(K), threads);
  const auto scratch_values = touched_bytes(total * ValueBytes, threads);
  Records<K, ValueBytes> source{keys, static_cast<Value<ValueBytes>*>(values)};
  Records<K, ValueBytes> target{reinterpret_cast<K*>(scratch_keys.get()),
                                reinterpret_cast<Value<ValueBytes>*>(scratch_values.get())};
  while (runs.size() > 1) {
    const SortKeys<K> key(source.keys, total, options);
    std::vector<Run> merged;
    for (std::size_t r = 0; r + 1 < runs.size(); r += 2) {
      merge_pair(source, target, key, runs[r], runs[r + 1], threads);
      merged.push_back({runs[r].begin, runs[r].count + runs[r + 1].count});
    }
    if (runs.size() % 2) {  // the odd run out moves as it is
      const Run last = runs.back();
      parallel_copy(target.keys + last.begin, source.keys + last.begin, last.count * sizeof(K),
                    threads);
      if constexpr (ValueBytes > 0)
        parallel_copy(target.values + last.begin, source.values + last.begin,
                      last.count * ValueBytes, threads);
      merged.push_back(last);
    }
    runs = std::move(merged);
    std::swap(source, target);
  }
  if (source.keys == keys) return;
  parallel_copy(keys, source.keys, total * sizeof(K), threads);
  if constexpr (ValueBytes > 0) parallel_copy(values, source.values, total * ValueBytes, threads);
}

// Calls f(std::integral_constant<std::size_t, value_bytes>{}) for the value sizes a sort moves.
template <class F>
void with_value_size(std::size_t value_bytes, F&& f) {
  switch (value_bytes) {
    case 0:
      return f(std::integral_constant<std::size_t, 0>{});
    case 1:
      return f(std::integral_constant<std::size_t, 1>{});
    case 2:
      return f(std::integral_constant<std::size_t, 2>{});
    case 4:
      return f(std::integral_constant<std::size_t, 4>{});
    case 8:
      return f(std::integral_constant<std::size_t, 8>{});
    default:
      return f(std::integral_constant<std::size_t, 16>{});
  }
}

}  // namespace

void merge_runs(void* keys, void* values, const std::vector<std::uint64_t>& run_counts,
                KeyType type, std::size_t value_bytes, const SortOptions& options,
                unsigned threads) {
  with_key_type(type, [&](auto key_tag) {
    using K = typename decltype(key_tag)::type;
    with_value_size(value_bytes, [&](auto size) {
      merge_typed<K, decltype(size)::value>(static_cast<K*>(keys), values, run_counts, options,
                                            threads);
    });
  });
}

}  // namespace clsort::mpi
