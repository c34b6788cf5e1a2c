// Fuzz target: the .npy header parser on arbitrary bytes, and the header writer's round trip.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "input_error.hpp"
#include "npy.hpp"

namespace {

bool element_count_fits(const clsort::cli::NpyHeader& header) {
  std::uint64_t count = 1;
  for (const std::uint64_t d : header.shape)
    if (__builtin_mul_overflow(count, d, &count)) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace clsort::cli;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  NpyHeader header;
  NpyDtype dtype;
  try {
    header = parse_npy_header(bytes, "fuzz.npy");
    dtype = parse_npy_dtype(header.descr, "fuzz.npy");
  } catch (const InputError&) {
    return 0;  // rejected with a message naming the file: fine
  }
  // An accepted header lies within the input and counts its elements without overflow.
  if (header.data_offset > size || !element_count_fits(header) || dtype.size == 0) std::abort();
  // What the writer makes of it parses back to the same array.
  const NpyHeader again = parse_npy_header(make_npy_header(header.descr, header.shape), "again");
  if (again.descr != header.descr || again.shape != header.shape) std::abort();
  return 0;
}
