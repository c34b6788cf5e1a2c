// Putting a tuning run's classes into an existing profile over a range of key counts, each within
// what its set can sort.
#include "profile_merge.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include <clsort/error.hpp>

namespace clsort::tune {
namespace {

std::uint64_t parse_count(const std::string& text, std::uint64_t if_empty,
                          const std::string& option) {
  if (text.empty()) return if_empty;
  if (!std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      text.size() > 20)
    throw Error("tune", option + ": '" + text + "' is not a count of keys");
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    throw Error("tune", option + ": '" + text + "' is not a count of keys");
  }
}

// `c` limited to key counts [lo, hi], if any are left.
std::optional<TunedClass> cut(TunedClass c, std::uint64_t lo, std::uint64_t hi) {
  c.problem.min_keys = std::max(c.problem.min_keys, lo);
  c.problem.max_keys = std::min(c.problem.max_keys, hi);
  if (c.problem.min_keys > c.problem.max_keys) return std::nullopt;
  return c;
}

// What a class sorts, whatever its key counts: a run's classes replace the profile's of the same.
using ClassKeys = std::tuple<unsigned, std::optional<KeyType>, std::size_t>;
ClassKeys keys_and_values(const TunedClass& c) {
  return {c.problem.key_bits, c.problem.key_type, c.problem.value_bytes};
}

}  // namespace

KeyRange parse_key_range(const std::string& text, const std::string& option) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos)
    throw Error("tune",
                option + ": '" + text + "' is not MIN:MAX (key counts; either may be empty)");
  KeyRange range;
  range.min_keys = parse_count(text.substr(0, colon), 0, option);
  range.max_keys = parse_count(text.substr(colon + 1), range.max_keys, option);
  if (range.min_keys > range.max_keys)
    throw Error("tune", option + ": '" + text + "' ends before it starts");
  return range;
}

std::vector<TunedClass> within_capacity(const std::vector<TunedClass>& classes) {
  std::vector<TunedClass> held;
  for (const TunedClass& c : classes) {
    if (std::optional<TunedClass> fitting = cut(c, 0, most_keys(c.params)))
      held.push_back(std::move(*fitting));
  }
  return held;
}

std::vector<TunedClass> merge_classes(const std::vector<TunedClass>& into,
                                      const std::vector<TunedClass>& tuned, KeyRange range) {
  std::set<ClassKeys> retuned;
  for (const TunedClass& c : tuned) retuned.insert(keys_and_values(c));
  std::vector<TunedClass> merged;
  const auto keep = [&](std::optional<TunedClass> c) {
    if (c) merged.push_back(std::move(*c));
  };
  for (const TunedClass& c : into) {
    if (!retuned.count(keys_and_values(c))) {
      merged.push_back(c);
      continue;
    }
    if (range.min_keys > 0) keep(cut(c, 0, range.min_keys - 1));
    if (range.max_keys < KeyRange{}.max_keys) keep(cut(c, range.max_keys + 1, KeyRange{}.max_keys));
  }
  for (const TunedClass& c : tuned) keep(cut(c, range.min_keys, range.max_keys));
  merged = within_capacity(merged);
  // A width's classes before its key types' (no type sorts first): a reader that knows no key
  // types takes the first class that matches, so it keeps to the width's.
  std::sort(merged.begin(), merged.end(), [](const TunedClass& a, const TunedClass& b) {
    return std::tie(a.problem.key_bits, a.problem.key_type, a.problem.value_bytes,
                    a.problem.min_keys) < std::tie(b.problem.key_bits, b.problem.key_type,
                                                   b.problem.value_bytes, b.problem.min_keys);
  });
  return merged;
}

}  // namespace clsort::tune
