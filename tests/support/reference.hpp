// CPU reference for the sort order: the ordered-bits transform, comparators and std::stable_sort.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

#include <clsort/types.hpp>

namespace clsort::test {

template <std::size_t Bytes>
using unsigned_of_size = std::conditional_t<
    Bytes == 1, std::uint8_t,
    std::conditional_t<Bytes == 2, std::uint16_t,
                       std::conditional_t<Bytes == 4, std::uint32_t, std::uint64_t>>>;

template <class K>
using Bits = unsigned_of_size<sizeof(K)>;

template <class K>
Bits<K> bits_of(K key) {
  Bits<K> bits;
  std::memcpy(&bits, &key, sizeof key);
  return bits;
}

template <class K>
K from_bits(Bits<K> bits) {
  K key;
  std::memcpy(&key, &bits, sizeof key);
  return key;
}

/// The library's documented order as unsigned bits (written independently of the kernels):
/// NaN -> all ones, -0.0 -> +0.0, sign-magnitude -> offset binary; descending inverts non-NaN.
template <class K>
Bits<K> reference_ordered_bits(K key, bool descending) {
  using B = Bits<K>;
  constexpr B sign = B(B(1) << (sizeof(K) * 8 - 1));
  B o;
  if constexpr (std::is_floating_point_v<K>) {
    if (std::isnan(key)) return B(~B(0));
    if (key == K(0)) key = K(0);
    const B b = bits_of(key);
    o = (b & sign) ? B(~b) : B(b | sign);
  } else if constexpr (std::is_signed_v<K>) {
    o = B(bits_of(key) ^ sign);
  } else {
    o = key;
  }
  return descending ? B(~o) : o;
}

/// Strict weak order of the documented sort: NaNs last, -0.0 == +0.0.
template <class K>
bool sorts_before(K a, K b, bool descending) {
  if constexpr (std::is_floating_point_v<K>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return descending ? b < a : a < b;
}

/// The stable permutation std::stable_sort gives: by the comparator for the full bit range, by
/// bits [begin, end) of ordered_bits otherwise.
template <class K>
std::vector<std::size_t> reference_permutation(const std::vector<K>& keys, const SortOptions& o) {
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const unsigned width = sizeof(K) * 8;
  const unsigned end = o.end_bit.value_or(width);
  if (o.begin_bit == 0 && end == width) {
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return sorts_before(keys[a], keys[b], o.descending);
    });
  } else {
    const auto field = [&](std::size_t i) {
      const std::uint64_t bits = reference_ordered_bits(keys[i], o.descending);
      const unsigned span = end - o.begin_bit;
      return span == 0 ? 0 : (bits >> o.begin_bit) & (span >= 64 ? ~0ULL : (1ULL << span) - 1);
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return field(a) < field(b); });
  }
  return order;
}

template <class T>
std::vector<T> permuted(const std::vector<T>& data, const std::vector<std::size_t>& order) {
  std::vector<T> out;
  out.reserve(order.size());
  for (std::size_t i : order) out.push_back(data[i]);
  return out;
}

/// Bit-exact equality (NaN payloads and signed zeros included); returns the first mismatch
/// index or data.size() if equal.
template <class T>
std::size_t first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return i;
  return a.size();
}

}  // namespace clsort::test
