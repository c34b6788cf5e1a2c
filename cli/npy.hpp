// Reading and writing NumPy .npy headers (format versions 1.0, 2.0 and 3.0).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <clsort/types.hpp>

namespace clsort::cli {

struct NpyHeader {
  int major_version = 1;
  std::string descr;  ///< dtype string, e.g. "<u4", "|u1", "<f8"
  bool fortran_order = false;
  std::vector<std::uint64_t> shape;
  std::size_t data_offset = 0;  ///< bytes before the array data

  /// The number of elements; parse_npy_header refuses shapes where it reaches 2^64.
  std::uint64_t element_count() const;
};

/// A dtype the sort can move: its size, and the key type if it can also be a key.
struct NpyDtype {
  std::size_t size = 0;
  std::optional<KeyType> key_type;
  bool big_endian = false;  ///< '>' and wider than one byte: bytes are swapped to sort
};

/// Parses the header at the start of a .npy file. `file` names the file in errors (InputError).
NpyHeader parse_npy_header(std::string_view bytes, const std::string& file);

/// Interprets a numeric dtype string of either byte order; InputError naming the file otherwise.
NpyDtype parse_npy_dtype(const std::string& descr, const std::string& file);

/// The npy dtype string of a key type ("<u4", "|i1", ...).
std::string npy_descr(KeyType type);

/// The header of a C-ordered array of dtype `descr` and `shape` (version 1.0, or 2.0 when the
/// header needs it), padded so the data starts at a multiple of 64 bytes and at `min_length` or
/// later (so a header rewritten with smaller counts can keep its length).
std::string make_npy_header(const std::string& descr, const std::vector<std::uint64_t>& shape,
                            std::size_t min_length = 0);

/// The header of a 1-D array of `count` elements.
inline std::string make_npy_header(const std::string& descr, std::uint64_t count) {
  return make_npy_header(descr, std::vector<std::uint64_t>{count});
}

/// "(2, 3)", "(5,)": a shape as Python writes it.
std::string shape_text(const std::vector<std::uint64_t>& shape);

}  // namespace clsort::cli
