// AtomicFile: mkstemp in the destination's folder, fsync, rename; registered for interrupts.
#include "atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "fd_io.hpp"
#include "input_error.hpp"
#include "interrupt.hpp"

namespace clsort::cli {

namespace {

namespace fs = std::filesystem;

// The file that a destination names: a symbolic link is followed, so that the file it points
// to gets the output and the link stays a link.
fs::path rename_target(const std::string& destination) {
  std::error_code error;
  if (!fs::is_symlink(destination, error)) return destination;
  const fs::path target = fs::weakly_canonical(destination, error);
  if (error)
    throw InputError(destination,
                     "cannot create output: cannot follow the link: " + error.message());
  return target;
}

}  // namespace

AtomicFile::AtomicFile(std::string destination)
    : destination_(std::move(destination)), target_(rename_target(destination_)) {
  const fs::path target(target_);
  std::error_code error;
  const fs::file_status existing = fs::status(target, error);
  // A rename would replace a device, FIFO or socket (as root, /dev/null) with a plain file.
  if (fs::exists(existing) && !fs::is_regular_file(existing))
    throw InputError(destination_,
                     "cannot create output: not a regular file, which renaming the output over "
                     "would replace");
  const fs::path folder = target.has_parent_path() ? target.parent_path() : ".";
  std::string pattern = (folder / ("." + target.filename().string() + ".clsort-XXXXXX")).string();
  temporary_ = create_temporary([&] {
    fd_ = ::mkstemp(pattern.data());
    if (fd_ < 0)
      throw InputError(destination_, std::string("cannot create output: ") + std::strerror(errno));
    return pattern;
  });
  // mkstemp creates the file 0600; give it the permissions a plain new file would get.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (temporary_.empty()) return;
  ::unlink(temporary_.c_str());
  forget_temporary(temporary_);
}

void AtomicFile::fail(const std::string& problem) {
  throw InputError(destination_, problem + ": " + std::strerror(errno));
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  if (!write_fully(fd_, static_cast<const char*>(data), bytes)) fail("cannot write output");
  written_ += bytes;
  start_writeback();
}

void AtomicFile::start_writeback() {
  // Without this the kernel holds dirty pages until its thresholds, and fsync writes them all.
  constexpr std::uint64_t step = std::uint64_t{16} << 20;
  if (written_ - written_back_ < step) return;
  ::sync_file_range(fd_, static_cast<off_t>(written_back_),
                    static_cast<off_t>(written_ - written_back_), SYNC_FILE_RANGE_WRITE);
  written_back_ = written_;
}

void AtomicFile::write_at(std::uint64_t offset, std::string_view bytes) {
  if (!write_fully_at(fd_, bytes.data(), bytes.size(), offset)) fail("cannot write output");
}

void AtomicFile::commit() {
  if (::fsync(fd_) != 0) fail("cannot flush output");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot close output");
  publish_temporary(temporary_, [&] {
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) fail("cannot move output into place");
  });
  temporary_.clear();
}

}  // namespace clsort::cli
