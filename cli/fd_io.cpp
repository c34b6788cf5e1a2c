// One transfer loop for write, pwrite and pread.
#include "fd_io.hpp"

#include <sys/types.h>
#include <unistd.h>

#include <cerrno>

namespace clsort::cli {
namespace {

// Calls `step(done)` (which moves bytes from offset `done` on) until `size` bytes are moved.
template <class Step>
bool transfer_fully(std::size_t size, Step step) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t moved = step(done);
    if (moved < 0 && errno == EINTR) continue;
    if (moved <= 0) return false;
    done += static_cast<std::size_t>(moved);
  }
  return true;
}

}  // namespace

bool write_fully(int fd, const char* data, std::size_t size) {
  return transfer_fully(size,
                        [&](std::size_t done) { return ::write(fd, data + done, size - done); });
}

bool write_fully_at(int fd, const char* data, std::size_t size, std::uint64_t offset) {
  return transfer_fully(size, [&](std::size_t done) {
    return ::pwrite(fd, data + done, size - done, static_cast<off_t>(offset + done));
  });
}

bool read_fully_at(int fd, char* out, std::size_t size, std::uint64_t offset) {
  return transfer_fully(size, [&](std::size_t done) {
    return ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
  });
}

}  // namespace clsort::cli
