// Adversarial test inputs: every distribution the sort must handle, for every key type.
#pragma once

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "reference.hpp"

namespace clsort::test {

enum class Distribution {
  uniform,  // random bit patterns (floats: includes NaNs, infinities, denormals)
  all_equal,
  two_values,
  few_distinct,  // 7 distinct keys: long runs of equal keys test stability
  sorted,
  reversed,
  low_bits,   // only the lowest 5 bits vary
  high_bits,  // only the highest 5 bits vary
  extremes,   // min/max, 0, -0.0, +-inf, NaNs of both signs with payloads, denormals
};

inline const std::vector<Distribution>& all_distributions() {
  static const std::vector<Distribution> all{
      Distribution::uniform,      Distribution::all_equal, Distribution::two_values,
      Distribution::few_distinct, Distribution::sorted,    Distribution::reversed,
      Distribution::low_bits,     Distribution::high_bits, Distribution::extremes};
  return all;
}

inline std::string to_string(Distribution d) {
  static const char* names[] = {"uniform",  "all_equal", "two_values", "few_distinct", "sorted",
                                "reversed", "low_bits",  "high_bits",  "extremes"};
  return names[static_cast<int>(d)];
}

/// Keys whose bit patterns carry the hard cases of type K.
template <class K>
std::vector<K> extreme_keys() {
  using L = std::numeric_limits<K>;
  std::vector<K> v{L::min(), L::max(), L::lowest(), K(0), K(1)};
  if constexpr (std::is_signed_v<K>) v.push_back(K(-1));
  if constexpr (std::is_floating_point_v<K>) {
    using B = Bits<K>;
    constexpr B sign = B(B(1) << (sizeof(K) * 8 - 1));
    const B quiet = bits_of(L::quiet_NaN());
    for (B bits : {B(quiet), B(quiet | sign), B(quiet | 1), B(quiet | sign | 5),
                   B(bits_of(L::infinity()) | 3) /* signalling NaN with payload */})
      v.push_back(from_bits<K>(bits));
    v.insert(v.end(), {K(-0.0), L::infinity(), -L::infinity(), L::denorm_min(), -L::denorm_min(),
                       K(-2.5), K(2.5)});
  }
  return v;
}

template <class K>
std::vector<K> make_keys(Distribution d, std::size_t n, std::uint64_t seed) {
  using B = Bits<K>;
  std::mt19937_64 rng(seed);
  const auto random_key = [&] { return from_bits<K>(static_cast<B>(rng())); };
  std::vector<K> keys(n);
  switch (d) {
    case Distribution::uniform:
      for (auto& k : keys) k = random_key();
      break;
    case Distribution::all_equal: {
      const K k0 = random_key();
      for (auto& k : keys) k = k0;
      break;
    }
    case Distribution::two_values:
    case Distribution::few_distinct: {
      std::vector<K> pool(d == Distribution::two_values ? 2 : 7);
      for (auto& k : pool) k = random_key();
      for (auto& k : keys) k = pool[rng() % pool.size()];
      break;
    }
    case Distribution::sorted:
    case Distribution::reversed: {
      for (auto& k : keys) k = random_key();
      const bool descending = d == Distribution::reversed;
      std::stable_sort(keys.begin(), keys.end(),
                       [&](K a, K b) { return sorts_before(a, b, descending); });
      break;
    }
    case Distribution::low_bits:
    case Distribution::high_bits: {
      const unsigned shift = d == Distribution::low_bits ? 0 : sizeof(K) * 8 - 5;
      const B base = static_cast<B>(rng()) & static_cast<B>(~(B(31) << shift));
      for (auto& k : keys) k = from_bits<K>(static_cast<B>(base | (B(rng() % 32) << shift)));
      break;
    }
    case Distribution::extremes: {
      const auto pool = extreme_keys<K>();
      for (auto& k : keys) k = pool[rng() % pool.size()];
      break;
    }
  }
  return keys;
}

}  // namespace clsort::test
