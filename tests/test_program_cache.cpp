// Tests of program caching: reuse in memory, reload from disk, recovery from a corrupt binary.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "program_cache.hpp"
#include "ptx_occupancy.hpp"
#include "support/environment.hpp"
#include "support/opencl_fixture.hpp"

using namespace clsort;
namespace fs = std::filesystem;
using clsort::test::test_context;
using clsort::test::test_device;

namespace {

// A source no other test builds, so the counts below are this test's alone.
std::string unique_source(const std::string& tag) {
  return "__kernel void probe_" + tag +
         "(__global int* x) { x[0] = " + std::to_string(std::rand()) + "; }";
}

std::size_t binaries_in(const fs::path& folder) {
  std::size_t count = 0;
  if (!fs::exists(folder)) return 0;
  for (const auto& entry : fs::directory_iterator(folder))
    count += entry.path().extension() == ".bin";
  return count;
}

fs::path fresh_cache_folder(const std::string& tag) {
  const fs::path folder =
      fs::temp_directory_path() / ("clsort-cache-test-" + tag + std::to_string(::getpid()));
  fs::remove_all(folder);
  return folder;
}

std::vector<unsigned char> bytes(const std::string& text) {
  return std::vector<unsigned char>(text.begin(), text.end());
}

// Builds `source` in two new contexts (nothing in memory for either) and returns how many of the
// builds compiled.
std::uint64_t compiles_of_two_fresh_builds(const std::string& source) {
  const auto before = build_statistics();
  for (int i = 0; i < 2; ++i)
    detail::build_program(cl::Context(test_device()), test_device(), source, "", "probe");
  return build_statistics().compiled - before.compiled;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(program_cache)

// The cache keeps the programs of its 4 most recently used contexts only: a cached program holds
// its context alive, and a process making one context after another must not keep them all.
// (First in the suite: the next test points XDG_CACHE_HOME, where PoCL keeps its own files once
// it first compiles, at a folder it then removes.)
BOOST_AUTO_TEST_CASE(programs_of_old_contexts_are_released) {
  const std::string source = unique_source("old_contexts");
  const cl::Context first(test_device());
  detail::build_program(first, test_device(), source, "", "probe");
  const auto references = [&] { return first.getInfo<CL_CONTEXT_REFERENCE_COUNT>(); };
  // PoCL counts the cached program's hold on the context; NVIDIA's driver does not, so there the
  // count cannot show the release and only the cache's statistics below do.
  const bool program_holds_counted = references() > 1u;
  for (int i = 0; i < 4; ++i) {
    const cl::Context later(test_device());
    detail::build_program(later, test_device(), source, "", "probe");
  }
  if (program_holds_counted) BOOST_TEST(references() == 1u);  // ours alone
  // Used again, it gets its program back from disk or a new build, not from memory.
  const auto before = build_statistics();
  const cl::Program again = detail::build_program(first, test_device(), source, "", "probe");
  BOOST_TEST(build_statistics().reused == before.reused);
  BOOST_TEST(again.getInfo<CL_PROGRAM_CONTEXT>()() == first());
}

BOOST_AUTO_TEST_CASE(programs_are_reused_then_loaded_from_disk) {
  const fs::path folder = fresh_cache_folder("disk");
  clsort::test::Environment environment;  // restores both at the end
  environment.set("XDG_CACHE_HOME", folder.string());
  environment.set("CLSORT_PROGRAM_CACHE", "disk");
  BOOST_TEST(detail::disk_cache_folder() == (folder / "clsort").string());
  const std::string source = unique_source("a");
  const auto before = build_statistics();

  detail::build_program(test_context(), test_device(), source, "", "probe");
  detail::build_program(test_context(), test_device(), source, "", "probe");
  auto after = build_statistics();
  BOOST_TEST(after.compiled == before.compiled + 1);
  BOOST_TEST(after.reused == before.reused + 1);
  BOOST_TEST(binaries_in(folder / "clsort") == 1u);

  // A new context has nothing in memory: the binary comes from disk, no compile.
  const cl::Context fresh(test_device());
  detail::build_program(fresh, test_device(), source, "", "probe");
  BOOST_TEST(build_statistics().loaded_from_disk == after.loaded_from_disk + 1);
  BOOST_TEST(build_statistics().compiled == after.compiled);

  // A corrupt binary is rebuilt from source and replaced.
  for (const auto& entry : fs::directory_iterator(folder / "clsort"))
    std::ofstream(entry.path(), std::ios::binary | std::ios::trunc) << "not a program";
  after = build_statistics();
  const cl::Program rebuilt =
      detail::build_program(cl::Context(test_device()), test_device(), source, "", "probe");
  BOOST_TEST(build_statistics().compiled == after.compiled + 1);
  BOOST_TEST(cl::Kernel(rebuilt, "probe_a")() != nullptr);
  BOOST_TEST(fs::file_size(fs::directory_iterator(folder / "clsort")->path()) > 20u);
  fs::remove_all(folder);
}

// `memory` keeps nothing on disk; `disk`, as when the variable is unset, keeps a binary that a
// later build loads.
BOOST_AUTO_TEST_CASE(memory_mode_writes_no_binaries_and_disk_mode_is_the_default) {
  const fs::path folder = fresh_cache_folder("modes");
  clsort::test::Environment environment;
  environment.set("XDG_CACHE_HOME", folder.string());
  environment.set("CLSORT_PROGRAM_CACHE", "memory");
  BOOST_TEST(!detail::uses_disk_cache());
  BOOST_TEST(compiles_of_two_fresh_builds(unique_source("memory")) == 2u);
  BOOST_TEST(binaries_in(folder / "clsort") == 0u);

  environment.unset("CLSORT_PROGRAM_CACHE");
  BOOST_TEST(detail::uses_disk_cache());
  BOOST_TEST(compiles_of_two_fresh_builds(unique_source("unset")) == 1u);
  BOOST_TEST(binaries_in(folder / "clsort") == 1u);
  fs::remove_all(folder);
}

BOOST_AUTO_TEST_CASE(an_unknown_cache_mode_is_an_error_naming_the_variable) {
  clsort::test::Environment environment;
  environment.set("CLSORT_PROGRAM_CACHE", "sometimes");
  BOOST_CHECK_EXCEPTION(
      detail::build_program(test_context(), test_device(), unique_source("bad_mode"), "", "probe"),
      Error, [](const Error& e) {
        const std::string what = e.what();
        return what.find("CLSORT_PROGRAM_CACHE") != std::string::npos &&
               what.find("sometimes") != std::string::npos;
      });
}

BOOST_AUTO_TEST_CASE(build_errors_carry_the_log) {
  BOOST_CHECK_EXCEPTION(detail::build_program(test_context(), test_device(),
                                              "__kernel void broken( {", "", "broken.cl"),
                        Error, [](const Error& e) {
                          return e.code() == CL_BUILD_PROGRAM_FAILURE &&
                                 std::string(e.what()).find("broken.cl") != std::string::npos &&
                                 e.cl_error_name() == "CL_BUILD_PROGRAM_FAILURE";
                        });
}

// NVIDIA's programs come back as PTX text (ending in a NUL); each entry that declares its
// work-group size gets the occupancy directive right after that declaration, nothing else changes.
BOOST_AUTO_TEST_CASE(ptx_entries_get_the_occupancy_directive) {
  const std::string header =
      "//\n// Generated by NVIDIA NVVM Compiler\n//\n\n.version 9.0\n"
      ".target sm_90, texmode_independent\n.address_size 64\n\n";
  const std::string first = ".entry first(\n\t.param .u64 first_param_0\n)\n";
  const std::string second = ".entry second(\n)\n";
  const std::string body = "{\n\tret;\n}\n\n";
  const std::string reqntid_256 = ".reqntid 256, 1, 1\n", reqntid_64 = ".reqntid 64, 1, 1\n";
  const std::string ptx = header + first + reqntid_256 + body + second + reqntid_64 + body + '\0';
  const auto patched = detail::with_groups_per_sm(bytes(ptx), 3);
  BOOST_TEST_REQUIRE(patched.has_value());
  const std::string expected = header + first + reqntid_256 + ".minnctapersm 3\n" + body + second +
                               reqntid_64 + ".minnctapersm 3\n" + body + '\0';
  BOOST_TEST(std::string(patched->begin(), patched->end()) == expected);
}

// Other drivers' binaries (PoCL's, an ELF) are not PTX: no directive applies to them.
BOOST_AUTO_TEST_CASE(other_binaries_take_no_occupancy_directive) {
  BOOST_TEST(!detail::with_groups_per_sm(bytes("\x7f"
                                               "ELF\x02\x01\x01"),
                                         2)
                  .has_value());
  BOOST_TEST(!detail::with_groups_per_sm(bytes("// a comment\n.version 9.0\n"), 2).has_value());
  BOOST_TEST(!detail::with_groups_per_sm({}, 2).has_value());
}

// A program asked for an occupancy is cached apart from the one without (on NVIDIA they are
// different programs); on other devices it is the same program, built for that key once.
BOOST_AUTO_TEST_CASE(occupancy_builds_are_cached_apart) {
  const std::string source = unique_source("occupancy");
  const auto before = build_statistics();
  detail::build_program(test_context(), test_device(), source, "", "probe");
  detail::build_program(test_context(), test_device(), source, "", "probe", 2);
  detail::build_program(test_context(), test_device(), source, "", "probe", 2);
  const auto after = build_statistics();
  // Built or loaded from an earlier run's disk cache: twice either way, then found in memory.
  BOOST_TEST((after.compiled + after.loaded_from_disk) -
                 (before.compiled + before.loaded_from_disk) ==
             2u);
  BOOST_TEST(after.reused - before.reused == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
