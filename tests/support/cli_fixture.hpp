// CliFixture: runs the clsort binary in a scratch folder and reads and writes its files.
#pragma once

#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <clsort/clsort.hpp>

#include "npy.hpp"
#include "support/inputs.hpp"

namespace clsort::test {

namespace fs = std::filesystem;

struct Result {
  int exit_code;
  std::string output;  // stdout and stderr together
};

struct CliFixture {
  fs::path folder = fs::temp_directory_path() / ("clsort-cli-" + std::to_string(::getpid()));
  CliFixture() {
    fs::remove_all(folder);
    fs::create_directories(folder);
  }
  ~CliFixture() { fs::remove_all(folder); }

  std::string path(const std::string& name) const { return (folder / name).string(); }

  // The binary built beside the tests, or $CLSORT_CLI where the build folder has moved.
  static std::string cli_path() {
    const char* moved = std::getenv("CLSORT_CLI");
    return moved && *moved ? moved : CLSORT_CLI_PATH;
  }

  Result run(const std::string& arguments, const std::string& environment = "") const {
    // 2>&1 first: the arguments may redirect standard output (or input) themselves.
    return run_shell(environment + " " + cli_path() + " 2>&1 " + arguments);
  }

  static Result run_shell(const std::string& command) {
    FILE* pipe = ::popen(command.c_str(), "r");
    std::string output;
    char buffer[4096];
    while (std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, got);
    const int status = ::pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
  }

  template <class T>
  std::string write_raw(const std::string& name, const std::vector<T>& data) const {
    std::ofstream(path(name), std::ios::binary)
        .write(reinterpret_cast<const char*>(data.data()),
               static_cast<std::streamsize>(data.size() * sizeof(T)));
    return path(name);
  }

  template <class T>
  std::string write_npy(const std::string& name, const std::vector<T>& data) const {
    std::ofstream out(path(name), std::ios::binary);
    out << cli::make_npy_header(cli::npy_descr(key_type_of<T>()), data.size());
    out.write(reinterpret_cast<const char*>(data.data()),
              static_cast<std::streamsize>(data.size() * sizeof(T)));
    return path(name);
  }

  std::string read(const std::string& name) const {
    std::ifstream in(path(name), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  template <class T>
  std::vector<T> read_raw(const std::string& name, std::size_t skip = 0) const {
    const std::string bytes = read(name).substr(skip);
    std::vector<T> data(bytes.size() / sizeof(T));
    if (!data.empty()) std::memcpy(data.data(), bytes.data(), data.size() * sizeof(T));
    return data;
  }

  // Nothing but the listed files exists in the folder: no partial outputs, no temporaries.
  std::set<std::string> files() const {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder))
      names.insert(entry.path().filename().string());
    return names;
  }

  // Waits (up to a minute, looking every millisecond) until a file whose name holds `fragment`
  // is in the subfolder `subfolder`, such as a running CLI's temporary output.
  bool wait_for_file(const std::string& subfolder, const std::string& fragment) const {
    for (int wait = 0; wait < 60000; ++wait) {
      for (const auto& entry : fs::directory_iterator(path(subfolder)))
        if (entry.path().filename().string().find(fragment) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
  }

  // A null device (like /dev/null) of the folder's own, so that an output that replaced its
  // device would never touch the system's. Needs root, as the CLI tests run.
  std::string make_null_device(const std::string& name) const {
    BOOST_REQUIRE_MESSAGE(::mknod(path(name).c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0,
                          "mknod (run as root): " << std::strerror(errno));
    return path(name);
  }
};

// The fault injector built beside the tests, or $CLSORT_FAULTS_LIBRARY where the build has moved.
inline std::string faults_library() {
  const char* moved = std::getenv("CLSORT_FAULTS_LIBRARY");
  return moved && *moved ? moved : CLSORT_FAULTS_LIBRARY;
}

// The mkstemp pause (support/slow_mkstemp.cpp) built beside the tests, or
// $CLSORT_SLOW_MKSTEMP_LIBRARY where the build has moved.
inline std::string slow_mkstemp_library() {
  const char* moved = std::getenv("CLSORT_SLOW_MKSTEMP_LIBRARY");
  return moved && *moved ? moved : CLSORT_SLOW_MKSTEMP_LIBRARY;
}

inline bool has(const Result& r, const std::string& fragment) {
  const bool found = r.output.find(fragment) != std::string::npos;
  if (!found) BOOST_TEST_MESSAGE("output was: " << r.output);
  return found;
}

// Starts the CLI with its standard input on a pipe; the caller feeds it and then signals it.
struct RunningCli {
  pid_t pid = -1;
  int input = -1;

  // `environment`: NAME=value settings added to the CLI's environment.
  RunningCli(const std::string& cli, const std::vector<std::string>& arguments,
             std::vector<std::string> environment = {}) {
    int fds[2];
    BOOST_REQUIRE(::pipe(fds) == 0);
    pid = ::fork();
    BOOST_REQUIRE(pid >= 0);
    if (pid == 0) {
      for (std::string& setting : environment) ::putenv(setting.data());
      ::dup2(fds[0], STDIN_FILENO);
      ::close(fds[0]);
      ::close(fds[1]);
      std::vector<char*> argv{const_cast<char*>(cli.c_str())};
      for (const std::string& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(cli.c_str(), argv.data());
      ::_exit(127);
    }
    ::close(fds[0]);
    input = fds[1];
  }

  void feed(const std::string& bytes) const {
    BOOST_REQUIRE(::write(input, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  }

  int signal_and_wait(int signal_number) {
    ::kill(pid, signal_number);
    ::close(input);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
};

inline bool any_file_named(const std::set<std::string>& names, const std::string& fragment) {
  for (const std::string& name : names)
    if (name.find(fragment) != std::string::npos) return true;
  return false;
}

template <class K>
std::vector<K> expected_sort(const std::vector<K>& keys, const SortOptions& o = {}) {
  return permuted(keys, reference_permutation(keys, o));
}

}  // namespace clsort::test
