// .npy header parsing (a small reader for the Python dict literal) and header writing.
#include "npy.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "input_error.hpp"

namespace clsort::cli {
namespace {

constexpr std::string_view magic = "\x93NUMPY";

// Reads the header's dict literal: {'descr': '<u4', 'fortran_order': False, 'shape': (3,), }
class DictReader {
 public:
  DictReader(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  NpyHeader read() {
    NpyHeader header;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    expect('{');
    while (!accept('}')) {
      const std::string key = read_string();
      expect(':');
      if (key == "descr") {
        skip_space();
        if (peek() != '\'' && peek() != '"')
          fail("unsupported dtype: structured or sub-array dtypes cannot be sorted");
        header.descr = read_string();
        seen_descr = true;
      } else if (key == "fortran_order") {
        header.fortran_order = read_bool();
        seen_order = true;
      } else if (key == "shape") {
        header.shape = read_shape();
        seen_shape = true;
      } else {
        fail("unexpected key '" + key + "' in header");
      }
      if (!accept(',')) {
        expect('}');
        break;
      }
    }
    if (!seen_descr || !seen_order || !seen_shape)
      fail("header lacks one of 'descr', 'fortran_order', 'shape'");
    return header;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw InputError(file_, "bad .npy header: " + problem);
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool accept(char c) {
    skip_space();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "' at offset " + std::to_string(pos_));
  }
  std::string read_string() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"')
      fail("expected a quoted string at offset " + std::to_string(pos_));
    const std::size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return s;
  }
  bool read_bool() {
    skip_space();
    for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      if (text_.substr(pos_, std::strlen(word)) == word) {
        pos_ += std::strlen(word);
        return value;
      }
    }
    fail("'fortran_order' must be True or False");
  }
  std::vector<std::uint64_t> read_shape() {
    std::vector<std::uint64_t> shape;
    expect('(');
    while (!accept(')')) {
      skip_space();
      if (!std::isdigit(static_cast<unsigned char>(peek())))
        fail("shape must be a tuple of integers");
      std::uint64_t value = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (value > (UINT64_MAX - 9) / 10) fail("shape dimension too large");
        value = value * 10 + static_cast<std::uint64_t>(text_[pos_++] - '0');
      }
      shape.push_back(value);
      if (!accept(',')) {
        expect(')');
        break;
      }
    }
    return shape;
  }

  std::string_view text_;
  const std::string& file_;
  std::size_t pos_ = 0;
};

std::uint32_t little_endian(std::string_view bytes, std::size_t offset, std::size_t width) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < width; ++i)
    value |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  return value;
}

// The product of the dimensions, or nothing when it reaches 2^64.
std::optional<std::uint64_t> checked_element_count(const std::vector<std::uint64_t>& shape) {
  std::uint64_t count = 1;
  for (const std::uint64_t d : shape)
    if (__builtin_mul_overflow(count, d, &count)) return std::nullopt;
  return count;
}

}  // namespace

std::uint64_t NpyHeader::element_count() const {
  return checked_element_count(shape).value();
}

NpyHeader parse_npy_header(std::string_view bytes, const std::string& file) {
  if (bytes.size() < 10 || bytes.substr(0, magic.size()) != magic)
    throw InputError(file, "not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3)
    throw InputError(file, "unsupported .npy format version " + std::to_string(major));
  const std::size_t length_width = major == 1 ? 2 : 4;
  const std::size_t prefix = 8 + length_width;
  if (bytes.size() < prefix) throw InputError(file, "truncated .npy header");
  const std::size_t header_length = little_endian(bytes, 8, length_width);
  if (bytes.size() < prefix + header_length)
    throw InputError(file, "truncated .npy header: it claims " + std::to_string(header_length) +
                               " bytes, the file has " + std::to_string(bytes.size() - prefix));
  NpyHeader header = DictReader(bytes.substr(prefix, header_length), file).read();
  if (!checked_element_count(header.shape))
    throw InputError(file, "shape " + shape_text(header.shape) + " has 2^64 elements or more");
  header.major_version = major;
  header.data_offset = prefix + header_length;
  return header;
}

NpyDtype parse_npy_dtype(const std::string& descr, const std::string& file) {
  const auto unsupported = [&](const std::string& why) {
    return InputError(file, "unsupported dtype '" + descr + "': " + why);
  };
  const bool well_formed = descr.size() >= 3 && descr.size() <= 6 &&
                           std::string_view("<>|=").find(descr[0]) != std::string_view::npos &&
                           descr.find_first_not_of("0123456789", 2) == std::string::npos;
  if (!well_formed) throw unsupported("not a numeric dtype");
  const char kind = descr[1];
  const std::size_t size = std::stoul(descr.substr(2));
  if (std::string_view("OSUVMma").find(kind) != std::string_view::npos)
    throw unsupported("objects, strings, records and dates cannot be sorted");
  NpyDtype dtype{size, std::nullopt, descr[0] == '>' && size > 1};
  if (kind == 'u' || kind == 'i' || kind == 'f')
    dtype.key_type = parse_key_type(std::string(1, kind) + std::to_string(size * 8));
  // Other numeric dtypes (bool, complex, half and quad floats) can still be moved as values.
  const bool value_only = kind == 'b' || kind == 'c' || kind == 'f';
  if (!dtype.key_type && !(value_only && is_supported_value_size(size)))
    throw unsupported("not a numeric dtype of 1, 2, 4, 8 or 16 bytes");
  return dtype;
}

std::string npy_descr(KeyType type) {
  const std::string name(to_string(type));
  const std::size_t bytes = key_size(type);
  return std::string(bytes == 1 ? "|" : "<") + name[0] + std::to_string(bytes);
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

std::string make_npy_header(const std::string& descr, const std::vector<std::uint64_t>& shape,
                            std::size_t min_length) {
  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape_text(shape) + ", }";
  const bool v2 = std::max(dict.size() + 12, min_length) >= 65535;
  const std::size_t prefix = v2 ? 12 : 10;
  const std::size_t total = std::max((prefix + dict.size() + 1 + 63) / 64 * 64, min_length);
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict.push_back('\n');
  std::string header(magic);
  header.push_back(static_cast<char>(v2 ? 2 : 1));
  header.push_back(0);
  const std::size_t length = dict.size();
  for (std::size_t i = 0; i < (v2 ? 4u : 2u); ++i)
    header.push_back(static_cast<char>((length >> (8 * i)) & 0xFF));
  return header + dict;
}

}  // namespace clsort::cli
