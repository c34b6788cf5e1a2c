// Key types, their traits and the options of one sort call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace clsort {

/// The key types clsort sorts. Order: integers naturally; floating point
/// -inf < ... < -0.0 == +0.0 < ... < +inf < NaN (every NaN, any sign or payload, last).
enum class KeyType { u8, u16, u32, u64, i8, i16, i32, i64, f32, f64 };

/// How a key type's bits are turned into an order.
enum class KeyKind { unsigned_integer, signed_integer, floating_point };

/// Size of one key in bytes.
std::size_t key_size(KeyType type);
/// Width of one key in bits.
inline unsigned key_bits(KeyType type) {
  return static_cast<unsigned>(key_size(type) * 8);
}
KeyKind key_kind(KeyType type);
/// The short name: "u8" ... "f64".
std::string_view to_string(KeyType type);
/// Parses a short name ("u32", "f64", ...); nullopt if it is none.
std::optional<KeyType> parse_key_type(std::string_view name);

/// The KeyType of a C++ key type; only defined for the supported types.
template <class T>
constexpr KeyType key_type_of() {
  using U = std::remove_cv_t<T>;
  static_assert(std::is_arithmetic_v<U> && !std::is_same_v<U, bool> && sizeof(U) <= 8 &&
                    !std::is_same_v<U, long double>,
                "clsort sorts 8/16/32/64-bit integers, float and double");
  if constexpr (std::is_floating_point_v<U>) {
    return sizeof(U) == 4 ? KeyType::f32 : KeyType::f64;
  } else if constexpr (std::is_signed_v<U>) {
    return sizeof(U) == 1   ? KeyType::i8
           : sizeof(U) == 2 ? KeyType::i16
           : sizeof(U) == 4 ? KeyType::i32
                            : KeyType::i64;
  } else {
    return sizeof(U) == 1   ? KeyType::u8
           : sizeof(U) == 2 ? KeyType::u16
           : sizeof(U) == 4 ? KeyType::u32
                            : KeyType::u64;
  }
}

/// Value sizes that sort_pairs moves with the keys.
constexpr bool is_supported_value_size(std::size_t bytes) {
  return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16;
}

/// When a onesweep sort reads its digit histograms back to the host to skip the passes whose
/// digit is the same for every key (keys varying in few bits then sort in fewer passes). The
/// enqueuing call waits for the read. On a GPU a pass that is not skipped but constant only
/// copies: its kernel sees so in the counts. The reduce-then-scan algorithm never skips a pass.
enum class ConstantPassCheck {
  /// For sorts of 2^21 keys or more, the first pass always runs; the counts are read while it
  /// runs and the later constant passes are skipped, so the device does not wait for the host.
  /// Smaller sorts do not read: there a pass takes less time than the read's round trip; nor
  /// do sorts of one pass, which has no later pass to skip.
  after_first_pass,
  /// Before any pass: a constant first pass is skipped too, but the device idles for the read's
  /// round trip (on a GPU about as long as a pass of a few million keys).
  before_first_pass,
  /// Every pass runs, and sort() on device buffers never waits for the device.
  never,
};

/// Options of one sort call.
struct SortOptions {
  /// Reverse order for all non-NaN keys; NaNs still last; equal keys keep their input order.
  bool descending = false;
  /// Sort by bits [begin_bit, end_bit) of the ordered key (the key's bits mapped so that their
  /// unsigned order is the sort order, inverted for descending), as CUB's begin_bit/end_bit.
  /// begin_bit == end_bit sorts nothing; end_bit defaults to the key's width.
  unsigned begin_bit = 0;
  std::optional<unsigned> end_bit;
  /// When constant-digit passes are looked for (onesweep only).
  ConstantPassCheck constant_pass_check = ConstantPassCheck::after_first_pass;
  /// Device-buffer sorts: whether the returned event marks the sort's end. false, on an
  /// in-order queue: the sort makes no event of its own (the marker that makes it costs NVIDIA's
  /// OpenCL about 1 us, a twentieth of a sort of a few thousand keys) and returns a null event;
  /// commands enqueued after it on the queue, and finish(), still follow it. Sorts on an
  /// out-of-order queue, and the synchronous host-data sorts, always make one.
  bool return_event = true;
};

}  // namespace clsort
