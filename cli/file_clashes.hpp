// Refusal of command lines whose outputs would land on an input or on one another.
#pragma once

#include <string>
#include <vector>

namespace clsort::cli {

/// A file named on the command line, with what names it ("the input", "--values", "-o").
struct NamedFile {
  std::string option;
  std::string path;
};

/// Whether two paths name one file: a hard link, a symbolic link or another spelling of the same
/// path is the same file; a path that does not exist yet is compared by its resolved form.
bool same_file(const std::string& a, const std::string& b);

/// Throws UsageError naming both when an output is one of the inputs (it would be replaced) or
/// two outputs are one file (one would be lost), compared by same_file. "-" (a standard
/// stream) and empty paths never clash.
void refuse_clashing_files(const std::vector<NamedFile>& inputs,
                           const std::vector<NamedFile>& outputs);

}  // namespace clsort::cli
