// Signal handling on a dedicated thread (sigwait), so the cleanup may lock and allocate freely.
#include "interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <mutex>
#include <set>
#include <thread>

namespace clsort::cli {
namespace {

std::mutex registry_mutex;
std::set<std::string> temporaries;

sigset_t interrupt_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  return signals;
}

[[noreturn]] void clean_up_and_exit(int signal_number) {
  std::lock_guard lock(registry_mutex);  // held until _exit: no output can appear meanwhile
  for (const std::string& path : temporaries) ::unlink(path.c_str());
  const char* name = signal_number == SIGINT ? "interrupted" : "terminated";
  const std::string message = std::string("\nclsort: ") + name + "; unfinished outputs removed\n";
  [[maybe_unused]] const ssize_t ignored = ::write(STDERR_FILENO, message.data(), message.size());
  ::_exit(128 + signal_number);
}

}  // namespace

void install_interrupt_cleanup() {
  const sigset_t signals = interrupt_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread([signals] {
    int signal_number = 0;
    while (sigwait(&signals, &signal_number) != 0) {
    }
    clean_up_and_exit(signal_number);
  }).detach();
}

std::string create_temporary(const std::function<std::string()>& create) {
  std::lock_guard lock(registry_mutex);
  std::string path = create();
  temporaries.insert(path);
  return path;
}

void forget_temporary(const std::string& path) {
  std::lock_guard lock(registry_mutex);
  temporaries.erase(path);
}

void publish_temporary(const std::string& path, const std::function<void()>& publish) {
  std::lock_guard lock(registry_mutex);
  publish();
  temporaries.erase(path);
}

}  // namespace clsort::cli
