// End-to-end tests of the clsort command line: sorting files, every option, and every bad input.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <numeric>

#include "support/cli_fixture.hpp"

using namespace clsort;
using namespace clsort::test;

BOOST_FIXTURE_TEST_SUITE(command_line, CliFixture)

BOOST_AUTO_TEST_CASE(devices_lists_and_marks_the_default) {
  const Result r = run("devices");
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(has(r, "Platform #0: "));
  BOOST_TEST(has(r, " `-- Device #0: "));
  BOOST_TEST(has(r, "(default)"));
}

BOOST_AUTO_TEST_CASE(version_names_the_release_and_the_kernels) {
  const Result r = run("--version");
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(has(r, version_line("clsort")), r.output);
  BOOST_TEST(has(r, " (kernels " + kernel_templates_hash() + ")"), r.output);
}

BOOST_AUTO_TEST_CASE(help_has_examples_and_exit_codes) {
  BOOST_TEST(has(run("--help"), "Exit status"));
  const Result r = run("sort --help");
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(has(r, "Examples:"));
  BOOST_TEST(run("frobnicate").exit_code == 2);
  BOOST_TEST(run("sort").exit_code == 2);
}

BOOST_AUTO_TEST_CASE(raw_keys_every_type) {
  for (const std::string type : {"u8", "i16", "u32", "i64", "f32", "f64"}) {
    with_key_type(*parse_key_type(type), [&](auto tag) {
      using K = typename decltype(tag)::type;
      const auto keys = make_keys<K>(Distribution::extremes, 5003, 3);
      write_raw("in." + type, keys);
      const Result r =
          run("sort " + path("in." + type) + " --type " + type + " -o " + path("out." + type));
      BOOST_TEST(r.exit_code == 0, type << ": " << r.output);
      BOOST_TEST(has(r, "clsort: 1 file, 5003 keys"));
      BOOST_TEST(first_difference(read_raw<K>("out." + type), expected_sort(keys)) == keys.size());
    });
  }
}

BOOST_AUTO_TEST_CASE(npy_keys_with_values_descending) {
  const auto keys = make_keys<double>(Distribution::few_distinct, 70001, 4);
  std::vector<std::uint64_t> values(keys.size());
  std::iota(values.begin(), values.end(), 0);
  write_npy("k.npy", keys);
  write_npy("v.npy", values);
  const Result r =
      run("sort " + path("k.npy") + " -o " + path("ks.npy") + " --descending --values " +
          path("v.npy") + " --values-out " + path("vs.npy"));
  BOOST_TEST(r.exit_code == 0, r.output);
  const SortOptions o{/*descending=*/true};
  const auto order = reference_permutation(keys, o);
  const std::size_t header = cli::make_npy_header("<f8", keys.size()).size();
  BOOST_TEST(first_difference(read_raw<double>("ks.npy", header), permuted(keys, order)) ==
             keys.size());
  BOOST_TEST(first_difference(read_raw<std::uint64_t>("vs.npy", header), permuted(values, order)) ==
             keys.size());
  BOOST_TEST(read("ks.npy").substr(0, header) == cli::make_npy_header("<f8", keys.size()));
}

BOOST_AUTO_TEST_CASE(raw_values_need_their_type) {
  const auto keys = make_keys<std::int32_t>(Distribution::uniform, 1000, 5);
  const std::vector<std::uint16_t> values(1000, 7);
  write_raw("k.i32", keys);
  write_raw("v.u16", values);
  Result r = run("sort " + path("k.i32") + " --type i32 -o " + path("o.i32") + " --values " +
                 path("v.u16") + " --values-out " + path("vo.u16"));
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(has(r, "v.u16: raw file: give its element type with --values-type"));
  r = run("sort " + path("k.i32") + " --type i32 -o " + path("o.i32") + " --values " +
          path("v.u16") + " --values-out " + path("vo.u16") + " --values-type u16");
  BOOST_TEST(r.exit_code == 0, r.output);
  BOOST_TEST(first_difference(read_raw<std::int32_t>("o.i32"), expected_sort(keys)) == keys.size());
}

