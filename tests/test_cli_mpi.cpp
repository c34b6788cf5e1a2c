// clsort-mpi under mpirun with 1 to 4 ranks: outputs byte-identical to clsort's, and failures on
// any rank (errors, a full disk, signals) leave no output, no temporary file and the input
// untouched.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>
#include <thread>

#include "support/cli_fixture.hpp"

using namespace clsort;
using namespace clsort::test;

namespace {

// The processes mpirun started (the ranks), by their rank.
std::map<int, pid_t> ranks_of(pid_t mpirun) {
  std::map<int, pid_t> ranks;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line) || line.rfind(')') == std::string::npos) continue;
    std::istringstream after_name(line.substr(line.rfind(')') + 2));
    char state = 0;
    pid_t parent = 0;
    after_name >> state >> parent;
    if (parent != mpirun) continue;
    std::ifstream environ_file(entry.path() / "environ");
    for (std::string variable; std::getline(environ_file, variable, '\0');)
      if (variable.rfind("OMPI_COMM_WORLD_RANK=", 0) == 0)
        ranks[std::stoi(variable.substr(21))] = std::stoi(entry.path().filename().string());
  }
  return ranks;
}

std::string listing(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : " ") + name;
  return text;
}

struct MpiCli : CliFixture {
  static std::string mpi_cli_path() {
    const char* moved = std::getenv("CLSORT_MPI_CLI");
    return moved && *moved ? moved : CLSORT_MPI_CLI_PATH;
  }
  static std::string mpirun(int ranks) {
    return std::string(CLSORT_MPIEXEC) + " --oversubscribe --allow-run-as-root -np " +
           std::to_string(ranks);
  }

  Result run_mpi(int ranks, const std::string& arguments) const {
    return run_shell(mpirun(ranks) + " " + mpi_cli_path() + " sort " + arguments + " 2>&1");
  }

  // clsort-mpi on `ranks` ranks and clsort write the same bytes for the same arguments.
  // `mpi_options` replace `options` for clsort-mpi when given (its own options, such as --merge).
  void expect_same_as_clsort(int ranks, const std::string& input, const std::string& output,
                             const std::string& options, const std::string& values_out = "",
                             const std::string& mpi_options = "") {
    const std::string values = values_out.empty() ? "" : " --values-out " + path(values_out);
    const std::string mine_values =
        values_out.empty() ? "" : " --values-out " + path("mpi-" + values_out);
    const Result single =
        run("sort " + input + " -o " + path(output) + " " + options + values + " -q");
    BOOST_REQUIRE_MESSAGE(single.exit_code == 0, single.output);
    const std::string mine = mpi_options.empty() ? options : mpi_options;
    const Result mpi =
        run_mpi(ranks, input + " -o " + path("mpi-" + output) + " " + mine + mine_values);
    BOOST_TEST_INFO(ranks << " ranks, " << mine);
    BOOST_REQUIRE_MESSAGE(mpi.exit_code == 0, mpi.output);
    BOOST_CHECK(has(mpi, "phases (s, slowest rank): read"));
    BOOST_CHECK(read(output) == read("mpi-" + output));
    if (!values_out.empty()) BOOST_CHECK(read(values_out) == read("mpi-" + values_out));
    BOOST_CHECK(!any_file_named(files(), ".clsort"));
  }

  // clsort-mpi sorting `input` (u32) into `output` on 2 ranks, started in the background.
  RunningCli start_sort(const std::string& input, const std::string& output) const {
    return RunningCli("/bin/sh",
                      {"-c", "exec " + mpirun(2) + " " + mpi_cli_path() + " sort " + input +
                                 " --type u32 -o " + output + " -q 2>/dev/null"});
  }

