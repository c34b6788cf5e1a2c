// Refusal of command lines whose outputs would land on an input, on one another or on a folder.
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

/// Throws UsageError naming the options when an output is one of the inputs (it would be
/// replaced), two outputs are one file (one would be lost), compared by same_file, or an output
/// is an existing folder (its rename would fail only after the work, perhaps after the other
/// outputs had appeared). Empty paths and streams ("-", a character device such as /dev/null, a
/// FIFO) are never refused.
void refuse_bad_output_paths(const std::vector<NamedFile>& inputs,
                             const std::vector<NamedFile>& outputs);

}  // namespace clsort::cli
