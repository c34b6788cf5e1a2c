// Positions, gathering and de-duplication of sorted arrays on the host.
#include "reorder.hpp"

#include <cstring>
#include <numeric>

#include <clsort/key_order.hpp>

#include "npy.hpp"

namespace clsort::cli {
namespace {

template <class T>
T element(const ArrayFile& array, std::uint64_t i) {
  T value;
  std::memcpy(&value, array.content.data() + array.data_offset + i * sizeof(T), sizeof(T));
  return value;
}

std::uint64_t position_at(const ArrayFile& positions, std::uint64_t i) {
  return positions.item_size == 4 ? element<std::uint32_t>(positions, i)
                                  : element<std::uint64_t>(positions, i);
}

// Moves the elements listed in `kept` (increasing) to the front and shortens the array.
void compact(ArrayFile& array, const std::vector<std::uint64_t>& kept) {
  char* data = array.data();
  for (std::uint64_t j = 0; j < kept.size(); ++j)
    std::memmove(data + j * array.item_size, data + kept[j] * array.item_size, array.item_size);
  array.count = kept.size();
}

}  // namespace

ArrayFile make_positions(const std::string& path, std::uint64_t n) {
  ArrayFile positions;
  positions.path = path;
  positions.format = format_of(path);
  positions.key_type = n < (std::uint64_t{1} << 32) ? KeyType::u32 : KeyType::u64;
  positions.descr = npy_descr(*positions.key_type);
  positions.item_size = key_size(*positions.key_type);
  positions.count = n;
  positions.content.resize(n * positions.item_size);
  for (std::uint64_t i = 0; i < n; ++i) {
    if (positions.item_size == 4) {
      const auto v = static_cast<std::uint32_t>(i);
      std::memcpy(positions.data() + i * 4, &v, 4);
    } else {
      std::memcpy(positions.data() + i * 8, &i, 8);
    }
  }
  return positions;
}

void gather(ArrayFile& values, const ArrayFile& positions) {
  std::string reordered(values.count * values.item_size, '\0');
  for (std::uint64_t i = 0; i < values.count; ++i)
    std::memcpy(reordered.data() + i * values.item_size,
                values.data() + position_at(positions, i) * values.item_size, values.item_size);
  std::memcpy(values.data(), reordered.data(), reordered.size());
}

void keep_first_of_equal_keys(ArrayFile& keys, const std::vector<ArrayFile*>& companions,
                              unsigned begin_bit, std::optional<unsigned> end_bit) {
  const std::vector<std::uint64_t> kept = with_key_type(*keys.key_type, [&]<class K>() {
    const unsigned width = end_bit.value_or(sizeof(K) * 8) - begin_bit;
    const auto field = [&](std::uint64_t i) -> std::uint64_t {
      const std::uint64_t bits = ordered_bits(element<K>(keys, i)) >> begin_bit;
      return width >= 64 ? bits : bits & ((std::uint64_t{1} << width) - 1);
    };
    std::vector<std::uint64_t> first;
    for (std::uint64_t i = 0; i < keys.count; ++i)
      if (i == 0 || field(i) != field(i - 1)) first.push_back(i);
    return first;
  });
  compact(keys, kept);
  for (ArrayFile* companion : companions)
    if (companion) compact(*companion, kept);
}

}  // namespace clsort::cli
