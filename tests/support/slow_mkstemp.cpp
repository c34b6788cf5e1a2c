// Interposes mkstemp to pause once it has made its file (test-only, preloaded into the CLI):
// for CLSORT_TEST_MKSTEMP_PAUSE_MS milliseconds, so that a signal lands between a temporary
// file's creation and whatever the program does next with it.
#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace {

int made_then_paused(const char* name, char* pattern) {
  using Mkstemp = int (*)(char*);
  const auto real = reinterpret_cast<Mkstemp>(::dlsym(RTLD_NEXT, name));
  const int fd = real(pattern);
  if (const char* pause = std::getenv("CLSORT_TEST_MKSTEMP_PAUSE_MS"))
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(pause)));
  return fd;
}

}  // namespace

extern "C" int mkstemp(char* pattern) {
  return made_then_paused("mkstemp", pattern);
}
extern "C" int mkstemp64(char* pattern) {
  return made_then_paused("mkstemp64", pattern);
}
