// End-to-end tests of out-of-core sorting: a tiny -S forces chunks and a merge of key ranges (on
// the host and on the device), and the result must equal the in-memory sort bit for bit,
// stability included; a full disk or an interrupt during the merge leaves nothing behind.
#include <boost/test/unit_test.hpp>

#include <sys/mount.h>

#include <numeric>
#include <regex>

#include "support/cli_fixture.hpp"

using namespace clsort;
using namespace clsort::test;

namespace {

// The number of runs and of key ranges a -v line reports ("R sorted runs merged in K key ranges").
std::pair<int, int> runs_and_ranges(const Result& r) {
  std::smatch match;
  const std::regex line("([0-9]+) sorted runs merged in ([0-9]+) key ranges on the");
  if (!std::regex_search(r.output, match, line)) return {0, 0};
  return {std::stoi(match[1]), std::stoi(match[2])};
}

// A small tmpfs mounted for one test (the tests run as root, as scripts/test does).
struct SmallDisk {
  std::string path;
  SmallDisk(const std::string& where, const std::string& size) : path(where) {
    fs::create_directories(path);
    const std::string options = "size=" + size;
    BOOST_REQUIRE_MESSAGE(::mount("tmpfs", path.c_str(), "tmpfs", 0, options.c_str()) == 0,
                          "mounting a " << size << " tmpfs needs root: " << std::strerror(errno));
  }
  ~SmallDisk() { ::umount(path.c_str()); }
  bool empty() const { return fs::is_empty(path); }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(cli_out_of_core, CliFixture)

BOOST_AUTO_TEST_CASE(streamed_runs_merge_on_host_and_device_like_the_in_memory_sort) {
  // Plain keys (and values) stream through device memory in runs; both merges must give the
  // in-memory bytes, over several runs and several key ranges.
  const std::size_t n = 100003;
  struct Case {
    std::string name, type;
    std::string keys;  // file contents
    std::string values;
  };
  std::vector<std::uint32_t> positions(n);
  std::iota(positions.begin(), positions.end(), 0u);
  const auto bytes_of = [](const auto& v) {
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(v[0]));
  };
  const std::vector<Case> cases{
      {"uniform u32", "u32", bytes_of(make_keys<std::uint32_t>(Distribution::uniform, n, 91)), ""},
      {"extreme f64", "f64", bytes_of(make_keys<double>(Distribution::extremes, n, 92)), ""},
      {"few i8 + u32", "i8", bytes_of(make_keys<std::int8_t>(Distribution::few_distinct, n, 93)),
       bytes_of(positions)},
      {"equal u64 + u32", "u64", bytes_of(make_keys<std::uint64_t>(Distribution::all_equal, n, 94)),
       bytes_of(positions)},
      {"high-bit f32 + u32", "f32", bytes_of(make_keys<float>(Distribution::high_bits, n, 95)),
       bytes_of(positions)}};
  // Each case with one of the options, in turn (the last with --begin-bit 3): every option
  // meets more than one case.
  const std::vector<std::string> option_sets{"", " --descending", " --begin-bit 3"};
  fs::create_directories(path("runs"));
  for (std::size_t case_index = 0; case_index < cases.size(); ++case_index) {
    const Case& c = cases[case_index];
    std::ofstream(path("k.raw"), std::ios::binary) << c.keys;
    std::string values;
    if (!c.values.empty()) {
      std::ofstream(path("v.raw"), std::ios::binary) << c.values;
      values = " --values " + path("v.raw") + " --values-type u32 --values-out ";
    }
    const std::string& options = option_sets[(case_index + 1) % option_sets.size()];
    const std::string common = "sort " + path("k.raw") + " --type " + c.type + options;
    const Result m =
        run(common + " -v -o " + path("m.raw") + (values.empty() ? "" : values + path("mv.raw")));
    BOOST_TEST(m.exit_code == 0, m.output);
    BOOST_TEST(has(m, "streamed through device memory"));
    for (const std::string merge : {"host", "device"}) {
      const std::string what = c.name + options + " --merge " + merge;
      const Result r = run(common + " -v -S 64K -T " + path("runs") + " --merge " + merge + " -o " +
                           path("o.raw") + (values.empty() ? "" : values + path("ov.raw")));
      BOOST_TEST(r.exit_code == 0, r.output);
      const auto [runs, ranges] = runs_and_ranges(r);
      BOOST_TEST(runs > 2, what);
      BOOST_TEST(ranges > 2, what);
      BOOST_TEST(has(r, "key ranges on the " + merge), what);
      BOOST_TEST(read("o.raw") == read("m.raw"), what);
      if (!values.empty()) BOOST_TEST(read("ov.raw") == read("mv.raw"), what);
      BOOST_TEST(fs::is_empty(path("runs")));
    }
  }
  // The in-memory result is the reference's (the last case, by --begin-bit 3, its values).
  const auto keys = make_keys<float>(Distribution::high_bits, n, 95);
  const auto order = reference_permutation(keys, {false, 3});
  BOOST_TEST(read_raw<float>("m.raw") == permuted(keys, order));
  BOOST_TEST(read_raw<std::uint32_t>("mv.raw") == permuted(positions, order));
}

BOOST_AUTO_TEST_CASE(a_disk_that_fills_during_the_merge_leaves_nothing) {
  // The runs fit the small disk, the output beside them does not: the merge's writes fail.
  const auto keys = make_keys<std::uint32_t>(Distribution::uniform, 400000, 96);
  const std::string input = write_raw("k.u32", keys);
  for (const std::string merge : {"host", "device"}) {
    SmallDisk disk(path("small"), "2400k");
    const Result r = run("sort " + input + " --type u32 -S 256K -T " + disk.path + " --merge " +
                         merge + " -o " + disk.path + "/out.u32");
    BOOST_TEST(r.exit_code == 1, r.output);
    BOOST_TEST(has(r, "out.u32: cannot write output: No space left on device"), merge);
    BOOST_TEST(disk.empty(), merge);  // no output, no temporary output, no run file
    BOOST_TEST(read_raw<std::uint32_t>("k.u32") == keys);
  }
}

BOOST_AUTO_TEST_CASE(a_disk_too_small_for_the_runs_is_named) {
  const auto keys = make_keys<std::uint64_t>(Distribution::uniform, 200000, 97);
  const std::string input = write_raw("k.u64", keys);
  SmallDisk disk(path("small"), "600k");
  const Result r =
      run("sort " + input + " --type u64 -S 256K -T " + disk.path + " -o " + path("out.u64"));
  BOOST_TEST(r.exit_code == 1, r.output);
  BOOST_TEST(has(r, disk.path + ": cannot write a temporary run (-T): No space left on device"));
  BOOST_TEST(disk.empty());
  BOOST_TEST(!fs::exists(path("out.u64")));
  BOOST_TEST(read_raw<std::uint64_t>("k.u64") == keys);
}

BOOST_AUTO_TEST_CASE(an_interrupted_merge_leaves_nothing) {
  // An out-of-core input creates its output only when the merge starts: signal it then.
  const auto keys = make_keys<std::uint32_t>(Distribution::uniform, std::size_t{1} << 24, 98);
  const std::string input = write_raw("k.u32", keys);
  fs::create_directories(path("runs"));
  for (int signal_number : {SIGINT, SIGTERM}) {
    RunningCli cli(cli_path(), {"sort", input, "--type", "u32", "-S", "2M", "--merge", "host", "-T",
                                path("runs"), "-o", path("out.u32"), "-q"});
    BOOST_TEST(wait_for_file(".", ".out.u32.clsort-"));
    const int status = cli.signal_and_wait(signal_number);
    BOOST_TEST(status == 128 + signal_number);
    BOOST_TEST(!any_file_named(files(), "out.u32"));  // neither the output nor its temporary
    BOOST_TEST(fs::is_empty(path("runs")));
  }
  BOOST_TEST(read_raw<std::uint32_t>("k.u32") == keys);
}

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
