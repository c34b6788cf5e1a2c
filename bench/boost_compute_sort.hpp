// The Boost.Compute anchor: its OpenCL sort on the same queue and buffers as clsort.
#pragma once

#include <cstdint>

#include <clsort/clsort.hpp>

namespace clsort::bench {

/// Boost.Compute sorts 32/64-bit integer and float keys, and pairs with 4-byte values.
bool boost_compute_supports(KeyType type, std::size_t value_bytes);

/// boost::compute::sort (or sort_by_key) of n keys in `keys` on `queue`.
void boost_compute_sort(const cl::CommandQueue& queue, const cl::Buffer& keys,
                        const cl::Buffer& values, std::uint64_t n, KeyType type,
                        std::size_t value_bytes);

}  // namespace clsort::bench
