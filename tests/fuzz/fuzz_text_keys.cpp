// Fuzz target: the text-input number parser (one number per line) for every key type.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "input_error.hpp"
#include "text_keys.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace clsort;
  if (size == 0) return 0;
  // The first byte picks the type: one of the ten key types, or none (i64 / f64 by content).
  const int choice = data[0] % 11;
  const std::optional<KeyType> type =
      choice == 10 ? std::nullopt : std::optional<KeyType>(static_cast<KeyType>(choice));
  std::string content(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    const cli::TextKeys text = cli::parse_text_keys(std::move(content), "fuzz.txt", type);
    // One key per line, every line inside the text.
    if (text.keys.size() != text.lines.size() * key_size(text.type)) std::abort();
    for (const auto& line : text.lines)
      if (line.offset + line.length > text.content.size()) std::abort();
  } catch (const cli::InputError&) {
  }
  return 0;
}
