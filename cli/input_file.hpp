// Inputs (a file or standard input): format, dtype and record layout, and their items read in
// order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <clsort/types.hpp>

namespace clsort::cli {

enum class FileFormat { npy, raw, text };

/// "npy", "raw" or "text"; nullopt for anything else.
std::optional<FileFormat> parse_format(const std::string& name);

/// By extension: .npy is npy, .txt, .text and .csv are text, anything else is raw.
FileFormat format_of_path(const std::string& path);

/// Where an item's key lies. Plain keys are items that are nothing but a native-order key.
struct ItemLayout {
  std::optional<KeyType> key_type;  ///< unset for elements that can only be values
  std::size_t item_size = 0;
  std::size_t key_offset = 0;
  bool big_endian = false;

  bool plain_keys() const {
    return key_type && item_size == key_size(*key_type) && key_offset == 0 && !big_endian;
  }
};

/// How the command line describes an input.
struct ReadOptions {
  std::optional<FileFormat> format;    ///< --format; else by extension (standard input: sniffed)
  std::optional<std::string> type;     ///< element or key type of raw (and text) inputs
  std::string type_option = "--type";  ///< the option that gives `type`, for error messages
  std::optional<std::size_t> record_size;  ///< raw records of this many bytes ...
  std::size_t key_offset = 0;              ///< ... whose key starts at this byte
};

/// An open input. Binary inputs are read item by item; text inputs whole.
class InputFile {
 public:
  /// Opens `path` ("-": standard input) and reads its header. InputError names the file (or
  /// option) for a missing or unreadable file, a bad header, an unsupported dtype, a raw size
  /// that is not a multiple of the item size, or a key field outside the record.
  InputFile(const std::string& path, const ReadOptions& options);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const { return path_; }
  const std::string& name() const { return name_; }  ///< the path, or "standard input"
  FileFormat format() const { return format_; }
  const ItemLayout& layout() const { return layout_; }
  const std::string& descr() const { return descr_; }  ///< npy dtype; "" otherwise
  /// npy: the header's shape; raw: {count} when the size is known; text: empty.
  const std::vector<std::uint64_t>& shape() const { return shape_; }
  /// Items in the input, when known before reading (not for raw standard input).
  std::optional<std::uint64_t> count() const { return count_; }
  /// Bytes before the item data (the .npy header; 0 for raw files).
  std::uint64_t data_offset() const { return data_offset_; }
  /// Bytes of item data (or text) still to read, when known.
  std::optional<std::uint64_t> data_bytes() const { return data_bytes_; }

  /// Appends up to `max_items` items to `out`; returns how many (0 once all are read). Throws
  /// InputError for data shorter than the header promises or a partial last item.
  std::uint64_t read_items(std::vector<char>& out, std::uint64_t max_items);
  /// Reads the next `bytes` bytes of item data into `out` (a whole number of items, where the
  /// count is known); InputError if the data ends first.
  void read_exactly(char* out, std::size_t bytes);
  /// The whole (remaining) input, for text.
  std::string read_rest();

 private:
  void read_npy_header();
  void set_raw_layout(const ReadOptions& options);
  std::size_t read_bytes(char* out, std::size_t size);
  [[noreturn]] void throw_truncated() const;

  std::string path_;
  std::string name_;
  int fd_ = -1;
  bool owns_fd_ = false;
  std::string pending_;  // bytes read ahead (format sniffing) and not yet consumed
  FileFormat format_ = FileFormat::raw;
  ItemLayout layout_;
  std::string descr_;
  std::vector<std::uint64_t> shape_;
  std::optional<std::uint64_t> count_;
  std::optional<std::uint64_t> data_bytes_;
  std::uint64_t data_offset_ = 0;
  std::uint64_t items_read_ = 0;
};

}  // namespace clsort::cli
