// The sort order on the host: ordered bits of a key, and a dispatch from KeyType to a C++ type.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "clsort/types.hpp"

namespace clsort {

/// The unsigned integer whose natural order is clsort's order of `key` (what the kernels sort
/// by): NaNs all map to the maximum, -0.0 to +0.0's value; `descending` inverts every non-NaN
/// key. Two keys compare equal in the sort exactly when their ordered bits are equal.
template <class K>
auto ordered_bits(K key, bool descending = false) {
  using Bits = std::conditional_t<
      sizeof(K) == 1, std::uint8_t,
      std::conditional_t<sizeof(K) == 2, std::uint16_t,
                         std::conditional_t<sizeof(K) == 4, std::uint32_t, std::uint64_t>>>;
  constexpr Bits sign = static_cast<Bits>(Bits{1} << (sizeof(K) * 8 - 1));
  Bits bits;
  std::memcpy(&bits, &key, sizeof bits);
  Bits ordered;
  if constexpr (std::is_floating_point_v<K>) {
    if (std::isnan(key)) return static_cast<Bits>(~Bits{0});
    if (key == K(0)) bits = 0;
    ordered = (bits & sign) ? static_cast<Bits>(~bits) : static_cast<Bits>(bits | sign);
  } else if constexpr (std::is_signed_v<K>) {
    ordered = static_cast<Bits>(bits ^ sign);
  } else {
    ordered = bits;
  }
  return descending ? static_cast<Bits>(~ordered) : ordered;
}

/// Names a C++ type as a value, for generic lambdas: `[](auto tag) { using T =
/// typename decltype(tag)::type; ... }`.
template <class T>
struct TypeTag {
  using type = T;
};

/// Calls f(TypeTag<T>{}) with T the C++ type of `type`; returns what it returns.
template <class F>
decltype(auto) with_key_type(KeyType type, F&& f) {
  switch (type) {
    case KeyType::u8:
      return f(TypeTag<std::uint8_t>{});
    case KeyType::u16:
      return f(TypeTag<std::uint16_t>{});
    case KeyType::u32:
      return f(TypeTag<std::uint32_t>{});
    case KeyType::u64:
      return f(TypeTag<std::uint64_t>{});
    case KeyType::i8:
      return f(TypeTag<std::int8_t>{});
    case KeyType::i16:
      return f(TypeTag<std::int16_t>{});
    case KeyType::i32:
      return f(TypeTag<std::int32_t>{});
    case KeyType::i64:
      return f(TypeTag<std::int64_t>{});
    case KeyType::f32:
      return f(TypeTag<float>{});
    default:
      return f(TypeTag<double>{});
  }
}

}  // namespace clsort
