// End-to-end tests of the CLI's formats: text, records, big-endian and multi-dimensional .npy,
// standard input and output.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <numeric>

#include "support/cli_fixture.hpp"

using namespace clsort;
using namespace clsort::test;

namespace {

std::string lines_of(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

template <class T>
T swapped(T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  std::reverse(bytes, bytes + sizeof(T));
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

// Each row of a rows x length array sorted on its own, like numpy.sort(axis=-1).
template <class K>
std::vector<K> rows_sorted(const std::vector<K>& keys, std::size_t length, bool descending,
                           std::vector<std::uint32_t>* order) {
  std::vector<K> result;
  for (std::size_t start = 0; start < keys.size(); start += length) {
    const std::vector<K> row(keys.begin() + start, keys.begin() + start + length);
    const auto row_order = reference_permutation(row, {descending});
    for (std::size_t i : row_order) {
      result.push_back(row[i]);
      if (order) order->push_back(static_cast<std::uint32_t>(i));
    }
  }
  return result;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(cli_formats, CliFixture)

BOOST_AUTO_TEST_CASE(text_lines_come_out_as_written) {
  std::ofstream(path("n.txt")) << lines_of({" 10", "-3", "+7", "-3 ", "0"});
  Result r = run("sort " + path("n.txt") + " -o " + path("s.txt"));
  BOOST_TEST(r.exit_code == 0, r.output);
  BOOST_TEST(read("s.txt") == lines_of({"-3", "-3 ", "0", "+7", " 10"}));  // stable, i64

  std::ofstream(path("f.txt")) << lines_of({"2.5", "nan", "-inf", "1e-3", "-0.0", "0", "10"});
  r = run("sort " + path("f.txt") + " --descending > " + path("d.txt"));
  BOOST_TEST(r.exit_code == 0, r.output);
  BOOST_TEST(read("d.txt") == lines_of({"10", "2.5", "1e-3", "-0.0", "0", "-inf", "nan"}));

  // --type changes the order: as u8, 200 and 100 are plain integers; --unique keeps the first.
  std::ofstream(path("u.txt")) << lines_of({"200", "100", "200", "5"});
  r = run("sort " + path("u.txt") + " --type u8 --unique --argsort " + path("u.order") + " -o " +
          path("uu.txt"));
  BOOST_TEST(r.exit_code == 0, r.output);
  BOOST_TEST(read("uu.txt") == lines_of({"5", "100", "200"}));
  BOOST_TEST(read_raw<std::uint32_t>("u.order") == std::vector<std::uint32_t>({3, 1, 0}));
}

BOOST_AUTO_TEST_CASE(text_errors_name_file_and_line) {
  std::ofstream(path("bad.txt")) << lines_of({"1", "2", "twelve"});
  Result r = run("sort " + path("bad.txt") + " -o " + path("out.txt"));
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(has(r, "bad.txt:3: 'twelve' is not a number"));
  std::ofstream(path("big.txt")) << lines_of({"1", "300"});
  r = run("sort " + path("big.txt") + " --type u8 -o " + path("out.txt"));
  BOOST_TEST(has(r, "big.txt:2: '300' is not an integer of type u8"));
  BOOST_TEST(!fs::exists(path("out.txt")));
  BOOST_TEST(run("sort --check " + path("bad.txt")).exit_code == 1);
  BOOST_TEST(has(run("sort --check " + path("big.txt")), "big.txt: sorted (2 keys)"));
}

BOOST_AUTO_TEST_CASE(records_move_whole_by_their_key_field) {
  // 12-byte records: a u32 serial number, then an f64 key at offset 4.
  const auto prices = make_keys<double>(Distribution::few_distinct, 9001, 21);
  std::string table;
  for (std::uint32_t i = 0; i < prices.size(); ++i) {
    table.append(reinterpret_cast<const char*>(&i), 4);
    table.append(reinterpret_cast<const char*>(&prices[i]), 8);
  }
  std::ofstream(path("t.bin"), std::ios::binary) << table;
  const Result r = run("sort " + path("t.bin") + " --record-size 12 --key-offset 4 --type f64 " +
                       "--descending -o " + path("s.bin"));
  BOOST_TEST(r.exit_code == 0, r.output);
  const auto order = reference_permutation(prices, {/*descending=*/true});
  std::string expected;
  for (std::size_t i : order) expected += table.substr(i * 12, 12);
  BOOST_TEST((read("s.bin") == expected));

  BOOST_TEST(run("sort " + path("t.bin") + " --record-size 12 --key-offset 4 --type f64 -o " +
                 path("s.npy"))
                 .exit_code == 0);
  BOOST_TEST(read("s.npy").find("'descr': '|V12'") != std::string::npos);  // NumPy's void dtype

  const std::vector<std::pair<std::string, std::string>> bad{
      {"--record-size 12 --key-offset 8 --type f64", "key field lies outside the 12-byte record"},
      {"--record-size 10 --type u32", "is not a multiple of the 10-byte record"},
      {"--key-offset 2 --type u32", "--key-offset needs --record-size"}};
  for (const auto& [options, message] : bad) {
    const Result e = run("sort " + path("t.bin") + " " + options + " -o " + path("bad.bin"));
    BOOST_TEST(e.exit_code != 0, options);
    BOOST_TEST(has(e, message), options);
  }
  BOOST_TEST(!fs::exists(path("bad.bin")));
}

BOOST_AUTO_TEST_CASE(big_endian_npy_keeps_its_byte_order) {
  const auto keys = make_keys<std::int32_t>(Distribution::extremes, 3001, 22);
  std::vector<std::int32_t> stored(keys.size());
  std::transform(keys.begin(), keys.end(), stored.begin(), swapped<std::int32_t>);
  std::ofstream out(path("be.npy"), std::ios::binary);
  out << cli::make_npy_header(">i4", keys.size());
  out.write(reinterpret_cast<const char*>(stored.data()), stored.size() * 4);
  out.close();
  const Result r = run("sort " + path("be.npy") + " -o " + path("s.npy"));
  BOOST_TEST(r.exit_code == 0, r.output);
  const std::size_t header = cli::make_npy_header(">i4", keys.size()).size();
  BOOST_TEST(read("s.npy").substr(0, header) == cli::make_npy_header(">i4", keys.size()));
  auto sorted = read_raw<std::int32_t>("s.npy", header);
  std::transform(sorted.begin(), sorted.end(), sorted.begin(), swapped<std::int32_t>);
  BOOST_TEST(first_difference(sorted, expected_sort(keys)) == keys.size());
  BOOST_TEST(has(run("sort --check " + path("s.npy")), "sorted (3001 keys)"));
}

BOOST_AUTO_TEST_CASE(multi_dimensional_npy_sorts_each_row) {
  // Many short rows (sorted together as segments) and a row length that is not a power of two.
  for (const auto& [rows, length] : {std::pair<std::size_t, std::size_t>{20000, 5}, {3, 1001}}) {
    const auto keys = make_keys<float>(Distribution::extremes, rows * length, 23);
    // A 3-D array when rows is even: (2, rows/2, length); else 2-D (rows, length).
    const std::vector<std::uint64_t> shape = rows % 2 == 0
                                                 ? std::vector<std::uint64_t>{2, rows / 2, length}
                                                 : std::vector<std::uint64_t>{rows, length};
    std::ofstream array(path("m.npy"), std::ios::binary);
    array << cli::make_npy_header("<f4", shape);
    array.write(reinterpret_cast<const char*>(keys.data()), keys.size() * 4);
    array.close();
    const Result r = run("sort " + path("m.npy") + " --descending -o " + path("s.npy") +
                         " --argsort " + path("a.npy"));
    BOOST_TEST(r.exit_code == 0, r.output);
    std::vector<std::uint32_t> order;
    const auto expected = rows_sorted(keys, length, true, &order);
    const std::size_t header = cli::make_npy_header("<f4", shape).size();
    BOOST_TEST(read("s.npy").substr(0, header) == cli::make_npy_header("<f4", shape));
    BOOST_TEST(first_difference(read_raw<float>("s.npy", header), expected) == keys.size());
    BOOST_TEST(read_raw<std::uint32_t>("a.npy", cli::make_npy_header("<u4", shape).size()) ==
               order);
    const Result check = run("sort --check --descending " + path("s.npy"));
    BOOST_TEST(check.exit_code == 0, check.output);
  }
  const Result unsorted = run("sort --check " + path("m.npy"));
  BOOST_TEST(has(unsorted, "not sorted: row "));
  const Result unique = run("sort " + path("m.npy") + " --unique -o " + path("u.npy"));
  BOOST_TEST(unique.exit_code == 1);
  BOOST_TEST(has(unique, "--unique needs a 1-D array; this one has shape (3, 1001)"));
}

BOOST_AUTO_TEST_CASE(standard_input_and_output) {
  const auto keys = make_keys<std::uint64_t>(Distribution::uniform, 7777, 24);
  write_raw("k.u64", keys);
  write_npy("k.npy", keys);
  Result r = run("sort " + path("k.u64") + " --type u64 > " + path("out.u64"));
  BOOST_TEST(r.exit_code == 0, r.output);
  BOOST_TEST(first_difference(read_raw<std::uint64_t>("out.u64"), expected_sort(keys)) ==
             keys.size());
  r = run("sort - --type u64 -o " + path("in.u64") + " < " + path("k.u64"));
  BOOST_TEST(r.exit_code == 0, r.output);
  BOOST_TEST(read("in.u64") == read("out.u64"));
  // A .npy on standard input is recognised by its magic, and written back as .npy.
  r = run("sort - < " + path("k.npy") + " > " + path("piped.npy"));
  BOOST_TEST(r.exit_code == 0, r.output);
  BOOST_TEST(read("piped.npy").substr(read("piped.npy").size() - 8 * keys.size()) ==
             read("out.u64"));
  std::ofstream(path("t.txt")) << "3\n1\n2\n";
  r = run("sort - --format text < " + path("t.txt") + " > " + path("t.sorted"));
  BOOST_TEST(read("t.sorted") == "1\n2\n3\n");
  r = run("sort - < " + path("k.u64") + " > " + path("nothing"));
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(has(r, "standard input: raw file: give its element type with --type"));
}

BOOST_AUTO_TEST_SUITE_END()