  // Waits until the job's 2 ranks have created `output` (its temporary file exists, from before
  // they read until they publish), then stops both with the temporary still there. Returns
  // them by rank.
  std::map<int, pid_t> stop_with_output_open(pid_t mpirun, const std::string& output) const {
    std::map<int, pid_t> ranks;
    for (int wait = 0; wait < 6000 && ranks.size() < 2; ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      ranks = ranks_of(mpirun);
    }
    BOOST_REQUIRE(ranks.size() == 2u);
    const std::string temporary = "." + output + ".clsort-";
    wait_for_file(".", temporary);  // checked again once the ranks are stopped
    for (const auto& [rank, pid] : ranks) ::kill(pid, SIGSTOP);
    if (any_file_named(files(), temporary)) return ranks;
    for (const auto& [rank, pid] : ranks) ::kill(pid, SIGCONT);  // let the job end
    BOOST_FAIL("the ranks were not stopped with their output open");
    return {};
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(cli_mpi)

BOOST_FIXTURE_TEST_CASE(outputs_equal_the_single_process_sort, MpiCli) {
  const std::string u32 =
      write_npy("u32.npy", make_keys<std::uint32_t>(Distribution::uniform, 100003, 1));
  const std::string f64 = write_raw("f64.raw", make_keys<double>(Distribution::extremes, 5003, 2));
  const std::string keys =
      write_raw("keys.u64", make_keys<std::uint64_t>(Distribution::few_distinct, 7919, 3));
  std::vector<std::uint32_t> positions(7919);
  std::iota(positions.begin(), positions.end(), 0u);
  const std::string values = write_npy("values.npy", positions);
  // Big-endian i16: sorted in native order, written back big-endian.
  std::vector<std::int16_t> big = make_keys<std::int16_t>(Distribution::extremes, 3001, 4);
  for (auto& key : big) key = static_cast<std::int16_t>(__builtin_bswap16(key));
  {
    std::ofstream out(path("big.npy"), std::ios::binary);
    out << cli::make_npy_header(">i2", big.size());
    out.write(reinterpret_cast<const char*>(big.data()), big.size() * 2);
  }
  const std::string empty = write_npy("empty.npy", std::vector<float>{});
  const std::string two = write_raw("two.i8", std::vector<std::int8_t>{5, -128});
  for (int ranks = 1; ranks <= 4; ++ranks) {
    expect_same_as_clsort(ranks, u32, "out-u32.npy", "");
    expect_same_as_clsort(ranks, f64, "out-f64.raw", "--type f64 --descending");
    expect_same_as_clsort(ranks, keys, "out-keys.npy", "--type u64 --values " + values, "v.npy");
    expect_same_as_clsort(ranks, u32, "bits.npy", "--begin-bit 4 --end-bit 12");
    expect_same_as_clsort(ranks, path("big.npy"), "out-big.npy", "");
    expect_same_as_clsort(ranks, empty, "out-empty.npy", "");
    expect_same_as_clsort(ranks, two, "out-two.i8", "--type i8");  // fewer keys than ranks
  }
  // -o FOLDER: the output goes there under the input's name.
  fs::create_directories(path("sorted"));
  const Result into_folder = run_mpi(2, u32 + " -o " + path("sorted") + " -q");
  BOOST_REQUIRE_MESSAGE(into_folder.exit_code == 0, into_folder.output);
  BOOST_CHECK(read("sorted/u32.npy") == read("out-u32.npy"));
}

BOOST_FIXTURE_TEST_CASE(both_merge_places_equal_the_single_process_sort, MpiCli) {
  const std::string keys =
      write_raw("keys.i32", make_keys<std::int32_t>(Distribution::few_distinct, 20011, 6));
  std::vector<std::uint16_t> positions(20011);
  std::iota(positions.begin(), positions.end(), std::uint16_t{0});
  const std::string values = write_raw("values.u16", positions);
  for (const char* place : {"host", "device"}) {
    const std::string options = std::string("--type i32 --descending --values ") + values +
                                " --values-type u16 --merge " + place;
    expect_same_as_clsort(3, keys, std::string("out-") + place + ".i32",
                          "--type i32 --descending --values " + values + " --values-type u16",
                          std::string("v-") + place + ".u16", options);
  }
}

BOOST_FIXTURE_TEST_CASE(an_unknown_merge_place_is_named, MpiCli) {
  const std::string input =
      write_npy("in.npy", make_keys<std::uint32_t>(Distribution::uniform, 100, 7));
  const Result r = run_mpi(2, input + " -o " + path("out.npy") + " --merge sideways");
  BOOST_CHECK_NE(r.exit_code, 0);
  BOOST_CHECK(has(r, "--merge: sideways not in {auto,host,device}"));
  BOOST_CHECK(files() == std::set<std::string>{"in.npy"});
}

BOOST_FIXTURE_TEST_CASE(outputs_over_inputs_or_each_other_are_refused, MpiCli) {
  const std::string keys = write_raw("k.u32", std::vector<std::uint32_t>{3, 1, 2});
  const std::string values = write_raw("v.u16", std::vector<std::uint16_t>{7, 6, 5});
  const std::string pairs = keys + " --type u32 --values " + values + " --values-type u16 ";
  const std::vector<std::pair<std::string, std::string>> cases{
      {keys + " --type u32 -o " + keys, "-o " + keys + " is the input"},
      {pairs + "-o " + path("o") + " --values-out " + path("o"), "are one file"},
      {pairs + "-o " + values + " --values-out " + path("w"), "-o " + values + " is --values"},
      {pairs + "-o " + path("o") + " --values-out " + keys, "is the input"},
      {pairs + "-o " + path("o") + " --values-out " + path("folder"), "is a folder"},
  };
  fs::create_directories(path("folder"));
  for (const auto& [arguments, message] : cases) {
    const Result r = run_mpi(2, arguments);
    BOOST_TEST(r.exit_code != 0, arguments);
    BOOST_TEST(has(r, message), arguments);
  }
  BOOST_CHECK(files() == std::set<std::string>({"folder", "k.u32", "v.u16"}));
  BOOST_CHECK(fs::is_empty(path("folder")));
  BOOST_CHECK(read_raw<std::uint16_t>("v.u16") == std::vector<std::uint16_t>({7, 6, 5}));
  BOOST_CHECK(read_raw<std::uint32_t>("k.u32") == std::vector<std::uint32_t>({3, 1, 2}));
}

BOOST_FIXTURE_TEST_CASE(links_are_followed_and_devices_refused, MpiCli) {
  // A link's file gets the output and the link stays; a device is refused before any work (a
  // rename would replace it; a null device made here, never the system's).
  const auto keys = make_keys<std::uint32_t>(Distribution::uniform, 3001, 12);
  const std::string sort = write_raw("k.u32", keys) + " --type u32 -q -o ";
  write_raw("target.u32", std::vector<std::uint32_t>{1});
  fs::create_symlink(path("target.u32"), path("link.u32"));
  const Result linked = run_mpi(2, sort + path("link.u32"));
  BOOST_TEST(linked.exit_code == 0, linked.output);
  BOOST_TEST(fs::is_symlink(path("link.u32")));
  BOOST_TEST(read_raw<std::uint32_t>("target.u32") == expected_sort(keys));

  const std::string null_device = make_null_device("null");
  const Result refused = run_mpi(2, sort + null_device);
  BOOST_TEST(refused.exit_code != 0);
  BOOST_TEST(has(refused, "null: cannot create output: not a regular file"));
  BOOST_TEST(fs::is_character_file(null_device));
  BOOST_CHECK(files() == std::set<std::string>({"k.u32", "link.u32", "null", "target.u32"}));
}

BOOST_FIXTURE_TEST_CASE(a_missing_input_fails_every_rank, MpiCli) {
  const Result r = run_mpi(3, path("absent.npy") + " -o " + path("out.npy"));
  BOOST_CHECK_NE(r.exit_code, 0);
  BOOST_CHECK(has(r, "clsort-mpi: error: mpi read: rank 0: " + path("absent.npy")));
  BOOST_CHECK(files().empty());
}

BOOST_FIXTURE_TEST_CASE(an_unwritable_output_folder_leaves_nothing, MpiCli) {
  const std::string input =
      write_npy("in.npy", make_keys<std::uint32_t>(Distribution::uniform, 1000, 5));
  const std::string before = read("in.npy");
  const Result r = run_mpi(2, input + " -o " + path("no/such/folder/out.npy"));
  BOOST_CHECK_NE(r.exit_code, 0);
  BOOST_CHECK(has(r, "create output: rank 0"));
  BOOST_CHECK(files() == std::set<std::string>{"in.npy"});
  BOOST_CHECK(read("in.npy") == before);
}

BOOST_FIXTURE_TEST_CASE(a_rank_failing_mid_sort_fails_every_rank, MpiCli) {
  // Rank 1's first kernel launch fails (the fault injector, preloaded into that rank only).
  const std::string input =
      write_npy("in.npy", make_keys<std::uint32_t>(Distribution::uniform, 20000, 6));
  const std::string before = read("in.npy");
  const std::string arguments = " sort " + input + " -o " + path("out.npy");
  const std::string command = mpirun(1) + " " + mpi_cli_path() + arguments +
                              " : -np 1 -x LD_PRELOAD=" + faults_library() +
                              " -x CLSORT_TEST_FAULTS=clEnqueueNDRangeKernel@0 " + mpi_cli_path() +
                              arguments + " : -np 1 " + mpi_cli_path() + arguments + " 2>&1";
  const Result r = run_shell(command);
  BOOST_CHECK_NE(r.exit_code, 0);
  BOOST_CHECK(has(r, "mpi local sort: rank 1:"));
  BOOST_CHECK(files() == std::set<std::string>{"in.npy"});
  BOOST_CHECK(read("in.npy") == before);
}

BOOST_FIXTURE_TEST_CASE(a_full_disk_fails_every_rank_and_leaves_nothing, MpiCli) {
  // A file-size limit on the ranks (mpirun's own session files need more) makes their writes
  // past 4 KiB fail as a full disk would; MPI-IO reports such a short write only in its status.
  const auto keys = make_keys<std::uint32_t>(Distribution::uniform, 100000, 8);
  const std::string input = write_raw("k.u32", keys);
  // Kernels come from clsort's disk cache in the limited run (PoCL, compiling, writes files).
  const std::string cached = "CLSORT_PROGRAM_CACHE=disk " + mpirun(2) + " ";
  const std::string arguments = " sort " + input + " --type u32 -o " + path("out.u32");
  const Result warm = run_shell(cached + mpi_cli_path() + arguments + " -q 2>&1");
  BOOST_REQUIRE_MESSAGE(warm.exit_code == 0, warm.output);
  fs::remove(path("out.u32"));
  const Result r = run_shell(cached + "sh -c \"ulimit -f 8; trap '' XFSZ; exec " + mpi_cli_path() +
                             arguments + "\" 2>&1");
  BOOST_CHECK_NE(r.exit_code, 0);
  BOOST_CHECK(has(r, "out.u32: cannot write output: only "));
  BOOST_CHECK(files() == std::set<std::string>{"k.u32"});
  BOOST_CHECK(read_raw<std::uint32_t>("k.u32") == keys);
}

BOOST_FIXTURE_TEST_CASE(a_rank_killed_mid_job_leaves_nothing, MpiCli) {
  // Both ranks are stopped while the output's temporary file exists (from before they read
  // until they publish, seconds later), rank 1 is terminated and both go on: rank 0 can never
  // finish, and must remove the temporary once mpirun stops it.
  const auto keys = make_keys<std::uint32_t>(Distribution::uniform, 1 << 24, 9);
  const std::string input = write_raw("k.u32", keys);
  RunningCli job = start_sort(input, path("out.u32"));
  std::map<int, pid_t> ranks = stop_with_output_open(job.pid, "out.u32");
  ::kill(ranks[1], SIGTERM);
  for (const auto& [rank, pid] : ranks) ::kill(pid, SIGCONT);
  BOOST_CHECK_NE(job.signal_and_wait(0), 0);  // no signal to mpirun: it aborts the job itself
  const std::set<std::string> left = files();
  BOOST_CHECK_MESSAGE(left == std::set<std::string>{"k.u32"}, "left: " << listing(left));
  BOOST_CHECK(read_raw<std::uint32_t>("k.u32") == keys);
}

BOOST_FIXTURE_TEST_CASE(an_interrupted_job_leaves_its_whole_output_or_nothing, MpiCli) {
  // Ctrl-C reaches mpirun, which wakes the ranks and terminates them about a second later: a
  // sort that finishes its writes in that time publishes its whole output, one that does not
  // leaves nothing. Either way the job fails and no partial output or temporary is left.
  const auto keys = make_keys<std::uint32_t>(Distribution::uniform, 1 << 24, 10);
  const std::string input = write_raw("k.u32", keys);
  RunningCli job = start_sort(input, path("out.u32"));
  stop_with_output_open(job.pid, "out.u32");
  BOOST_CHECK_NE(job.signal_and_wait(SIGINT), 0);
  const std::set<std::string> left = files();
  BOOST_CHECK_MESSAGE(!any_file_named(left, ".clsort-"), "left: " << listing(left));
  if (left.count("out.u32")) BOOST_CHECK(read_raw<std::uint32_t>("out.u32") == expected_sort(keys));
  BOOST_CHECK(read_raw<std::uint32_t>("k.u32") == keys);
}

BOOST_AUTO_TEST_SUITE_END()
