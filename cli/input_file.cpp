// InputFile: opening, format sniffing, npy header reading and item reading from a descriptor.
#include "input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "input_error.hpp"
#include "npy.hpp"

namespace clsort::cli {
namespace {

constexpr std::string_view npy_magic = "\x93NUMPY";

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

KeyType key_type_named(const std::string& name, const std::string& option) {
  const std::optional<KeyType> type = parse_key_type(name);
  if (!type)
    throw InputError("", option + " '" + name +
                             "' is not one of u8, u16, u32, u64, i8, i16, i32, i64, f32, f64");
  return *type;
}

}  // namespace

std::optional<FileFormat> parse_format(const std::string& name) {
  if (name == "npy") return FileFormat::npy;
  if (name == "raw") return FileFormat::raw;
  if (name == "text") return FileFormat::text;
  return std::nullopt;
}

FileFormat format_of_path(const std::string& path) {
  if (ends_with(path, ".npy")) return FileFormat::npy;
  for (std::string_view text : {".txt", ".text", ".csv"})
    if (ends_with(path, text)) return FileFormat::text;
  return FileFormat::raw;
}

InputFile::InputFile(const std::string& path, const ReadOptions& options)
    : path_(path), name_(path == "-" ? "standard input" : path) {
  if (path == "-") {
    fd_ = STDIN_FILENO;
  } else {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw InputError(name_, std::string("cannot open: ") + std::strerror(errno));
    owns_fd_ = true;
  }
  struct stat info {};
  if (::fstat(fd_, &info) == 0) {
    if (S_ISDIR(info.st_mode)) throw InputError(name_, "is a folder, not a file");
    if (S_ISREG(info.st_mode)) data_bytes_ = static_cast<std::uint64_t>(info.st_size);
  }

  if (options.format) {
    format_ = *options.format;
  } else if (path != "-") {
    format_ = format_of_path(path);
  } else {  // standard input: npy if it starts like one, else raw (with --type)
    std::string start(npy_magic.size(), '\0');
    start.resize(read_bytes(start.data(), start.size()));
    format_ = start == npy_magic ? FileFormat::npy : FileFormat::raw;
    pending_ = std::move(start);
  }
  if (options.record_size && format_ != FileFormat::raw)
    throw InputError(name_, "--record-size applies to raw files only");
  if (format_ == FileFormat::npy) read_npy_header();
  if (format_ == FileFormat::raw) set_raw_layout(options);
  if (format_ == FileFormat::text && options.type)
    layout_.key_type = key_type_named(*options.type, options.type_option);
}

InputFile::~InputFile() {
  if (owns_fd_) ::close(fd_);
}

std::size_t InputFile::read_bytes(char* out, std::size_t size) {
  std::size_t done = std::min(size, pending_.size());
  pending_.copy(out, done);
  pending_.erase(0, done);
  while (done < size) {
    const ssize_t got = ::read(fd_, out + done, size - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw InputError(name_, std::string("cannot read: ") + std::strerror(errno));
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

void InputFile::read_npy_header() {
  // Magic and version, then a 2-byte (v1) or 4-byte (v2, v3) header length, then the header.
  std::string header(8, '\0');
  header.resize(read_bytes(header.data(), header.size()));
  if (header.size() < 8 || header.compare(0, npy_magic.size(), npy_magic) != 0)
    throw InputError(name_, "not a .npy file (no \\x93NUMPY magic)");
  const std::size_t length_width = static_cast<unsigned char>(header[6]) == 1 ? 2 : 4;
  header.resize(8 + length_width);
  if (read_bytes(header.data() + 8, length_width) < length_width)
    throw InputError(name_, "truncated .npy header");
  std::size_t length = 0;
  for (std::size_t i = 0; i < length_width; ++i)
    length |= static_cast<std::size_t>(static_cast<unsigned char>(header[8 + i])) << (8 * i);
  if (length > (std::size_t{1} << 24))
    throw InputError(name_, "bad .npy header: it claims " + std::to_string(length) + " bytes");
  header.resize(8 + length_width + length);
  header.resize(8 + length_width + read_bytes(header.data() + 8 + length_width, length));

  const NpyHeader parsed = parse_npy_header(header, name_);
  const NpyDtype dtype = parse_npy_dtype(parsed.descr, name_);
  if (parsed.shape.empty()) throw InputError(name_, "a 0-d array has no axis to sort along");
  if (parsed.fortran_order && parsed.shape.size() > 1)
    throw InputError(name_,
                     "Fortran-ordered arrays of more than one dimension are not "
                     "supported; save it with numpy.ascontiguousarray");
  descr_ = parsed.descr;
  shape_ = parsed.shape;
  count_ = parsed.element_count();
  if (*count_ > UINT64_MAX / dtype.size)
    throw InputError(name_, "shape " + shape_text(shape_) + " of " + std::to_string(dtype.size) +
                                "-byte elements is 2^64 bytes or more");
  layout_ = {dtype.key_type, dtype.size, 0, dtype.big_endian};
  data_offset_ = header.size();
  if (data_bytes_) *data_bytes_ -= std::min<std::uint64_t>(*data_bytes_, header.size());
}

void InputFile::set_raw_layout(const ReadOptions& options) {
  if (!options.type)
    throw InputError(name_, "raw file: give its element type with " + options.type_option +
                                " (u8, u16, u32, u64, i8, i16, i32, i64, f32, f64)");
  const KeyType type = key_type_named(*options.type, options.type_option);
  layout_ = {type, options.record_size.value_or(key_size(type)), options.key_offset, false};
  if (layout_.item_size == 0) throw InputError("", "--record-size must be at least 1");
  if (options.key_offset + key_size(type) > layout_.item_size)
    throw InputError("", "--key-offset " + std::to_string(options.key_offset) + ": the " +
                             std::string(to_string(type)) + " key field lies outside the " +
                             std::to_string(layout_.item_size) + "-byte record");
  if (data_bytes_) {
    if (*data_bytes_ % layout_.item_size != 0)
      throw InputError(name_, "size " + std::to_string(*data_bytes_) +
                                  " bytes is not a multiple of the " +
                                  std::to_string(layout_.item_size) + "-byte " +
                                  (options.record_size ? std::string("record")
                                                       : std::string(*options.type) + " element"));
    count_ = *data_bytes_ / layout_.item_size;
    shape_ = {*count_};
  }
}

std::uint64_t InputFile::read_items(std::vector<char>& out, std::uint64_t max_items) {
  if (count_) max_items = std::min(max_items, *count_ - items_read_);
  const std::size_t start = out.size();
  const std::size_t wanted = max_items * layout_.item_size;
  out.resize(start + wanted);
  const std::size_t got = read_bytes(out.data() + start, wanted);
  out.resize(start + got);
  const std::uint64_t items = got / layout_.item_size;
  items_read_ += items;
  if (got == wanted) return items;
  if (count_) throw_truncated();
  if (got % layout_.item_size != 0)
    throw InputError(name_, "ends in a partial item: its size is not a multiple of the " +
                                std::to_string(layout_.item_size) + "-byte item");
  return items;
}

void InputFile::read_exactly(char* out, std::size_t bytes) {
  const std::size_t got = read_bytes(out, bytes);
  items_read_ += got / layout_.item_size;
  if (got != bytes) throw_truncated();
}

void InputFile::throw_truncated() const {
  throw InputError(
      name_, "truncated: " +
                 (count_ ? "the header promises " + std::to_string(*count_) : std::string("more")) +
                 " elements of " + std::to_string(layout_.item_size) +
                 " bytes, the data ends after " + std::to_string(items_read_));
}

std::string InputFile::read_rest() {
  std::string text = std::move(pending_);
  pending_.clear();
  char buffer[1 << 16];
  while (const std::size_t got = read_bytes(buffer, sizeof buffer)) text.append(buffer, got);
  return text;
}

}  // namespace clsort::cli
