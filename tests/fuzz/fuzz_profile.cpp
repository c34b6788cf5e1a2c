// Fuzz target: loading a device profile (JSON) from a file, and saving what loads.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include <clsort/error.hpp>
#include <clsort/profile.hpp>
#include <nlohmann/json.hpp>

namespace {

std::string scratch_path(const char* what) {
  return "/tmp/clsort-fuzz-profile-" + std::to_string(::getpid()) + what;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch_path(".json");
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  clsort::Profile profile;
  try {
    profile = clsort::load_profile(path);
  } catch (const clsort::Error&) {
    return 0;  // rejected with a message naming the file: fine
  }
  // A profile that loads saves and loads back unchanged.
  const std::string copy = scratch_path("-copy.json");
  clsort::save_profile(profile, copy);
  if (nlohmann::json(clsort::load_profile(copy)) != nlohmann::json(profile)) std::abort();
  return 0;
}
