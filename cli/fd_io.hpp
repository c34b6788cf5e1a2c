// Whole transfers on file descriptors: loops over short reads and writes and EINTR.
#pragma once

#include <cstddef>
#include <cstdint>

namespace clsort::cli {

/// Writes all `size` bytes to `fd`; false (errno set) on an error.
bool write_fully(int fd, const char* data, std::size_t size);
/// Writes all `size` bytes at `offset` (pwrite; one call moves at most about 2 GiB).
bool write_fully_at(int fd, const char* data, std::size_t size, std::uint64_t offset);
/// Reads exactly `size` bytes from `offset` (pread); false on an error or an early end.
bool read_fully_at(int fd, char* out, std::size_t size, std::uint64_t offset);

}  // namespace clsort::cli
