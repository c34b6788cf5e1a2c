// The CLI under injected OpenCL failures, and signals as it makes a temporary file: a clear
// error or the signal's exit status, inputs intact and no partial outputs or temporaries.
#include <boost/test/unit_test.hpp>

#include <utility>

#include "support/cli_fixture.hpp"
#include "support/opencl_fixture.hpp"

using namespace clsort;
using namespace clsort::test;

namespace {

// The environment that preloads the fault injector and arms it with `faults`.
std::string with_faults(const std::string& faults) {
  return "LD_PRELOAD=" + faults_library() + " CLSORT_TEST_FAULTS=" + faults;
}

struct FaultyCli : CliFixture {
  std::vector<std::vector<std::uint32_t>> inputs;
  std::vector<std::string> raw_inputs;  // the files' bytes before the run

  // Writes `count` inputs in0.npy ... and returns their paths, space-separated.
  std::string write_inputs(int count, std::size_t n) {
    std::string names;
    for (int i = 0; i < count; ++i) {
      const std::string name = "in" + std::to_string(i) + ".npy";
      inputs.push_back(make_keys<std::uint32_t>(Distribution::uniform, n + i, 70 + i));
      names += " " + write_npy(name, inputs.back());
      raw_inputs.push_back(read(name));
    }
    return names;
  }

  void expect_inputs_intact() const {
    for (std::size_t i = 0; i < raw_inputs.size(); ++i)
      BOOST_TEST(read("in" + std::to_string(i) + ".npy") == raw_inputs[i], "input " << i);
  }

  // Outputs in `folder` that exist are sorted; returns how many there are.
  std::size_t check_outputs(const std::string& folder) const {
    std::size_t present = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const std::string name = folder + "/in" + std::to_string(i) + ".npy";
      if (!fs::exists(path(name))) continue;
      ++present;
      const std::size_t header = cli::make_npy_header("<u4", inputs[i].size()).size();
      BOOST_TEST(read_raw<std::uint32_t>(name, header) == expected_sort(inputs[i]), name);
    }
    return present;
  }

  // Runs the CLI with `faults` armed: exit status 1 and an error that names `fragment`.
  void expect_failure(const std::string& arguments, const std::string& faults,
                      const std::string& fragment) const {
    const Result r = run(arguments, with_faults(faults));
    BOOST_TEST(r.exit_code == 1, r.output);
    BOOST_TEST(has(r, fragment));
  }

  std::size_t files_in(const std::string& folder) const {
    return static_cast<std::size_t>(
        std::distance(fs::directory_iterator(path(folder)), fs::directory_iterator()));
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(cli_faults, FaultyCli)

BOOST_AUTO_TEST_CASE(a_failed_kernel_launch_fails_one_file_of_a_batch) {
  const std::string names = write_inputs(3, 40009);
  fs::create_directories(path("out"));
  expect_failure("sort -q" + names + " -o " + path("out"), "clEnqueueNDRangeKernel@5",
                 "enqueue kernel");
  expect_inputs_intact();
  BOOST_TEST(check_outputs("out") == 2u);
  BOOST_TEST(files_in("out") == 2u);
}

BOOST_AUTO_TEST_CASE(a_failed_read_back_leaves_an_in_place_input_untouched) {
  const std::string names = write_inputs(1, 30011);
  // The CLI maps the memory of a device that shares the host's (the first map is the read
  // into it, the second the read back), and reads through pinned staging from any other.
  cl_bool maps = CL_FALSE;
  test_device().getInfo(CL_DEVICE_HOST_UNIFIED_MEMORY, &maps);
  expect_failure("sort -q --in-place" + names,
                 maps ? "clEnqueueMapBuffer@1" : "clEnqueueReadBuffer",
                 maps ? "map buffer" : "read buffer");
  expect_inputs_intact();
  BOOST_TEST(files() == std::set<std::string>{"in0.npy"});
}

BOOST_AUTO_TEST_CASE(allocation_and_build_failures_are_named) {
  const std::string names = write_inputs(1, 20011);
  const std::string sort = "sort -q" + names + " -o " + path("sorted.npy");
  expect_failure(sort, "clCreateBuffer*100", "CL_MEM_OBJECT_ALLOCATION_FAILURE");
  expect_failure(sort, "clBuildProgram*100", "build program");
  expect_inputs_intact();
  BOOST_TEST(files() == std::set<std::string>{"in0.npy"});
}

BOOST_AUTO_TEST_CASE(a_failure_in_an_out_of_core_run_leaves_no_output_or_run_file) {
  const std::string names = write_inputs(1, 200003);
  const std::string temporary = path("tmp");
  fs::create_directories(temporary);
  const std::string sort = "sort -q -S 256K -T " + temporary + names + " -o " + path("sorted.npy");
  expect_failure(sort, "clEnqueueNDRangeKernel@40", "CL_OUT_OF_RESOURCES");
  expect_inputs_intact();
  BOOST_TEST(files() == (std::set<std::string>{"in0.npy", "tmp"}));
  BOOST_TEST(files_in("tmp") == 0u);
  // The same run without the fault succeeds, so the fault was what stopped it.
  const Result clean = run(sort);
  BOOST_TEST(clean.exit_code == 0, clean.output);
}

// SIGINT while mkstemp, paused for 300 ms once it has made its file, is still making a run file
// of an out-of-core sort, then the output's temporary file at the merge: the cleanup waits
// until the file is registered, so neither stays behind.
BOOST_AUTO_TEST_CASE(an_interrupt_as_a_temporary_file_is_made_leaves_nothing) {
  const std::string names = write_inputs(1, 200003);
  fs::create_directories(path("tmp"));
  const std::vector<std::string> paused_mkstemp{"LD_PRELOAD=" + slow_mkstemp_library(),
                                                "CLSORT_TEST_MKSTEMP_PAUSE_MS=300"};
  for (const auto& [folder, fragment] :
       {std::pair{"tmp", "clsort-run-"}, std::pair{".", ".sorted.npy.clsort-"}}) {
    RunningCli cli(
        cli_path(),
        {"sort", "-q", "-S", "256K", "-T", path("tmp"), path("in0.npy"), "-o", path("sorted.npy")},
        paused_mkstemp);
    BOOST_TEST(wait_for_file(folder, fragment), fragment);
    BOOST_TEST(cli.signal_and_wait(SIGINT) == 128 + SIGINT, fragment);
    BOOST_TEST(files() == (std::set<std::string>{"in0.npy", "tmp"}), fragment);
    BOOST_TEST(files_in("tmp") == 0u, fragment);
  }
  expect_inputs_intact();
}

BOOST_AUTO_TEST_SUITE_END()
