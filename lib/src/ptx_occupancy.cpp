// Adds PTX's occupancy directive to the kernel entries of an NVIDIA program binary.
#include "ptx_occupancy.hpp"

#include <string>
#include <string_view>

namespace clsort::detail {
namespace {

// NVIDIA's OpenCL returns a program's binary as PTX text: a comment header, then .version and
// .target directives at the start of their lines.
bool is_ptx(std::string_view text) {
  return text.rfind("//", 0) == 0 && text.find("\n.version ") != std::string_view::npos &&
         text.find("\n.target sm_") != std::string_view::npos;
}

bool starts_with(std::string_view line, std::string_view prefix) {
  return line.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::optional<std::vector<unsigned char>> with_groups_per_sm(
    const std::vector<unsigned char>& binary, int groups) {
  const std::string_view text(reinterpret_cast<const char*>(binary.data()), binary.size());
  if (!is_ptx(text)) return std::nullopt;
  const std::string directive = ".minnctapersm " + std::to_string(groups) + "\n";
  std::string patched;
  patched.reserve(text.size() + 1024);
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t newline = text.find('\n', begin);
    const std::size_t end = newline == std::string_view::npos ? text.size() : newline + 1;
    const std::string_view line = text.substr(begin, end - begin);
    patched += line;
    // The performance directives sit between an entry's parameter list and its body.
    if (starts_with(line, ".reqntid ") && newline != std::string_view::npos) patched += directive;
    begin = end;
  }
  return std::vector<unsigned char>(patched.begin(), patched.end());
}

}  // namespace clsort::detail
