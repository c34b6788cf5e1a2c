// AtomicFile (mkstemp + fsync + rename) and whole-file reading.
#include "atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "input_error.hpp"

namespace clsort::cli {

AtomicFile::AtomicFile(std::string destination) : destination_(std::move(destination)) {
  const std::filesystem::path target(destination_);
  const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : ".";
  std::string pattern = (folder / ("." + target.filename().string() + ".clsort-XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  fd_ = ::mkstemp(name.data());
  if (fd_ < 0)
    throw InputError(destination_, std::string("cannot create output: ") + std::strerror(errno));
  temporary_ = name.data();
  // mkstemp creates the file 0600; give it the permissions a plain new file would get.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
}

void AtomicFile::fail(const std::string& problem) {
  throw InputError(destination_, problem + ": " + std::strerror(errno));
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t written = ::write(fd_, p, bytes);
    if (written < 0) {
      if (errno == EINTR) continue;
      fail("cannot write output");
    }
    p += written;
    bytes -= static_cast<std::size_t>(written);
  }
}

void AtomicFile::commit() {
  if (::fsync(fd_) != 0) fail("cannot flush output");
  if (::close(fd_) != 0) {
    fd_ = -1;
    fail("cannot close output");
  }
  fd_ = -1;
  if (::rename(temporary_.c_str(), destination_.c_str()) != 0)
    fail("cannot move output into place");
  temporary_.clear();
}

std::string read_file(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw InputError(path, "is a folder, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  std::string data;
  in.seekg(0, std::ios::end);
  data.resize(static_cast<std::size_t>(in.tellg()));
  in.seekg(0);
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  if (!in) throw InputError(path, "cannot read the whole file");
  return data;
}

}  // namespace clsort::cli
