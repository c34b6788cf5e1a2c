// The version strings: CLSORT_VERSION comes from CMake's project(VERSION).
#include "clsort/version.hpp"

#include "clsort/profile.hpp"

namespace clsort {

std::string version() {
  return CLSORT_VERSION;
}

std::string version_line(const std::string& tool) {
  return tool + " " + version() + " (kernels " + kernel_templates_hash() + ")";
}

}  // namespace clsort
