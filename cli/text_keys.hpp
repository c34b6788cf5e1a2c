// Text inputs: one number per line, parsed into keys; the original lines are kept for the output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <clsort/types.hpp>

namespace clsort::cli {

struct TextKeys {
  struct Line {
    std::size_t offset, length;  ///< within `content`, without the newline
  };
  std::string content;      ///< the whole text
  std::vector<Line> lines;  ///< a trailing newline does not start another line
  KeyType type = KeyType::i64;
  std::vector<char> keys;  ///< one key of `type` per line, native byte order

  std::string_view line(std::size_t i) const {
    return std::string_view(content).substr(lines[i].offset, lines[i].length);
  }
};

/// Splits `content` into lines and parses each as a number of `type`; without a type, i64 when
/// every line is an integer that fits, else f64. Surrounding blanks are allowed; anything else
/// (an empty line, a word, an integer out of range) is an InputError naming `file` and the line.
TextKeys parse_text_keys(std::string content, const std::string& file, std::optional<KeyType> type);

}  // namespace clsort::cli
