// Tests of the .npy reader/writer and of array file loading (npy and raw) with every bad input.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "array_file.hpp"
#include "input_error.hpp"
#include "npy.hpp"

using namespace clsort;
using namespace clsort::cli;
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

bool error_has(const InputError& e, const std::string& fragment) {
  const bool found = std::string(e.what()).find(fragment) != std::string::npos;
  if (!found) BOOST_TEST_MESSAGE("message was: " << e.what());
  return found;
}

void expect_header_error(const std::string& bytes, const std::string& fragment) {
  BOOST_CHECK_EXCEPTION(parse_npy_header(bytes, "bad.npy"), InputError, [&](const InputError& e) {
    return error_has(e, "bad.npy") && error_has(e, fragment);
  });
}

struct TempFolder {
  fs::path path = fs::temp_directory_path() / ("clsort-npy-" + std::to_string(::getpid()));
  TempFolder() { fs::create_directories(path); }
  ~TempFolder() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path / name, std::ios::binary) << bytes;
    return (path / name).string();
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(npy_files)

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
}

BOOST_AUTO_TEST_CASE(dtypes) {
  BOOST_TEST((parse_npy_dtype("|i1", "f").key_type == KeyType::i8));
  BOOST_TEST((parse_npy_dtype("<u2", "f").key_type == KeyType::u16));
  BOOST_TEST((parse_npy_dtype("<f4", "f").key_type == KeyType::f32));
  const NpyDtype complex = parse_npy_dtype("<c16", "f");
  BOOST_TEST(!complex.key_type);  // a value, never a key
  BOOST_TEST(complex.size == 16u);
  for (const char* bad : {"|O8", "<U3", "|S5", ">u4", "<M8", "<c32", "u4", "<u3"})
    BOOST_CHECK_EXCEPTION(parse_npy_dtype(bad, "d.npy"), InputError, [&](const InputError& e) {
      return error_has(e, "d.npy") && error_has(e, bad);
    });
}

BOOST_AUTO_TEST_CASE(loading_array_files) {
  TempFolder folder;
  const std::string data(24, '\x01');
  const auto raw = load_array(folder.write("a.raw", data), std::string("u16"), "--type");
  BOOST_TEST(raw.count == 12u);
  BOOST_TEST((raw.key_type == KeyType::u16));

  const std::string npy = make_npy_header("<i4", 6) + data;
  const auto array = load_array(folder.write("a.npy", npy), std::nullopt, "--type");
  BOOST_TEST(array.count == 6u);
  BOOST_TEST(array.data_offset == 128u);  // as NumPy lays it out: a 64-byte multiple

  const auto expect = [&](const std::string& name, const std::string& bytes,
                          std::optional<std::string> type, const std::string& fragment) {
    const std::string path = folder.write(name, bytes);
    BOOST_CHECK_EXCEPTION(load_array(path, type, "--type"), InputError,
                          [&](const InputError& e) { return error_has(e, fragment); });
  };
  expect("odd.raw", std::string(10, 'x'), "u32",
         "odd.raw: size 10 bytes is not a multiple of the 4-byte u32");
  expect("untyped.raw", data, std::nullopt,
         "untyped.raw: raw file: give its element type with --type");
  expect("typo.raw", data, "u31", "--type 'u31' is not one of");
  expect("short.npy", make_npy_header("<i4", 7) + data, std::nullopt,
         "short.npy: truncated: the header promises 7 elements");
  expect("matrix.npy",
         npy_with_dict(1, "{'descr': '<u4', 'fortran_order': False, 'shape': (2, 3), }"),
         std::nullopt, "only 1-D arrays can be sorted; this one has shape (2, 3)");
  BOOST_CHECK_EXCEPTION(
      load_array((folder.path / "missing.npy").string(), std::nullopt, "--type"), InputError,
      [](const InputError& e) { return error_has(e, "missing.npy: cannot open"); });
}

BOOST_AUTO_TEST_SUITE_END()
