// Benchmark inputs: key distributions and the result row every comparator writes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace clsort::bench {

/// uniform: random bits; low16: only the low 16 bits vary; few: 16 distinct keys; sorted;
/// tiles: (tile | depth) keys as a splatting renderer sorts them (see tile_depth_key); heavy:
/// random bits but for 3 keys in 8, which share one of four values of their top 16 bits (heavy
/// hitters: four buckets of random keys, each 3/32 of them; see heavy_key).
inline const std::vector<std::string>& distributions() {
  static const std::vector<std::string> all{"uniform", "low16", "few", "sorted", "tiles", "heavy"};
  return all;
}

/// A splat's key: its screen tile above the bits of its positive float depth in [0.1, 100).
/// Tiles number n / 256 and are skewed (tile floor(tiles * u^2): the first holds about
/// 1 / sqrt(tiles) of the keys), as splats crowd some tiles. 64-bit keys hold the tile in bits
/// 32 and up; 32-bit keys the tile's low 16 bits over the depth's top 16 bits, and narrower keys
/// the low bytes of those.
inline std::uint64_t tile_depth_key(std::uint64_t random, std::size_t n, std::size_t key_bytes) {
  const double tile_draw = (random >> 40) / double(1 << 24);
  const std::uint64_t tiles = std::max<std::uint64_t>(1, n / 256);
  const auto tile = static_cast<std::uint64_t>(tiles * tile_draw * tile_draw);
  const float depth = 0.1f + 99.9f * ((random & 0xFFFFFF) / float(1 << 24));
  std::uint32_t depth_bits;
  std::memcpy(&depth_bits, &depth, sizeof depth_bits);
  if (key_bytes == 8) return tile << 32 | depth_bits;
  return (tile & 0xFFFF) << 16 | depth_bits >> 16;
}

/// A heavy hitter's key: `random`'s low bits under one of four fixed values (chosen by `pick`)
/// of the key's top bits: 16 of 64- and 32-bit keys, 8 of 16-bit, 4 of 8-bit keys.
inline std::uint64_t heavy_key(std::uint64_t random, std::uint64_t pick, std::size_t key_bytes) {
  static const std::uint64_t tops[4] = {0x1234, 0x5678, 0x9ABC, 0xDEF0};
  const unsigned key_bits = 8 * static_cast<unsigned>(key_bytes);
  const unsigned top_bits = std::min(16u, key_bits / 2);
  const unsigned low_bits = key_bits - top_bits;
  const std::uint64_t top = tops[pick % 4] >> (16 - top_bits);
  return top << low_bits | (random & ((std::uint64_t{1} << low_bits) - 1));
}

/// The seed of n keys' inputs, 42 + floor(log2 n), so that a size's keys are the same in every
/// benchmark program.
inline std::uint64_t input_seed(std::uint64_t n) {
  std::uint64_t seed = 42;
  while (n >>= 1) ++seed;
  return seed;
}

/// n keys of `key_bytes` each (raw bits), for a distribution, deterministic per seed.
inline std::vector<unsigned char> make_key_bytes(const std::string& distribution, std::size_t n,
                                                 std::size_t key_bytes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> few(16);
  for (auto& k : few) k = rng();
  // The distribution is named once, not compared per key (three string compares a key: a
  // bench run of 2^26 u32 keys on PoCL took 10.8 s with them, 7.2 without, 4.3 of it the sort).
  const bool low16 = distribution == "low16", few_keys = distribution == "few",
             sorted = distribution == "sorted", tiles = distribution == "tiles",
             heavy = distribution == "heavy";
  std::vector<unsigned char> bytes(n * key_bytes);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t k = rng();
    // Constant high bits (a positive float's exponent too) over 16 random low bits.
    if (low16) k = (k & 0xFFFF) | 0x3A5A5A5A5A5A0000ULL;
    if (few_keys) k = few[k % few.size()];
    if (sorted) k = i;
    if (tiles) k = tile_depth_key(k, n, key_bytes);
    if (heavy && k % 8 < 3) k = heavy_key(rng(), k >> 3, key_bytes);
    std::memcpy(&bytes[i * key_bytes], &k, key_bytes);
  }
  return bytes;
}

/// One measured result: the CSV row format shared by clsort-bench and clsort-bench-cub.
struct Row {
  std::string implementation, device, key_type;
  std::size_t value_bytes = 0;
  std::string distribution;
  std::uint64_t n = 0;
  double median_ms = 0;
  double gkeys_per_s() const { return median_ms > 0 ? n / (median_ms * 1e6) : 0; }
};

inline const char* csv_header() {
  return "implementation,device,key_type,value_bytes,distribution,n,median_ms,gkeys_per_s";
}

inline std::string csv_line(const Row& r) {
  return r.implementation + ",\"" + r.device + "\"," + r.key_type + "," +
         std::to_string(r.value_bytes) + "," + r.distribution + "," + std::to_string(r.n) + "," +
         std::to_string(r.median_ms) + "," + std::to_string(r.gkeys_per_s());
}

}  // namespace clsort::bench
