// Sorted outputs: array and text writers over an atomic file or standard output.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "atomic_file.hpp"
#include "chunk_sort.hpp"
#include "input_file.hpp"
#include "text_keys.hpp"

namespace clsort::cli {

/// The format an output gets: standard output ("-") and text inputs keep the input's format;
/// otherwise .npy by extension, else raw.
FileFormat output_format(const std::string& path, FileFormat input);

/// Whether `path` is a character device or a FIFO (such as /dev/null or a named pipe): outputs
/// are written into it as a stream rather than renamed over it.
bool is_stream_device(const std::string& path);

/// Bytes written to a path (an AtomicFile), or as a stream (not atomic) to standard output
/// ("-") or a path that is_stream_device.
class OutputStream {
 public:
  explicit OutputStream(const std::string& path);
  ~OutputStream();
  OutputStream(const OutputStream&) = delete;
  OutputStream& operator=(const OutputStream&) = delete;
  void write(const char* data, std::size_t bytes);
  /// Overwrites bytes at `offset` (files only: a header whose counts are known last).
  void write_at(std::uint64_t offset, std::string_view bytes);
  void commit();
  const std::string& name() const { return name_; }

 private:
  std::unique_ptr<AtomicFile> file_;
  int stream_ = -1;  // without file_: standard output or an opened stream device
  bool owns_stream_ = false;
  std::string name_;
};

/// An array output: a .npy header (with `shape`) when the format is npy, then the items.
class ArrayWriter {
 public:
  ArrayWriter(const std::string& path, FileFormat format, std::string descr,
              std::vector<std::uint64_t> shape, std::size_t item_size);
  void write(const char* items, std::uint64_t count);
  /// Fixes the header of a 1-D npy output that got fewer items than announced (--unique).
  void finish();
  void commit() { stream_.commit(); }

 private:
  OutputStream stream_;
  std::string descr_;
  std::size_t item_size_;
  std::size_t header_size_ = 0;
  std::uint64_t announced_ = 0;
  std::uint64_t written_ = 0;
};

/// Where one input's results go. Empty optionals: not wanted.
struct OutputPaths {
  std::string sorted;
  std::optional<std::string> values;
  std::optional<std::string> positions;
};

/// All outputs of one input: written chunk by chunk, then committed together (none appears
/// before all are complete).
class FileOutputs {
 public:
  /// `text` is the parsed text input (its lines are what is written), or null. `values` is the
  /// values input, or null. `count` items will be written (fewer with --unique).
  FileOutputs(const OutputPaths& paths, const InputFile& input, const InputFile* values,
              const TextKeys* text, std::uint64_t count);
  void write(const Chunk& chunk);
  /// Appends `count` sorted items (binary inputs only), and separately their values.
  void write_items(const char* items, std::uint64_t count) { sorted_->write(items, count); }
  void write_values(const char* values, std::uint64_t count) { values_->write(values, count); }
  void commit();

 private:
  std::optional<ArrayWriter> sorted_;
  std::optional<OutputStream> lines_;
  std::optional<ArrayWriter> values_;
  std::optional<ArrayWriter> positions_;
  const TextKeys* text_;
  bool narrow_positions_ = false;
};

}  // namespace clsort::cli
