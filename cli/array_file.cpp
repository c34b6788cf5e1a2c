// Array files: format detection, validation and atomic saving.
#include "array_file.hpp"

#include "atomic_file.hpp"
#include "input_error.hpp"
#include "npy.hpp"

namespace clsort::cli {
namespace {

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

void load_npy(ArrayFile& array) {
  const NpyHeader header = parse_npy_header(array.content, array.path);
  const NpyDtype dtype = parse_npy_dtype(header.descr, array.path);
  if (header.shape.size() != 1)
    throw InputError(array.path, "only 1-D arrays can be sorted; this one has shape " +
                                     shape_text(header.shape));
  array.descr = header.descr;
  array.item_size = dtype.size;
  array.key_type = dtype.key_type;
  array.data_offset = header.data_offset;
  array.count = header.element_count();
  const std::uint64_t available = array.content.size() - header.data_offset;
  if (available / array.item_size < array.count)
    throw InputError(array.path, "truncated: the header promises " + std::to_string(array.count) +
                                     " elements of " + std::to_string(array.item_size) +
                                     " bytes, the file holds " + std::to_string(available) +
                                     " bytes of data");
}

void load_raw(ArrayFile& array, const std::optional<std::string>& raw_type, const char* option) {
  if (!raw_type)
    throw InputError(array.path, std::string("raw file: give its element type with ") + option +
                                     " (u8, u16, u32, u64, i8, i16, i32, i64, f32, f64)");
  array.key_type = parse_key_type(*raw_type);
  if (!array.key_type)
    throw InputError("", std::string(option) + " '" + *raw_type +
                             "' is not one of u8, u16, u32, u64, i8, i16, i32, i64, f32, f64");
  array.item_size = key_size(*array.key_type);
  if (array.content.size() % array.item_size != 0)
    throw InputError(array.path, "size " + std::to_string(array.content.size()) +
                                     " bytes is not a multiple of the " +
                                     std::to_string(array.item_size) + "-byte " + *raw_type +
                                     " element");
  array.count = array.content.size() / array.item_size;
}

}  // namespace

FileFormat format_of(const std::string& path) {
  const bool npy = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
  return npy ? FileFormat::npy : FileFormat::raw;
}

ArrayFile load_array(const std::string& path, const std::optional<std::string>& raw_type,
                     const char* type_option) {
  ArrayFile array;
  array.path = path;
  array.format = format_of(path);
  array.content = read_file(path);
  if (array.format == FileFormat::npy) {
    load_npy(array);
  } else {
    load_raw(array, raw_type, type_option);
  }
  return array;
}

void write_array(AtomicFile& out, const std::string& path, ArrayFile& array) {
  if (format_of(path) == FileFormat::npy) {
    const std::string descr = array.descr.empty() ? npy_descr(*array.key_type) : array.descr;
    out.write(make_npy_header(descr, array.count));
  }
  out.write(array.data(), array.count * array.item_size);
}

}  // namespace clsort::cli
