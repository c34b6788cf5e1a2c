// Number parsing for text inputs: integers with from_chars (range-checked), floats with strtod.
#include "text_keys.hpp"

#include <charconv>
#include <cstdlib>
#include <cstring>

#include <clsort/key_order.hpp>

#include "input_error.hpp"

namespace clsort::cli {
namespace {

std::vector<TextKeys::Line> split_lines(std::string_view text) {
  std::vector<TextKeys::Line> lines;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back({start, end - start});
    start = end + 1;
  }
  return lines;
}

std::string_view trimmed(std::string_view line) {
  const char* blanks = " \t\r\v\f";
  const std::size_t first = line.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return line.substr(first, line.find_last_not_of(blanks) - first + 1);
}

template <class T>
bool parse_integer(std::string_view token, T& value) {
  if (!token.empty() && token[0] == '+') token.remove_prefix(1);
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  return error == std::errc() && end == token.data() + token.size();
}

template <class T>
bool parse_float(std::string_view token, T& value) {
  const std::string text(token);  // strtod needs a terminated string
  char* end = nullptr;
  const double parsed = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) return false;
  // Out of range is fine for floats: strtod rounds to ±inf or a denormal, as the input means.
  value = static_cast<T>(parsed);
  return true;
}

template <class T>
bool parse_number(std::string_view token, T& value) {
  if constexpr (std::is_floating_point_v<T>) {
    return parse_float(token, value);
  } else {
    return parse_integer(token, value);
  }
}

template <class T>
void parse_all(TextKeys& text, const std::string& file) {
  text.keys.resize(text.lines.size() * sizeof(T));
  for (std::size_t i = 0; i < text.lines.size(); ++i) {
    T value{};
    if (!parse_number(trimmed(text.line(i)), value))
      throw InputError(file + ":" + std::to_string(i + 1),
                       "'" + std::string(text.line(i).substr(0, 60)) + "' is not " +
                           (std::is_floating_point_v<T> ? "a number" : "an integer") + " of type " +
                           std::string(to_string(key_type_of<T>())));
    std::memcpy(text.keys.data() + i * sizeof(T), &value, sizeof(T));
  }
}

bool all_integers(const TextKeys& text) {
  std::int64_t ignored;
  for (std::size_t i = 0; i < text.lines.size(); ++i)
    if (!parse_integer(trimmed(text.line(i)), ignored)) return false;
  return true;
}

}  // namespace

TextKeys parse_text_keys(std::string content, const std::string& file,
                         std::optional<KeyType> type) {
  TextKeys text;
  text.content = std::move(content);
  text.lines = split_lines(text.content);
  text.type = type ? *type : all_integers(text) ? KeyType::i64 : KeyType::f64;
  with_key_type(text.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    parse_all<T>(text, file);
  });
  return text;
}

}  // namespace clsort::cli
