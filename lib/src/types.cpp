// Key type traits: sizes, kinds and names.
#include "clsort/types.hpp"

#include <array>

namespace clsort {
namespace {

struct KeyTypeInfo {
  KeyType type;
  std::string_view name;
  std::size_t size;
  KeyKind kind;
};

constexpr std::array<KeyTypeInfo, 10> key_types{{
    {KeyType::u8, "u8", 1, KeyKind::unsigned_integer},
    {KeyType::u16, "u16", 2, KeyKind::unsigned_integer},
    {KeyType::u32, "u32", 4, KeyKind::unsigned_integer},
    {KeyType::u64, "u64", 8, KeyKind::unsigned_integer},
    {KeyType::i8, "i8", 1, KeyKind::signed_integer},
    {KeyType::i16, "i16", 2, KeyKind::signed_integer},
    {KeyType::i32, "i32", 4, KeyKind::signed_integer},
    {KeyType::i64, "i64", 8, KeyKind::signed_integer},
    {KeyType::f32, "f32", 4, KeyKind::floating_point},
    {KeyType::f64, "f64", 8, KeyKind::floating_point},
}};

const KeyTypeInfo& info(KeyType type) {
  return key_types.at(static_cast<std::size_t>(type));
}

}  // namespace

std::size_t key_size(KeyType type) {
  return info(type).size;
}
KeyKind key_kind(KeyType type) {
  return info(type).kind;
}
std::string_view to_string(KeyType type) {
  return info(type).name;
}

std::optional<KeyType> parse_key_type(std::string_view name) {
  for (const auto& entry : key_types)
    if (entry.name == name) return entry.type;
  return std::nullopt;
}

}  // namespace clsort
