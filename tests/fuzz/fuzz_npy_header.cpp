// Fuzz target: the .npy header parser on arbitrary bytes, and the header writer's round trip.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "input_error.hpp"
#include "npy.hpp"

namespace {

bool element_count_fits(const clsort::cli::NpyHeader& header, std::size_t element_size) {
  std::uint64_t bytes = element_size;
  for (const std::uint64_t d : header.shape)
    if (__builtin_mul_overflow(bytes, d, &bytes)) return false;
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
  // An accepted header must describe an array whose size in bytes can be computed.
  if (header.data_offset > size || !element_count_fits(header, dtype.size)) std::abort();
  // What the writer makes of it parses back to the same array.
  const NpyHeader again = parse_npy_header(make_npy_header(header.descr, header.shape), "again");
  if (again.descr != header.descr || again.shape != header.shape) std::abort();
  return 0;
}
