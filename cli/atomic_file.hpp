// AtomicFile: output that appears whole under its name or not at all.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace clsort::cli {

/// Writes to a temporary file in the destination's folder; commit() flushes, fsyncs and renames
/// it into place. Destroyed without commit(), it removes the temporary file.
class AtomicFile {
 public:
  explicit AtomicFile(std::string destination);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, std::size_t bytes);
  void write(std::string_view text) { write(text.data(), text.size()); }
  void commit();

 private:
  void fail(const std::string& problem);
  std::string destination_;
  std::string temporary_;
  int fd_ = -1;
};

/// Reads a whole file; InputError naming it if it is missing or unreadable.
std::string read_file(const std::string& path);

}  // namespace clsort::cli
