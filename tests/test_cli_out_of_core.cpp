// End-to-end tests of out-of-core sorting: a tiny -S forces chunks and a k-way merge, and the
// result must equal the in-memory sort bit for bit, stability included.
#include <boost/test/unit_test.hpp>

#include <numeric>

#include "support/cli_fixture.hpp"

using namespace clsort;
using namespace clsort::test;

BOOST_FIXTURE_TEST_SUITE(cli_out_of_core, CliFixture)

BOOST_AUTO_TEST_CASE(chunks_and_merge_equal_the_in_memory_sort) {
  const std::size_t n = 60013;
  const auto keys = make_keys<double>(Distribution::extremes, n, 41);
  std::vector<std::uint16_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint16_t>(i * 31);
  write_npy("k.npy", keys);
  write_npy("v.npy", values);
  fs::create_directories(path("runs"));
  for (const std::string options : {"", " --descending", " --unique", " --begin-bit 40"}) {
    const std::string common = "sort " + path("k.npy") + " --values " + path("v.npy") + options;
    const std::string in_memory =
        " -o " + path("m.npy") + " --values-out " + path("mv.npy") + " --argsort " + path("mp.npy");
    const std::string chunked = " -o " + path("c.npy") + " --values-out " + path("cv.npy") +
                                " --argsort " + path("cp.npy") + " -S 128K -T " + path("runs");
    const Result m = run(common + in_memory);
    BOOST_TEST(m.exit_code == 0, m.output);
    BOOST_TEST(!has(m, "out of core"));
    const Result c = run(common + chunked + " -v");
    BOOST_TEST(c.exit_code == 0, c.output);
    BOOST_TEST(has(c, "sorted runs merged"), options);
    BOOST_TEST(read("c.npy") == read("m.npy"), options);
    BOOST_TEST(read("cv.npy") == read("mv.npy"), options);
    BOOST_TEST(read("cp.npy") == read("mp.npy"), options);
    BOOST_TEST(fs::is_empty(path("runs")));
  }
  // And the in-memory result is the reference's (descending is the last one written above).
  const auto order = reference_permutation(keys, {/*descending=*/false, /*begin_bit=*/40});
  const std::size_t header = cli::make_npy_header("<f8", n).size();
  BOOST_TEST(first_difference(read_raw<double>("c.npy", header), permuted(keys, order)) == n);
}

BOOST_AUTO_TEST_CASE(records_and_standard_input_out_of_core) {
  // 6-byte records with an i16 key at offset 4, read from a pipe of unknown length.
  const std::size_t n = 40009;
  const auto keys = make_keys<std::int16_t>(Distribution::few_distinct, n, 42);
  std::string table;
  for (std::uint32_t i = 0; i < n; ++i) {
    table.append(reinterpret_cast<const char*>(&i), 4);
    table.append(reinterpret_cast<const char*>(&keys[i]), 2);
  }
  std::ofstream(path("t.bin"), std::ios::binary) << table;
  const Result r = run("sort - --record-size 6 --key-offset 4 --type i16 -S 64K -v -T " +
                       folder.string() + " -o " + path("s.bin") + " < " + path("t.bin"));
  BOOST_TEST(r.exit_code == 0, r.output);
  BOOST_TEST(has(r, "sorted runs merged"));
  std::string expected;
  for (std::size_t i : reference_permutation(keys, {})) expected += table.substr(i * 6, 6);
  BOOST_TEST((read("s.bin") == expected));
}

BOOST_AUTO_TEST_CASE(a_budget_too_small_for_one_row_is_explained) {
  write_npy("k.npy", std::vector<std::uint32_t>(10, 1));
  std::ofstream out(path("wide.npy"), std::ios::binary);
  out << cli::make_npy_header("<u4", {2, 100000}) << std::string(800000, '\0');
  out.close();
  const Result r = run("sort " + path("wide.npy") + " -S 64K -o " + path("o.npy"));
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(has(r, "a row of 100000 elements does not fit the memory budget"));
  BOOST_TEST(!fs::exists(path("o.npy")));
}

BOOST_AUTO_TEST_SUITE_END()
