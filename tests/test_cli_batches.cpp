// End-to-end tests of CLI batches: many inputs, one bad among them, --in-place, and interrupts.
#include <boost/test/unit_test.hpp>

#include "support/cli_fixture.hpp"

using namespace clsort;
using namespace clsort::test;

BOOST_FIXTURE_TEST_SUITE(cli_batches, CliFixture)

BOOST_AUTO_TEST_CASE(a_bad_file_does_not_stop_the_batch) {
  const auto a = make_keys<std::int16_t>(Distribution::uniform, 4001, 31);
  const auto b = make_keys<std::int16_t>(Distribution::few_distinct, 17, 32);
  write_npy("a.npy", a);
  write_npy("b.npy", b);
  std::ofstream(path("broken.npy")) << "not numpy at all";
  fs::create_directories(path("out"));
  const Result r = run("sort " + path("a.npy") + " " + path("broken.npy") + " " + path("b.npy") +
                       " " + path("missing.npy") + " -o " + path("out"));
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(has(r, "broken.npy: not a .npy file"));
  BOOST_TEST(has(r, "missing.npy: cannot open"));
  BOOST_TEST(has(r, "clsort: 2 files, 4018 keys"));
  BOOST_TEST(has(r, "; 2 failed"));
  const std::size_t header_a = cli::make_npy_header("<i2", a.size()).size();
  BOOST_TEST(first_difference(read_raw<std::int16_t>("out/a.npy", header_a), expected_sort(a)) ==
             a.size());
  const std::size_t header_b = cli::make_npy_header("<i2", b.size()).size();
  BOOST_TEST(first_difference(read_raw<std::int16_t>("out/b.npy", header_b), expected_sort(b)) ==
             b.size());
  BOOST_TEST(fs::exists(path("out/broken.npy")) == false);
  BOOST_TEST(std::distance(fs::directory_iterator(path("out")), fs::directory_iterator()) == 2);
}

BOOST_AUTO_TEST_CASE(in_place_replaces_each_input) {
  std::vector<std::vector<std::uint32_t>> inputs;
  std::string names;
  for (int i = 0; i < 3; ++i) {
    inputs.push_back(make_keys<std::uint32_t>(Distribution::reversed, 1000 + 7 * i, 33 + i));
    names += " " + write_raw("in" + std::to_string(i) + ".u32", inputs.back());
  }
  const auto before = files();
  const Result r = run("sort --in-place --type u32 -q" + names);
  BOOST_TEST(r.exit_code == 0, r.output);
  BOOST_TEST(r.output.empty());  // --quiet: nothing on success
  for (int i = 0; i < 3; ++i)
    BOOST_TEST(read_raw<std::uint32_t>("in" + std::to_string(i) + ".u32") ==
               expected_sort(inputs[i]));
  BOOST_TEST(files() == before);  // the same names; no temporaries left
}

