// Exact splitters: where each rank's locally sorted keys are cut so that every rank gets its
// share of the global order.
#include "selection.hpp"

#include <algorithm>

#include "collective.hpp"
#include "sort_keys.hpp"

namespace clsort::mpi {

std::uint64_t slice_start(std::uint64_t total, int ranks, int j) {
  // floor(total * j / ranks) without the product overflowing.
  const std::uint64_t p = static_cast<std::uint64_t>(ranks), share = static_cast<std::uint64_t>(j);
  return share * (total / p) + share * (total % p) / p;
}

namespace {

std::vector<std::uint64_t> sum_over_ranks(MPI_Comm comm, std::vector<std::uint64_t> local) {
  std::vector<std::uint64_t> total(local.size());
  MPI_Allreduce(local.data(), total.data(), static_cast<int>(local.size()), MPI_UINT64_T, MPI_SUM,
                comm);
  return total;
}

// Probes per target and round: each round narrows every search range 16-fold, so a 32-bit key
// takes 8 rounds of one Allreduce (latency, not volume, is their cost).
constexpr std::uint64_t probes = 15;

// The q-th of `probes` points splitting [low, high] evenly, without overflow.
std::uint64_t probe(std::uint64_t low, std::uint64_t high, std::uint64_t q) {
  const std::uint64_t span = high - low, parts = probes + 1;
  return low + q * (span / parts) + q * (span % parts) / parts;
}

// For each target global position t, the smallest sort key v with more than t keys at or
// below v over all ranks: the key of the element at position t.
template <class K>
std::vector<std::uint64_t> keys_at(MPI_Comm comm, const SortKeys<K>& keys,
                                   const std::vector<std::uint64_t>& targets) {
  std::vector<std::uint64_t> low(targets.size(), 0), high(targets.size(), keys.max());
  while (low != high) {  // the same on every rank: the counts are global
    std::vector<std::uint64_t> points, counts;
    for (std::size_t j = 0; j < targets.size(); ++j)
      for (std::uint64_t q = 1; q <= probes; ++q) {
        points.push_back(probe(low[j], high[j], q));
        counts.push_back(keys.count_up_to(points.back()));
      }
    counts = sum_over_ranks(comm, counts);
    for (std::size_t j = 0; j < targets.size(); ++j) {
      std::uint64_t new_low = low[j], new_high = high[j];
      for (std::uint64_t q = 0; q < probes; ++q) {
        const std::size_t at = j * probes + q;
        if (counts[at] > targets[j]) {
          new_high = std::min(new_high, points[at]);
          break;
        }
        new_low = std::max(new_low, points[at] + 1);
      }
      low[j] = new_low;
      high[j] = new_high;
    }
  }
  return low;
}

template <class K>
std::vector<std::uint64_t> cuts_of(MPI_Comm comm, const K* sorted, std::uint64_t n,
                                   const SortOptions& options) {
  const int ranks = size_of(comm);
  const SortKeys<K> keys(sorted, n, options);
  const std::uint64_t total = sum_over_ranks(comm, {n})[0];
  std::vector<std::uint64_t> cuts(ranks + 1, 0);
  cuts[ranks] = n;
  if (ranks == 1) return cuts;
  std::vector<std::uint64_t> targets(ranks - 1);
  for (int j = 1; j < ranks; ++j) targets[j - 1] = std::min(slice_start(total, ranks, j), total);
  if (total == 0) return cuts;
  const std::vector<std::uint64_t> split_keys = keys_at(comm, keys, targets);

  // Keys below each splitter key go before the cut; equal ones are shared out in rank order.
  std::vector<std::uint64_t> below(targets.size()), equal(targets.size());
  for (std::size_t j = 0; j < targets.size(); ++j) {
    below[j] = keys.count_below(split_keys[j]);
    equal[j] = keys.count_up_to(split_keys[j]) - below[j];
  }
  const std::vector<std::uint64_t> below_everywhere = sum_over_ranks(comm, below);
  std::vector<std::uint64_t> equal_before(targets.size(), 0);
  MPI_Exscan(equal.data(), equal_before.data(), static_cast<int>(equal.size()), MPI_UINT64_T,
             MPI_SUM, comm);
  if (rank_of(comm) == 0) std::fill(equal_before.begin(), equal_before.end(), 0);
  for (std::size_t j = 0; j < targets.size(); ++j) {
    const std::uint64_t still_needed = targets[j] - below_everywhere[j];
    const std::uint64_t mine =
        still_needed > equal_before[j] ? std::min(still_needed - equal_before[j], equal[j]) : 0;
    cuts[j + 1] = below[j] + mine;
  }
  return cuts;
}

}  // namespace

std::vector<std::uint64_t> find_cuts(MPI_Comm comm, const void* sorted_keys, std::uint64_t n,
                                     KeyType type, const SortOptions& options) {
  return with_key_type(type, [&](auto tag) {
    using K = typename decltype(tag)::type;
    return cuts_of(comm, static_cast<const K*>(sorted_keys), n, options);
  });
}

}  // namespace clsort::mpi
