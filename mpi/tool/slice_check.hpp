// Checks a distributed sort's output: each slice in order, the slices in rank order, no pair lost.
#pragma once

#include <cstddef>
#include <cstdint>

#include <mpi.h>

#include <clsort/types.hpp>

namespace clsort::mpi {

/// A digest of n (key, value) records (values of `value_bytes` each, none when 0) that does not
/// depend on their order: equal for two arrays exactly when they hold the same records, but for
/// a 2^-64 chance. Computed on `threads` threads.
std::uint64_t records_digest(const void* keys, const void* values, std::uint64_t n, KeyType type,
                             std::size_t value_bytes, unsigned threads);

/// Writes global positions first, first + 1, ... into n values of `value_bytes` bytes each
/// (little-endian, cut to the value's width), so that a check can see the order of equal keys.
/// Written on `threads` threads.
void write_positions(void* values, std::uint64_t n, std::size_t value_bytes, std::uint64_t first,
                     unsigned threads);

/// Checks the ascending sort of every rank's input: this rank's slice (count keys and values) is
/// in order, it follows the slices of the ranks before it, the records over all ranks are the
/// ones whose digest (records_digest) over all ranks' inputs summed to `input_digest`, and, when
/// the values are positions (write_positions) wide enough for every key, equal keys kept their
/// input order. Collective; throws clsort::Error on every rank naming the first rank and
/// position at fault.
void check_sorted_slices(MPI_Comm comm, const void* keys, const void* values, std::uint64_t count,
                         KeyType type, std::size_t value_bytes, std::uint64_t input_digest);

}  // namespace clsort::mpi