BOOST_AUTO_TEST_CASE(outputs_never_overwrite_inputs_by_accident) {
  write_raw("k.u8", std::vector<std::uint8_t>{3, 1, 2});
  write_raw("j.u8", std::vector<std::uint8_t>{9, 8});
  write_raw("v.u8", std::vector<std::uint8_t>{7, 6, 5});
  fs::create_symlink(path("k.u8"), path("link.u8"));
  fs::create_directories(path("out"));
  const std::string pairs =
      "sort " + path("k.u8") + " --type u8 --values " + path("v.u8") + " --values-type u8 ";
  const std::vector<std::pair<std::string, std::string>> cases{
      {"sort " + path("k.u8") + " --type u8 -o " + path("k.u8"), "is the input itself"},
      {"sort " + path("k.u8") + " " + path("j.u8") + " --type u8", "several inputs need -o"},
      {"sort " + path("k.u8") + " " + path("j.u8") + " --type u8 -o " + path("file"),
       "-o must be an existing folder"},
      {"sort " + path("k.u8") + " " + path("k.u8") + " --type u8 -o " + path("out"),
       "would both be written to"},
      {"sort " + path("k.u8") + " --type u8 --in-place -o " + path("x"), "exclude each other"},
      {"sort - --type u8 --in-place", "standard input cannot be sorted --in-place"},
      {pairs + "-o " + path("o.u8") + " --values-out " + path("out/../o.u8"),
       "are one file: one output would overwrite the other"},
      {pairs + "-o " + path("o.u8") + " --values-out " + path("v.u8"), "is --values"},
      {pairs + "-o " + path("v.u8") + " --values-out " + path("w.u8"), "is --values"},
      {pairs + "-o " + path("o.u8") + " --values-out " + path("link.u8"), "is the input"},
      {pairs + "--in-place --values-out " + path("k.u8"), "is the input"},
      {"sort " + path("k.u8") + " --type u8 -o " + path("o.u8") + " --argsort " + path("o.u8"),
       "are one file"},
      {pairs + "-o " + path("out") + " --values-out " + path("out"), "is a folder; name a file"},
  };
  for (const auto& [arguments, message] : cases) {
    const Result r = run(arguments + " < /dev/null");
    BOOST_TEST(r.exit_code == 2, arguments);
    BOOST_TEST(has(r, message), arguments);
  }
  BOOST_TEST(read_raw<std::uint8_t>("k.u8") == std::vector<std::uint8_t>({3, 1, 2}));
  BOOST_TEST(read_raw<std::uint8_t>("v.u8") == std::vector<std::uint8_t>({7, 6, 5}));
  BOOST_TEST(!fs::exists(path("o.u8")));
  BOOST_TEST(!fs::exists(path("w.u8")));
  BOOST_TEST(fs::is_empty(path("out")));
}

BOOST_AUTO_TEST_CASE(outputs_go_through_links_and_into_streams) {
  // A link's file gets the output and the link stays; a FIFO and a character device (a null
  // device made here, never the system's) are written into, never replaced by a plain file
  // (which would leave the FIFO's reader waiting: `timeout` ends it).
  const auto keys = make_keys<std::uint32_t>(Distribution::uniform, 1001, 36);
  const std::string sort = "sort " + write_raw("k.u32", keys) + " --type u32 -q -o ";
  write_raw("target.u32", std::vector<std::uint32_t>{1});
  fs::create_symlink(path("target.u32"), path("link.u32"));
  const Result linked = run(sort + path("link.u32"));
  BOOST_TEST(linked.exit_code == 0, linked.output);
  BOOST_TEST(fs::is_symlink(path("link.u32")));
  BOOST_TEST(read_raw<std::uint32_t>("target.u32") == expected_sort(keys));

  BOOST_REQUIRE(::mkfifo(path("fifo").c_str(), 0600) == 0);
  const Result piped =
      run_shell("timeout 60 cat " + path("fifo") + " > " + path("from-fifo.u32") + " & " +
                cli_path() + " " + sort + path("fifo") + " 2>&1; status=$?; wait; exit $status");
  BOOST_TEST(piped.exit_code == 0, piped.output);
  BOOST_TEST(fs::is_fifo(path("fifo")));
  BOOST_TEST(read_raw<std::uint32_t>("from-fifo.u32") == expected_sort(keys));

  const std::string null_device = make_null_device("null");
  const Result discarded = run(sort + null_device + " --argsort " + null_device);
  BOOST_TEST(discarded.exit_code == 0, discarded.output);
  BOOST_TEST(fs::is_character_file(null_device));
  BOOST_TEST(read_raw<std::uint32_t>("k.u32") == keys);
}

BOOST_AUTO_TEST_CASE(unwritable_output_folder_is_an_error_per_file) {
  write_raw("k.u8", std::vector<std::uint8_t>{3, 1, 2});
  fs::create_directories(path("locked"));
  fs::permissions(path("locked"), fs::perms::owner_read | fs::perms::owner_exec);
  const Result r = run("sort " + path("k.u8") + " --type u8 -o " + path("locked/out.u8"));
  fs::permissions(path("locked"), fs::perms::owner_all);
  // root may write anywhere; then the output must simply be right
  if (r.exit_code == 0) {
    BOOST_TEST(read_raw<std::uint8_t>("locked/out.u8") == std::vector<std::uint8_t>({1, 2, 3}));
  } else {
    BOOST_TEST(has(r, "locked/out.u8: cannot create output"));
  }
  const Result missing = run("sort " + path("k.u8") + " --type u8 -o " + path("no/such/out.u8"));
  BOOST_TEST(missing.exit_code == 1);
  BOOST_TEST(has(missing, "no/such/out.u8: cannot create output"));
}

