// The library's version (CMake's project version) and what the tools print for --version.
#pragma once

#include <string>

namespace clsort {

/// "MAJOR.MINOR.PATCH", the version this library was built as.
std::string version();

/// "TOOL VERSION (kernels HASH)": the version and kernel_templates_hash(), which a profile must
/// match to be used.
std::string version_line(const std::string& tool);

}  // namespace clsort