BOOST_AUTO_TEST_CASE(bit_range_and_check) {
  const auto keys = make_keys<std::uint32_t>(Distribution::uniform, 4099, 6);
  write_raw("k.u32", keys);
  Result r = run("sort " + path("k.u32") + " --type u32 -o " + path("o.u32") +
                 " --begin-bit 8 --end-bit 16");
  BOOST_TEST(r.exit_code == 0, r.output);
  BOOST_TEST(first_difference(read_raw<std::uint32_t>("o.u32"),
                              expected_sort(keys, {/*descending=*/false, /*begin_bit=*/8,
                                                   /*end_bit=*/16})) == keys.size());
  BOOST_TEST(run("sort --check " + path("o.u32") + " --type u32").exit_code == 1);
  run("sort " + path("k.u32") + " --type u32 -o " + path("o.u32"));
  r = run("sort --check " + path("o.u32") + " --type u32");
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(has(r, "sorted (4099 keys)"));
  r = run("sort --check " + path("k.u32") + " --type u32");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(has(r, "not sorted: element"));
}

BOOST_AUTO_TEST_CASE(argsort_is_the_stable_permutation) {
  const auto keys = make_keys<float>(Distribution::few_distinct, 20011, 9);
  std::vector<std::int16_t> values(keys.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int16_t>(i * 7);
  write_npy("k.npy", keys);
  write_npy("v.npy", values);
  const Result r =
      run("sort " + path("k.npy") + " -o " + path("ks.npy") + " --descending --argsort " +
          path("order.u32") + " --values " + path("v.npy") + " --values-out " + path("vs.npy"));
  BOOST_TEST(r.exit_code == 0, r.output);
  const auto order = reference_permutation(keys, {/*descending=*/true});
  const std::vector<std::uint32_t> expected(order.begin(), order.end());
  BOOST_TEST(read_raw<std::uint32_t>("order.u32") == expected);
  const std::size_t header = cli::make_npy_header("<i2", keys.size()).size();
  BOOST_TEST(first_difference(read_raw<std::int16_t>("vs.npy", header), permuted(values, order)) ==
             keys.size());
  BOOST_TEST(first_difference(read_raw<float>("ks.npy", header), permuted(keys, order)) ==
             keys.size());
}

BOOST_AUTO_TEST_CASE(unique_keeps_the_first_of_equal_keys) {
  // -0.0 and +0.0 are equal keys, and so are NaNs of any sign or payload: one of each survives,
  // the one that came first in the input.
  const std::vector<double> keys{3.0, -0.0, std::nan("1"), 0.0, 3.0, -std::nan("2"), 1.5, -0.0};
  write_npy("k.npy", keys);
  const Result r = run("sort " + path("k.npy") + " -o " + path("u.npy") + " --unique --argsort " +
                       path("first.npy"));
  BOOST_TEST(r.exit_code == 0, r.output);
  BOOST_TEST(has(r, "clsort: 1 file, 8 keys"));
  const std::size_t header = cli::make_npy_header("<f8", 4).size();
  const auto unique = read_raw<double>("u.npy", header);
  const std::vector<std::uint64_t> expected_positions{1, 6, 0, 2};
  const auto first = read_raw<std::uint32_t>("first.npy", cli::make_npy_header("<u4", 4).size());
  BOOST_TEST(std::vector<std::uint64_t>(first.begin(), first.end()) == expected_positions);
  BOOST_TEST(first_difference(unique, permuted(keys, {1, 6, 0, 2})) == 4u);
  BOOST_TEST(read("u.npy").substr(0, header) == cli::make_npy_header("<f8", 4));
}

BOOST_AUTO_TEST_CASE(empty_and_single_element_files) {
  write_raw("empty.u64", std::vector<std::uint64_t>{});
  write_npy("one.npy", std::vector<float>{-0.0f});
  BOOST_TEST(run("sort " + path("empty.u64") + " --type u64 -o " + path("e.u64")).exit_code == 0);
  BOOST_TEST(read("e.u64").empty());
  BOOST_TEST(fs::exists(path("e.u64")));
  BOOST_TEST(run("sort " + path("one.npy") + " -o " + path("o.npy")).exit_code == 0);
  BOOST_TEST(read("o.npy") == read("one.npy"));
}

BOOST_AUTO_TEST_CASE(bad_inputs_are_named_and_leave_no_output) {
  write_raw("odd.u32", std::vector<std::uint8_t>(10, 1));
  write_npy("k.npy", std::vector<std::uint32_t>(10, 1));
  write_npy("v.npy", std::vector<std::uint32_t>(9, 1));
  std::ofstream(path("bad.npy")) << "definitely not numpy";
  std::ofstream(path("complex.npy"), std::ios::binary)
      << cli::make_npy_header("<c8", 1) << std::string(8, '\0');
  const auto before = files();
  const std::vector<std::pair<std::string, std::string>> cases{
      {"sort " + path("odd.u32") + " --type u32 -o " + path("out"),
       "odd.u32: size 10 bytes is not a multiple of the 4-byte u32 element"},
      {"sort " + path("k.npy") + " -o " + path("out.npy") + " --values " + path("v.npy") +
           " --values-out " + path("vo.npy"),
       "v.npy: has 9 values but"},
      {"sort " + path("bad.npy") + " -o " + path("out.npy"), "bad.npy: not a .npy file"},
      {"sort " + path("complex.npy") + " -o " + path("out.npy"),
       "complex.npy: dtype '<c8' cannot be a sort key"},
      {"sort " + path("missing.npy") + " -o " + path("out.npy"), "missing.npy: cannot open"},
      {"sort " + path("k.npy") + " -o " + path("no/such/folder/out.npy"),
       "out.npy: cannot create output"},
      {"sort " + path("k.npy") + " -o " + path("out.npy") + " --device 9:9",
       "device specification '9:9'"},
      {"sort " + path("k.npy") + " -o " + path("out.npy") + " --end-bit 40",
       "bit range [0, 40) is invalid"},
  };
  for (const auto& [arguments, message] : cases) {
    const Result r = run(arguments);
    BOOST_TEST(r.exit_code == 1, arguments);
    BOOST_TEST(has(r, message), arguments);
  }
  BOOST_TEST(run("sort " + path("k.npy") + " -o " + path("out.npy"), "CLSORT_DEVICE=nonexistent")
                 .exit_code == 1);
  const Result usage =
      run("sort " + path("k.npy") + " -o " + path("out.npy") + " --values " + path("v.npy"));
  BOOST_TEST(usage.exit_code == 2);  // options that do not go together are bad usage
  BOOST_TEST(has(usage, "--values and --values-out go together"));
  BOOST_TEST(files() == before);  // no outputs, no temporary files, inputs untouched
  BOOST_TEST(read_raw<std::uint8_t>("odd.u32") == std::vector<std::uint8_t>(10, 1));
}

BOOST_AUTO_TEST_CASE(a_second_run_does_not_recompile) {
  const auto keys = make_keys<std::int16_t>(Distribution::uniform, 3000, 8);
  write_raw("k.i16", keys);
  // The default disk cache (the suites run with CLSORT_PROGRAM_CACHE=memory).
  const std::string cache = "CLSORT_PROGRAM_CACHE=disk XDG_CACHE_HOME=" + path("cache");
  const std::string arguments = "sort -v " + path("k.i16") + " --type i16 -o " + path("o.i16");
  const Result first = run(arguments, cache);
  BOOST_TEST(first.exit_code == 0, first.output);
  BOOST_TEST(!has(first, "kernels: 0 compiled"));
  const Result second = run(arguments, cache);
  BOOST_TEST(has(second, "kernels: 0 compiled"));
  BOOST_TEST(first_difference(read_raw<std::int16_t>("o.i16"), expected_sort(keys)) == keys.size());
}

BOOST_AUTO_TEST_SUITE_END()
