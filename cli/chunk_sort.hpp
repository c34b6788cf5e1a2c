// Sorting one in-memory chunk of items (with their values and input positions) on the device.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <clsort/sorter.hpp>

#include "input_file.hpp"

namespace clsort::cli {

/// What a sort orders and what it carries along.
struct SortSpec {
  ItemLayout layout;             ///< where each item's key lies (key_type set)
  std::size_t value_size = 0;    ///< bytes of the value that moves with each item; 0: none
  std::uint64_t row_length = 0;  ///< > 0: items form rows of this many, each sorted on its own
  bool positions = false;        ///< record where each item came from
  SortOptions options;
};

/// Consecutive items of one input, with their values. The vectors may be longer than `count`
/// items (reused buffers); only the first `count` are the chunk's.
struct Chunk {
  std::uint64_t first = 0;  ///< input position of the first item (a row start for rows)
  std::uint64_t count = 0;
  std::vector<char> items;
  std::vector<char> values;
  /// Filled by sort_chunk when the spec asks: each item's input position (within its row when
  /// the spec has rows).
  std::vector<std::uint64_t> positions;
};

/// The bits a sort compares, read from an item: its key's ordered bits (inverted for
/// descending) within the bit range. Items compare as their fields; equal fields are equal keys.
class SortField {
 public:
  explicit SortField(const SortSpec& spec);
  std::uint64_t operator()(const char* item) const { return read_(item + offset_, *this); }

 private:
  template <class K>
  static std::uint64_t read(const char* key, const SortField& field);
  std::uint64_t (*read_)(const char*, const SortField&) = nullptr;
  std::size_t offset_ = 0;
  bool big_endian_ = false;
  bool descending_ = false;
  unsigned begin_bit_ = 0;
  std::uint64_t mask_ = 0;
};

/// Sorts the chunk's items (each row on its own when the spec has rows), stably; values and
/// positions follow their items.
void sort_chunk(Sorter& sorter, const SortSpec& spec, Chunk& chunk);

/// Keeps the first item of each run of equal keys in a sorted chunk, with its value and position.
/// `previous` is the field of the last item kept before this chunk (none: the chunk comes first);
/// it is updated, so that consecutive chunks of one sorted sequence are filtered as a whole.
void keep_first_of_equal_keys(const SortSpec& spec, Chunk& chunk,
                              std::optional<std::uint64_t>& previous);

}  // namespace clsort::cli
