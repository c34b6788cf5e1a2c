// Tests of the .npy reader/writer and of opening inputs (npy, raw, records) with every bad input.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "input_error.hpp"
#include "input_file.hpp"
#include "npy.hpp"
#include "support/error_checks.hpp"
#include "text_keys.hpp"

using namespace clsort;
using namespace clsort::cli;
using clsort::test::message_has;
namespace fs = std::filesystem;

namespace {

// A header as NumPy writes it for format version `major`, around an arbitrary dict.
std::string npy_with_dict(int major, const std::string& dict) {
  std::string header = "\x93NUMPY";
  header.push_back(static_cast<char>(major));
  header.push_back(0);
  const std::string padded = dict + std::string(3, ' ') + "\n";
  const std::size_t width = major == 1 ? 2 : 4;
  for (std::size_t i = 0; i < width; ++i)
    header.push_back(static_cast<char>((padded.size() >> (8 * i)) & 0xFF));
  return header + padded;
}

void expect_header_error(const std::string& bytes, const std::string& fragment) {
  BOOST_CHECK_EXCEPTION(parse_npy_header(bytes, "bad.npy"), InputError, [&](const InputError& e) {
    return message_has(e, "bad.npy") && message_has(e, fragment);
  });
}

struct TempFolder {
  fs::path path = fs::temp_directory_path() / ("clsort-inputs-" + std::to_string(::getpid()));
  TempFolder() { fs::create_directories(path); }
  ~TempFolder() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path / name, std::ios::binary) << bytes;
    return (path / name).string();
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(input_files)

BOOST_AUTO_TEST_CASE(reads_versions_1_2_and_3) {
  for (int major : {1, 2, 3}) {
    const std::string bytes =
        npy_with_dict(major, "{'descr': '<f8', 'fortran_order': False, 'shape': (12,), }");
    const NpyHeader h = parse_npy_header(bytes, "x.npy");
    BOOST_TEST(h.major_version == major);
    BOOST_TEST(h.descr == "<f8");
    BOOST_TEST(h.shape == std::vector<std::uint64_t>{12});
    BOOST_TEST(h.data_offset == bytes.size());
  }
  const NpyHeader h = parse_npy_header(
      npy_with_dict(1, "{\"shape\": (2, 3), \"fortran_order\": True, \"descr\": \"|u1\"}"),
      "x.npy");
  BOOST_TEST(h.element_count() == 6u);
  BOOST_TEST(h.fortran_order);
}

BOOST_AUTO_TEST_CASE(written_headers_round_trip_and_align) {
  for (KeyType t : {KeyType::u8, KeyType::i16, KeyType::f32, KeyType::u64}) {
    const std::string header = make_npy_header(npy_descr(t), 123456789);
    BOOST_TEST(header.size() % 64 == 0u);
    const NpyHeader h = parse_npy_header(header, "out.npy");
    BOOST_TEST(h.descr == npy_descr(t));
    BOOST_TEST(h.shape == std::vector<std::uint64_t>{123456789});
    BOOST_TEST((parse_npy_dtype(h.descr, "out.npy").key_type == t));
  }
  BOOST_TEST(npy_descr(KeyType::u8) == "|u1");
  BOOST_TEST(npy_descr(KeyType::f64) == "<f8");
}

BOOST_AUTO_TEST_CASE(bad_headers_are_named) {
  expect_header_error("hello world, not numpy", "no \\x93NUMPY magic");
  expect_header_error(std::string("\x93NUMPY\x04\x00\x10\x00", 10), "version 4");
  expect_header_error(
      npy_with_dict(1, "{'descr': '<u4', 'fortran_order': False, 'shape': (3,), }").substr(0, 30),
      "truncated .npy header");
  expect_header_error(npy_with_dict(1, "{'descr': '<u4', 'shape': (3,), }"), "lacks one of");
  expect_header_error(
      npy_with_dict(1, "{'descr': [('a', '<u4')], 'fortran_order': False, 'shape': (3,), }"),
      "structured");
  expect_header_error(npy_with_dict(1, "{'descr': '<u4', 'fortran_order': maybe, 'shape': (3,), }"),
                      "True or False");
  expect_header_error(npy_with_dict(1, "{'descr': '<u4', 'fortran_order': False, 'shape': (x,), }"),
                      "tuple of integers");
  expect_header_error(npy_with_dict(1, "{'descr': '<u4', 'fortran_order': False, 'colour': 1, }"),
                      "unexpected key 'colour'");
  // Found by fuzzing: a shape whose element count wraps around 2^64 was accepted.
  expect_header_error(npy_with_dict(2,
                                    "{'descr': '<f2', 'fortran_order': False, 'shape': (16, "
                                    "2, 6, 2, 2, 6, 2, 2, 6, 2, 3222, 32222222222), }"),
                      "2^64 elements or more");
}

BOOST_AUTO_TEST_CASE(an_array_of_2_to_the_64_bytes_is_refused) {
  TempFolder folder;
  const std::string file = folder.write(
      "huge.npy",
      npy_with_dict(1,
                    "{'descr': '<u8', 'fortran_order': False, 'shape': (4611686018427387904,), }"));
  BOOST_CHECK_EXCEPTION(InputFile(file, {}), InputError, [&](const InputError& e) {
    return message_has(e, "huge.npy") && message_has(e, "2^64 bytes or more");
  });
}

BOOST_AUTO_TEST_CASE(dtypes) {
  BOOST_TEST((parse_npy_dtype("|i1", "f").key_type == KeyType::i8));
  BOOST_TEST((parse_npy_dtype("<u2", "f").key_type == KeyType::u16));
  BOOST_TEST((parse_npy_dtype("<f4", "f").key_type == KeyType::f32));
  const NpyDtype complex = parse_npy_dtype("<c16", "f");
  BOOST_TEST(!complex.key_type);  // a value, never a key
  BOOST_TEST(complex.size == 16u);
  BOOST_TEST(parse_npy_dtype(">u4", "f").big_endian);
  BOOST_TEST(!parse_npy_dtype("|u1", "f").big_endian);
  // "<u99999999999999999999" was a std::out_of_range from std::stoul, not an InputError.
  for (const char* bad :
       {"|O8", "<U3", "|S5", "<M8", "<c32", "u4", "<u3", "<u99999999999999999999"})
    BOOST_CHECK_EXCEPTION(parse_npy_dtype(bad, "d.npy"), InputError, [&](const InputError& e) {
      return message_has(e, "d.npy") && message_has(e, bad);
    });
}

BOOST_AUTO_TEST_CASE(opening_inputs) {
  TempFolder folder;
  const std::string data(24, '\x01');
  ReadOptions u16;
  u16.type = "u16";
  InputFile raw(folder.write("a.raw", data), u16);
  BOOST_TEST(*raw.count() == 12u);
  BOOST_TEST((raw.layout().key_type == KeyType::u16));
  BOOST_TEST(raw.layout().plain_keys());

  InputFile array(folder.write("a.npy", make_npy_header("<i4", 6) + data), ReadOptions{});
  BOOST_TEST(*array.count() == 6u);
  BOOST_TEST(*array.data_bytes() == 24u);  // the header (a 64-byte multiple) is not data
  std::vector<char> items;
  BOOST_TEST(array.read_items(items, 4) == 4u);
  BOOST_TEST(array.read_items(items, 4) == 2u);
  BOOST_TEST(items.size() == 24u);
  BOOST_TEST(array.read_items(items, 4) == 0u);

  InputFile big_endian(folder.write("b.npy", make_npy_header(">f8", {3, 1}) + data), ReadOptions{});
  BOOST_TEST(big_endian.layout().big_endian);
  BOOST_TEST(big_endian.shape() == std::vector<std::uint64_t>({3, 1}));

  ReadOptions records = u16;
  records.record_size = 6;
  records.key_offset = 4;
  InputFile table(folder.write("t.bin", data), records);
  BOOST_TEST(*table.count() == 4u);
  BOOST_TEST(table.layout().key_offset == 4u);
  BOOST_TEST(!table.layout().plain_keys());
}

BOOST_AUTO_TEST_CASE(formats_by_extension) {
  BOOST_TEST((format_of_path("x/a.npy") == FileFormat::npy));
  BOOST_TEST((format_of_path("a.txt") == FileFormat::text));
  BOOST_TEST((format_of_path("a.u32") == FileFormat::raw));
  BOOST_TEST((parse_format("text") == FileFormat::text));
  BOOST_TEST(!parse_format("csv"));
}

BOOST_AUTO_TEST_CASE(bad_inputs_name_the_file_or_option) {
  TempFolder folder;
  const std::string data(24, '\x01');
  const auto expect = [&](const std::string& name, const std::string& bytes, ReadOptions options,
                          const std::string& fragment) {
    const std::string path = folder.write(name, bytes);
    BOOST_CHECK_EXCEPTION(InputFile(path, options), InputError,
                          [&](const InputError& e) { return message_has(e, fragment); });
  };
  ReadOptions u32;
  u32.type = "u32";
  expect("odd.raw", std::string(10, 'x'), u32,
         "odd.raw: size 10 bytes is not a multiple of the 4-byte u32 element");
  expect("untyped.raw", data, {}, "untyped.raw: raw file: give its element type with --type");
  ReadOptions typo;
  typo.type = "u31";
  expect("typo.raw", data, typo, "--type 'u31' is not one of");
  ReadOptions outside = u32;
  outside.record_size = 6;
  outside.key_offset = 4;
  expect("t.bin", data, outside,
         "--key-offset 4: the u32 key field lies outside the 6-byte record");
  outside.key_offset = 0;
  outside.record_size = 5;
  expect("t5.bin", data, outside, "is not a multiple of the 5-byte record");
  expect("fortran.npy",
         npy_with_dict(1, "{'descr': '<u4', 'fortran_order': True, 'shape': (2, 3), }"), {},
         "Fortran-ordered");
  expect("scalar.npy", npy_with_dict(1, "{'descr': '<u4', 'fortran_order': False, 'shape': (), }"),
         {}, "0-d array");
  expect("cut.npy", std::string("\x93NUMPY\x01\x00\x40", 9), {}, "truncated .npy header");
  BOOST_CHECK_EXCEPTION(
      InputFile((folder.path / "missing.npy").string(), {}), InputError,
      [](const InputError& e) { return message_has(e, "missing.npy: cannot open"); });
  BOOST_CHECK_EXCEPTION(InputFile(folder.path.string(), {}), InputError,
                        [](const InputError& e) { return message_has(e, "is a folder"); });

  InputFile short_npy(folder.write("short.npy", make_npy_header("<i4", 7) + data), {});
  std::vector<char> items;
  BOOST_CHECK_EXCEPTION(short_npy.read_items(items, 100), InputError, [](const InputError& e) {
    return message_has(e, "short.npy: truncated: the header promises 7 elements");
  });
}

template <class T>
std::vector<T> keys_of(const TextKeys& text) {
  std::vector<T> keys(text.lines.size());
  std::memcpy(keys.data(), text.keys.data(), text.keys.size());
  return keys;
}

BOOST_AUTO_TEST_CASE(text_numbers) {
  const TextKeys integers = parse_text_keys(" 12\n-7\r\n+3\n9223372036854775807\n", "t", {});
  BOOST_TEST((integers.type == KeyType::i64));
  BOOST_TEST(integers.lines.size() == 4u);  // the final newline starts no line
  BOOST_TEST(integers.line(1) == "-7\r");   // lines are kept as written
  BOOST_TEST(keys_of<std::int64_t>(integers) ==
             std::vector<std::int64_t>({12, -7, 3, 9223372036854775807}));

  const TextKeys floats = parse_text_keys("1e3\n-inf\n2\nnan\n0x1p-2\n-0.0", "t", {});
  BOOST_TEST((floats.type == KeyType::f64));
  const auto values = keys_of<double>(floats);
  BOOST_TEST(values[0] == 1000.0);
  BOOST_TEST(std::isinf(values[1]));
  BOOST_TEST(std::isnan(values[3]));
  BOOST_TEST(values[4] == 0.25);
  BOOST_TEST(std::signbit(values[5]));

  BOOST_TEST(keys_of<std::uint8_t>(parse_text_keys("255\n0\n", "t", KeyType::u8)) ==
             std::vector<std::uint8_t>({255, 0}));
  BOOST_TEST(parse_text_keys("", "t", {}).lines.empty());
}

BOOST_AUTO_TEST_CASE(bad_text_names_file_and_line) {
  const auto expect = [](const std::string& text, std::optional<KeyType> type,
                         const std::string& fragment) {
    BOOST_CHECK_EXCEPTION(parse_text_keys(text, "n.txt", type), InputError,
                          [&](const InputError& e) { return message_has(e, fragment); });
  };
  expect("1\n2\nthree\n", {}, "n.txt:3: 'three' is not a number of type f64");
  expect("1\n\n2\n", {}, "n.txt:2: '' is not a number");
  expect("1\n256\n", KeyType::u8, "n.txt:2: '256' is not an integer of type u8");
  expect("-1\n", KeyType::u32, "n.txt:1: '-1' is not an integer of type u32");
  expect("1.5\n", KeyType::i32, "n.txt:1: '1.5' is not an integer");
  expect("1.5 2.5\n", KeyType::f32, "n.txt:1");
}

BOOST_AUTO_TEST_SUITE_END()