BOOST_AUTO_TEST_CASE(an_interrupted_run_leaves_no_partial_files) {
  // Rows of a 2-D array from standard input, a few rows per chunk: the output is being written
  // (a temporary file exists) while the rest of the input has not arrived yet.
  const std::size_t rows = 4000, length = 16;
  const auto keys = make_keys<std::uint32_t>(Distribution::uniform, rows * length, 35);
  const std::string header = cli::make_npy_header("<u4", {rows, length});
  const std::string data(reinterpret_cast<const char*>(keys.data()), keys.size() * 4);
  fs::create_directories(path("runs"));
  for (int signal_number : {SIGINT, SIGTERM}) {
    RunningCli cli(cli_path(),
                   {"sort", "-", "-o", path("out.npy"), "-S", "64K", "-T", path("runs"), "-q"});
    cli.feed(header + data.substr(0, data.size() / 2));
    BOOST_TEST(wait_for_file(".", ".out.npy.clsort-"));
    const int status = cli.signal_and_wait(signal_number);
    BOOST_TEST(status == 128 + signal_number);
    BOOST_TEST(!any_file_named(files(), "out.npy"));  // neither the output nor its temporary
    BOOST_TEST(fs::is_empty(path("runs")));
  }
}

BOOST_AUTO_TEST_CASE(progress_shows_on_a_terminal_only) {
  write_raw("k.u32", make_keys<std::uint32_t>(Distribution::uniform, 5000, 36));
  const std::string sort = cli_path() + " sort " + path("k.u32") + " --type u32 -o " + path("o");
  // `script` runs the command on a pseudo-terminal, as a user's shell would.
  const Result terminal = run_shell("script -qec '" + sort + "' /dev/null");
  BOOST_TEST(terminal.exit_code == 0, terminal.output);
  BOOST_TEST(has(terminal, "k.u32 ["));
  BOOST_TEST(has(terminal, "| total ["));
  BOOST_TEST(has(terminal, "clsort: 1 file, 5000 keys"));
  const Result quiet = run_shell("script -qec '" + sort + " --quiet' /dev/null");
  BOOST_TEST(quiet.exit_code == 0);
  BOOST_TEST(quiet.output.empty(), quiet.output);
  const Result piped = run("sort " + path("k.u32") + " --type u32 -o " + path("o"));
  BOOST_TEST(!has(piped, "| total ["));  // not a terminal: the summary only
}

BOOST_AUTO_TEST_CASE(a_full_disk_leaves_no_partial_output) {
  // A file-size limit makes writes past a few KiB fail, as a full disk would (EFBIG instead of
  // ENOSPC); SIGXFSZ is ignored so that the write returns the error instead of killing.
  const auto keys = make_keys<std::uint64_t>(Distribution::uniform, 100000, 37);
  write_raw("k.u64", keys);
  // The same sort first without the limit puts its kernels in clsort's disk cache, from which the
  // limited run loads them without writing (PoCL's compiler, building from source, writes
  // temporary files into its own cache and aborts on a full disk).
  const std::string disk_cache = "CLSORT_PROGRAM_CACHE=disk ";
  BOOST_TEST(
      run("sort " + path("k.u64") + " --type u64 -o " + path("warm.u64"), disk_cache).exit_code ==
      0);
  const Result r = run_shell("(ulimit -f 8; trap '' XFSZ; " + disk_cache + cli_path() + " sort " +
                             path("k.u64") + " --type u64 -o " + path("out.u64") + ") 2>&1");
  BOOST_TEST(r.exit_code == 1, r.output);
  BOOST_TEST(has(r, "out.u64: cannot write output: File too large"));
  BOOST_TEST(!any_file_named(files(), "out.u64"));  // neither the output nor its temporary
  BOOST_TEST(read_raw<std::uint64_t>("k.u64") == keys);
}

BOOST_AUTO_TEST_SUITE_END()
