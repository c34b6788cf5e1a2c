// Output writers: npy headers (patched for --unique), positions narrowed to u32, text lines.
#include "output_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "fd_io.hpp"
#include "input_error.hpp"
#include "npy.hpp"

namespace clsort::cli {
namespace {

std::string sorted_descr(const InputFile& input) {
  if (!input.descr().empty()) return input.descr();
  const ItemLayout& layout = input.layout();
  if (layout.plain_keys()) return npy_descr(*layout.key_type);
  return "|V" + std::to_string(layout.item_size);  // whole records: NumPy's raw void dtype
}

std::vector<std::uint64_t> shape_of(const InputFile& input, std::uint64_t count) {
  return input.format() == FileFormat::npy ? input.shape() : std::vector<std::uint64_t>{count};
}

}  // namespace

FileFormat output_format(const std::string& path, FileFormat input) {
  if (path == "-" || input == FileFormat::text) return input;
  return format_of_path(path) == FileFormat::npy ? FileFormat::npy : FileFormat::raw;
}

bool is_stream_device(const std::string& path) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  return std::filesystem::is_character_file(status) || std::filesystem::is_fifo(status);
}

OutputStream::OutputStream(const std::string& path)
    : name_(path == "-" ? "standard output" : path) {
  if (path == "-") {
    stream_ = STDOUT_FILENO;
  } else if (is_stream_device(path)) {
    stream_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (stream_ < 0)
      throw InputError(name_, std::string("cannot open output: ") + std::strerror(errno));
    owns_stream_ = true;
  } else {
    file_ = std::make_unique<AtomicFile>(path);
  }
}

OutputStream::~OutputStream() {
  if (owns_stream_) ::close(stream_);
}

void OutputStream::write(const char* data, std::size_t bytes) {
  if (file_) return file_->write(data, bytes);
  if (!write_fully(stream_, data, bytes))
    throw InputError(name_, std::string("cannot write: ") + std::strerror(errno));
}

void OutputStream::write_at(std::uint64_t offset, std::string_view bytes) {
  if (!file_)
    throw InputError(name_,
                     "--unique on an input larger than the memory budget cannot write a "
                     ".npy to a stream (its length is known only at the end); give -o FILE");
  file_->write_at(offset, bytes);
}

void OutputStream::commit() {
  if (file_) file_->commit();
}

ArrayWriter::ArrayWriter(const std::string& path, FileFormat format, std::string descr,
                         std::vector<std::uint64_t> shape, std::size_t item_size)
    : stream_(path), descr_(std::move(descr)), item_size_(item_size) {
  if (format != FileFormat::npy) return;
  const std::string header = make_npy_header(descr_, shape);
  header_size_ = header.size();
  announced_ = 1;
  for (std::uint64_t extent : shape) announced_ *= extent;
  stream_.write(header.data(), header.size());
}

void ArrayWriter::write(const char* items, std::uint64_t count) {
  stream_.write(items, count * item_size_);
  written_ += count;
}

void ArrayWriter::finish() {
  if (header_size_ == 0 || written_ == announced_) return;
  stream_.write_at(0, make_npy_header(descr_, {written_}, header_size_));
}

FileOutputs::FileOutputs(const OutputPaths& paths, const InputFile& input, const InputFile* values,
                         const TextKeys* text, std::uint64_t count)
    : text_(text) {
  if (text) {
    lines_.emplace(paths.sorted);
  } else {
    sorted_.emplace(paths.sorted, output_format(paths.sorted, input.format()), sorted_descr(input),
                    shape_of(input, count), input.layout().item_size);
  }
  if (paths.values)
    values_.emplace(*paths.values, output_format(*paths.values, values->format()),
                    sorted_descr(*values), shape_of(*values, count), values->layout().item_size);
  if (!paths.positions) return;
  // Positions index the whole input, or a row of a multi-dimensional array.
  const std::vector<std::uint64_t> shape = shape_of(input, count);
  narrow_positions_ = shape.back() < (std::uint64_t{1} << 32);
  const KeyType type = narrow_positions_ ? KeyType::u32 : KeyType::u64;
  positions_.emplace(
      *paths.positions,
      format_of_path(*paths.positions) == FileFormat::npy ? FileFormat::npy : FileFormat::raw,
      npy_descr(type), shape, key_size(type));
}

void FileOutputs::write(const Chunk& chunk) {
  if (sorted_) sorted_->write(chunk.items.data(), chunk.count);
  if (lines_) {
    std::string text;
    for (std::uint64_t i = 0; i < chunk.count; ++i) {
      text += text_->line(chunk.positions[i]);
      text += '\n';
    }
    lines_->write(text.data(), text.size());
  }
  if (values_) values_->write(chunk.values.data(), chunk.count);
  if (!positions_) return;
  if (!narrow_positions_)
    return positions_->write(reinterpret_cast<const char*>(chunk.positions.data()), chunk.count);
  const std::vector<std::uint32_t> narrow(chunk.positions.begin(),
                                          chunk.positions.begin() + chunk.count);
  positions_->write(reinterpret_cast<const char*>(narrow.data()), chunk.count);
}

void FileOutputs::commit() {
  for (ArrayWriter* writer : {sorted_ ? &*sorted_ : nullptr, values_ ? &*values_ : nullptr,
                              positions_ ? &*positions_ : nullptr})
    if (writer) writer->finish();
  if (sorted_) sorted_->commit();
  if (lines_) lines_->commit();
  if (values_) values_->commit();
  if (positions_) positions_->commit();
}

}  // namespace clsort::cli
