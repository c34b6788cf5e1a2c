// AtomicFile: output that appears whole under its name or not at all.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace clsort::cli {

/// Writes to a temporary file in the destination's folder; commit() flushes, fsyncs and renames
/// it into place. A destination that is a symbolic link gets the output in the file it names
/// (the link stays); one that exists and is not a regular file (a device, a FIFO, a folder) is
/// refused, since the rename would replace it. Destroyed without commit(), or on an interrupt, it
/// removes the temporary file. Written data is handed to the disk as it comes (sync_file_range), so
/// that the fsync at the end waits for little more than the last blocks.
class AtomicFile {
 public:
  explicit AtomicFile(std::string destination);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, std::size_t bytes);
  void write(std::string_view text) { write(text.data(), text.size()); }
  /// Overwrites bytes already written, from `offset` on (a header whose counts are known last).
  void write_at(std::uint64_t offset, std::string_view bytes);
  void commit();
  const std::string& destination() const { return destination_; }
  /// The temporary file's path, for writers that open it themselves (MPI-IO).
  const std::string& temporary() const { return temporary_; }

 private:
  [[noreturn]] void fail(const std::string& problem);
  void start_writeback();
  std::string destination_;  // as given, for messages
  std::string target_;       // what the output is renamed onto: links followed
  std::string temporary_;
  int fd_ = -1;
  std::uint64_t written_ = 0;       // bytes appended by write()
  std::uint64_t written_back_ = 0;  // of which the disk has been asked to write so many
};

}  // namespace clsort::cli
