// Chunk sorting: in place for plain keys, else by a permutation that the device sorts with the
// keys (rows by a second, stable sort on row numbers) and the host applies to items and values.
#include "chunk_sort.hpp"

#include <cstring>
#include <numeric>

#include <clsort/key_order.hpp>

namespace clsort::cli {
namespace {

// Bits needed to write `value` (0 for 0).
unsigned bits_to_hold(std::uint64_t value) {
  unsigned bits = 0;
  for (; value != 0; value >>= 1) ++bits;
  return bits;
}

template <class Bits>
Bits swap_bytes(Bits bits) {
  if constexpr (sizeof(Bits) == 2) return static_cast<Bits>(__builtin_bswap16(bits));
  if constexpr (sizeof(Bits) == 4) return static_cast<Bits>(__builtin_bswap32(bits));
  if constexpr (sizeof(Bits) == 8) return static_cast<Bits>(__builtin_bswap64(bits));
  return bits;
}

// The key stored at `bytes`, in native byte order.
template <class K>
K load_key(const char* bytes, bool big_endian) {
  using Bits = decltype(ordered_bits(K{}));
  Bits bits;
  std::memcpy(&bits, bytes, sizeof bits);
  if (big_endian) bits = swap_bytes(bits);
  K key;
  std::memcpy(&key, &bits, sizeof key);
  return key;
}

// The chunk's keys, native byte order, one after another.
std::vector<char> extract_keys(const SortSpec& spec, const Chunk& chunk) {
  const std::size_t item = spec.layout.item_size;
  return with_key_type(*spec.layout.key_type, [&](auto tag) {
    using K = typename decltype(tag)::type;
    std::vector<char> keys(chunk.count * sizeof(K));
    for (std::uint64_t i = 0; i < chunk.count; ++i) {
      const K key = load_key<K>(chunk.items.data() + i * item + spec.layout.key_offset,
                                spec.layout.big_endian);
      std::memcpy(keys.data() + i * sizeof(K), &key, sizeof(K));
    }
    return keys;
  });
}

template <class Index>
std::vector<char> gathered(const std::vector<char>& data, std::size_t size,
                           const std::vector<Index>& order) {
  std::vector<char> result(data.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    std::memcpy(result.data() + i * size, data.data() + order[i] * size, size);
  return result;
}

bool sorts_in_place(const SortSpec& spec, const Chunk& chunk) {
  const bool one_row = spec.row_length == 0 || spec.row_length >= chunk.count;
  const bool values_ride = spec.value_size == 0 || is_supported_value_size(spec.value_size);
  return spec.layout.plain_keys() && !spec.positions && one_row && values_ride;
}

template <class Index>
void sort_by_permutation(Sorter& sorter, const SortSpec& spec, Chunk& chunk) {
  const std::uint64_t n = chunk.count;
  std::vector<char> keys = extract_keys(spec, chunk);
  std::vector<Index> order(n);
  std::iota(order.begin(), order.end(), Index{0});
  sorter.sort_host_bytes(keys.data(), n, *spec.layout.key_type, order.data(), sizeof(Index),
                         spec.options);
  const std::uint64_t rows = spec.row_length ? n / spec.row_length : 1;
  if (rows > 1) {
    // Sorting by row number, stably, keeps each row's key order: all rows in two sorts.
    std::vector<Index> row(n);
    for (std::uint64_t i = 0; i < n; ++i) row[i] = static_cast<Index>(order[i] / spec.row_length);
    SortOptions by_row;
    by_row.end_bit = bits_to_hold(rows - 1);
    sorter.sort_host_bytes(row.data(), n, key_type_of<Index>(), order.data(), sizeof(Index),
                           by_row);
  }
  chunk.items = gathered(chunk.items, spec.layout.item_size, order);
  if (spec.value_size) chunk.values = gathered(chunk.values, spec.value_size, order);
  if (!spec.positions) return;
  chunk.positions.resize(n);
  for (std::uint64_t i = 0; i < n; ++i)
    chunk.positions[i] = spec.row_length ? order[i] % spec.row_length : chunk.first + order[i];
}

void compact(std::vector<char>& data, std::size_t size, const std::vector<std::uint64_t>& kept) {
  for (std::size_t j = 0; j < kept.size(); ++j)
    std::memmove(data.data() + j * size, data.data() + kept[j] * size, size);
  data.resize(kept.size() * size);
}

}  // namespace

template <class K>
std::uint64_t SortField::read(const char* key, const SortField& field) {
  const K value = load_key<K>(key, field.big_endian_);
  return (static_cast<std::uint64_t>(ordered_bits(value, field.descending_)) >> field.begin_bit_) &
         field.mask_;
}

SortField::SortField(const SortSpec& spec)
    : offset_(spec.layout.key_offset),
      big_endian_(spec.layout.big_endian),
      descending_(spec.options.descending),
      begin_bit_(spec.options.begin_bit) {
  const KeyType type = *spec.layout.key_type;
  const unsigned width = spec.options.end_bit.value_or(key_bits(type)) - begin_bit_;
  mask_ = width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  read_ = with_key_type(type, [](auto tag) {
    using K = typename decltype(tag)::type;
    return &SortField::read<K>;
  });
}

void sort_chunk(Sorter& sorter, const SortSpec& spec, Chunk& chunk) {
  if (chunk.count == 0) return;
  if (sorts_in_place(spec, chunk)) {
    sorter.sort_host_bytes(chunk.items.data(), chunk.count, *spec.layout.key_type,
                           spec.value_size ? chunk.values.data() : nullptr, spec.value_size,
                           spec.options);
  } else if (chunk.count < (std::uint64_t{1} << 32)) {
    sort_by_permutation<std::uint32_t>(sorter, spec, chunk);
  } else {
    sort_by_permutation<std::uint64_t>(sorter, spec, chunk);
  }
}

void keep_first_of_equal_keys(const SortSpec& spec, Chunk& chunk,
                              std::optional<std::uint64_t>& previous) {
  const SortField field(spec);
  const std::size_t size = spec.layout.item_size;
  std::vector<std::uint64_t> kept;
  for (std::uint64_t i = 0; i < chunk.count; ++i) {
    const std::uint64_t f = field(&chunk.items[i * size]);
    if (previous != f) kept.push_back(i);
    previous = f;
  }
  compact(chunk.items, size, kept);
  if (spec.value_size) compact(chunk.values, spec.value_size, kept);
  if (!chunk.positions.empty()) {
    for (std::size_t j = 0; j < kept.size(); ++j) chunk.positions[j] = chunk.positions[kept[j]];
    chunk.positions.resize(kept.size());
  }
  chunk.count = kept.size();
}

}  // namespace clsort::cli
