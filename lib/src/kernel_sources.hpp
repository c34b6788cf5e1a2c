// Access to the kernel templates that the build embeds into the library.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace clsort::detail {

/// Every file of kernels/, by file name (generated at build time by cmake/embed_files.cmake).
const std::map<std::string, std::string_view>& embedded_kernel_templates();

inline std::optional<std::string_view> find_kernel_template(std::string_view name) {
  const auto& files = embedded_kernel_templates();
  const auto it = files.find(std::string(name));
  if (it == files.end()) return std::nullopt;
  return it->second;
}

}  // namespace clsort::detail
