// Files for clsort-mpi: each rank reads its part of one input and writes its slice of the
// output with MPI-IO; the output appears only once every rank has written its slice.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <mpi.h>

#include "../src/host_threads.hpp"

#include "atomic_file.hpp"
#include "input_file.hpp"

namespace clsort::mpi {

/// A one-dimensional array file (.npy or raw) as every rank sees it.
struct ArrayFile {
  std::string path;
  std::uint64_t count = 0;
  std::uint64_t data_offset = 0;
  std::size_t item_size = 0;
  std::optional<KeyType> key_type;
  bool big_endian = false;
  std::string descr;  ///< the npy dtype its output gets
};

/// Reads the header of `path` and checks it holds a whole one-dimensional array; InputError
/// naming the file otherwise.
ArrayFile describe_array(const std::string& path, const cli::ReadOptions& options);

/// This rank's items [first, first + count) of `file`, read with MPI-IO into memory touched on
/// `threads` threads. Collective.
HostBytes read_part(MPI_Comm comm, const ArrayFile& file, std::uint64_t first, std::uint64_t count,
                    unsigned threads);

/// The output: a temporary file in the destination's folder (created by rank 0, removed unless
/// published, also on interrupts), which every rank writes its slice into with MPI-IO. Every
/// call is collective; errors throw on every rank, naming the first that failed.
class SliceOutput {
 public:
  /// `header`: the bytes before the data (an .npy header, or none).
  SliceOutput(MPI_Comm comm, const std::string& destination, std::string header,
              std::size_t item_size);
  ~SliceOutput();
  SliceOutput(const SliceOutput&) = delete;
  SliceOutput& operator=(const SliceOutput&) = delete;

  /// Creates the temporary file (rank 0), so that an unwritable destination fails the job
  /// before its work.
  void create();
  /// Opens the file on every rank (the first time) and writes `count` items at global item position
  /// `offset`, and the header on rank 0. The file is opened only now: MPI_File_close, which an
  /// error on one rank would run on that rank alone while unwinding, is collective.
  void write(std::uint64_t offset, const char* items, std::uint64_t count);
  /// Flushes and closes the file on every rank.
  void close();
  /// Rank 0: moves the file into place. Call once every rank has closed it.
  void publish();

 private:
  MPI_Comm comm_;
  std::string destination_;
  std::string header_;
  std::size_t item_size_;
  std::unique_ptr<cli::AtomicFile> file_;  // rank 0
  std::string temporary_;                  // file_'s path, on every rank
  MPI_File handle_ = MPI_FILE_NULL;
};

/// The npy header of a one-dimensional output of `count` items of `descr`, when `path` is a
/// .npy; else nothing (raw output).
std::string output_header(const std::string& path, const std::string& descr, std::uint64_t count);

}  // namespace clsort::mpi
