// Outputs checked against the inputs, one another and folders, as files rather than as strings.
#include "output_paths.hpp"

#include <filesystem>

#include "input_error.hpp"
#include "output_files.hpp"

namespace clsort::cli {
namespace {

namespace fs = std::filesystem;

bool names_a_file(const NamedFile& file) {
  return !file.path.empty() && file.path != "-";
}

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  std::error_code error;
  if (fs::equivalent(a, b, error)) return true;
  // Absolute first: weakly_canonical leaves a relative path that names nothing yet relative.
  const fs::path resolved_a = fs::weakly_canonical(fs::absolute(a, error), error);
  if (error) return false;
  const fs::path resolved_b = fs::weakly_canonical(fs::absolute(b, error), error);
  return !error && resolved_a == resolved_b;
}

void refuse_bad_output_paths(const std::vector<NamedFile>& inputs,
                             const std::vector<NamedFile>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedFile& output = outputs[i];
    if (!names_a_file(output) || is_stream_device(output.path)) continue;  // written, not replaced
    if (fs::is_directory(output.path))
      throw UsageError(output.option + " " + output.path + " is a folder; name a file");
    for (const NamedFile& input : inputs)
      if (names_a_file(input) && same_file(output.path, input.path))
        throw UsageError(output.option + " " + output.path + " is " + input.option + " " +
                         input.path + ", which it would replace; choose another file");
    for (std::size_t j = 0; j < i; ++j)
      if (names_a_file(outputs[j]) && same_file(output.path, outputs[j].path))
        throw UsageError(output.option + " " + output.path + " and " + outputs[j].option + " " +
                         outputs[j].path + " are one file: one output would overwrite the other");
  }
}

}  // namespace clsort::cli
