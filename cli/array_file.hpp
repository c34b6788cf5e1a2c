// Loading and saving the 1-D arrays the CLI sorts: .npy files and raw binary files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <clsort/types.hpp>

namespace clsort::cli {

enum class FileFormat { npy, raw };

/// A whole array file in memory: its bytes, and where its elements start.
struct ArrayFile {
  std::string path;
  FileFormat format = FileFormat::raw;
  std::string descr;  ///< npy dtype string (raw files: "")
  std::size_t item_size = 0;
  std::optional<KeyType> key_type;  ///< set when the elements can be keys
  std::string content;              ///< the whole file
  std::size_t data_offset = 0;
  std::uint64_t count = 0;

  char* data() { return content.data() + data_offset; }
};

/// .npy by extension, raw otherwise.
FileFormat format_of(const std::string& path);

/// Loads `path`. Raw files need `raw_type` (a key type name: u8 ... f64). Throws InputError
/// naming the file for a bad header, unsupported dtype, multi-dimensional or Fortran-ordered
/// array, truncated data, or a raw size that is not a multiple of the element size.
ArrayFile load_array(const std::string& path, const std::optional<std::string>& raw_type,
                     const char* type_option);

class AtomicFile;

/// Writes `array` (a .npy header if `path` ends in .npy, then the data) to `out`.
void write_array(AtomicFile& out, const std::string& path, ArrayFile& array);

}  // namespace clsort::cli
