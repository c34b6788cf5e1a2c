// Files for clsort-mpi: each rank reads its part of one input and writes its slice of the
// output with MPI-IO; the output appears only once every rank has written its slice.
#include "mpi_files.hpp"

#include <algorithm>
#include <climits>

#include "../src/collective.hpp"
#include "input_error.hpp"
#include "npy.hpp"

namespace clsort::mpi {

namespace {

constexpr std::uint64_t piece_bytes = std::uint64_t{1} << 30;  // MPI counts are int

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, length);
}

// Moves `bytes` bytes with `io(offset, length, status)` (an MPI_File_read_at or
// MPI_File_write_at at byte `offset` of the range) in pieces of at most 1 GiB, until one fails
// or moves fewer bytes than asked. Returns what went wrong, or "". Each rank's part is one
// contiguous range, so independent MPI-IO suits it: a collective call would route the bytes
// through aggregator ranks (two-phase I/O) to merge requests that are already whole.
template <class Io>
std::string in_pieces(std::uint64_t bytes, const char* verb, Io io) {
  for (std::uint64_t offset = 0; offset < bytes; offset += piece_bytes) {
    const int length = static_cast<int>(std::min(piece_bytes, bytes - offset));
    MPI_Status status;
    const int code = io(offset, length, &status);
    if (code != MPI_SUCCESS) return mpi_error_text(code);
    // A short read or write (a full disk) is no error to MPI-IO: only the status shows it.
    int moved = 0;
    MPI_Get_count(&status, MPI_BYTE, &moved);
    if (moved != length)
      return "only " + std::to_string(offset + static_cast<std::uint64_t>(moved)) + " of " +
             std::to_string(bytes) + " bytes were " + verb;
  }
  return "";
}

}  // namespace

ArrayFile describe_array(const std::string& path, const cli::ReadOptions& options) {
  const cli::InputFile input(path, options);
  if (input.format() == cli::FileFormat::text)
    throw cli::InputError(path, "clsort-mpi sorts .npy and raw files, not text");
  if (input.shape().size() != 1)
    throw cli::InputError(path, "clsort-mpi sorts one-dimensional arrays; this one has shape " +
                                    cli::shape_text(input.shape()));
  ArrayFile file{path,
                 *input.count(),
                 input.data_offset(),
                 input.layout().item_size,
                 input.layout().key_type,
                 input.layout().big_endian,
                 input.descr()};
  if (file.descr.empty() && file.key_type) file.descr = cli::npy_descr(*file.key_type);
  const std::uint64_t needed = file.count * file.item_size;
  if (input.data_bytes().value_or(needed) < needed)
    throw cli::InputError(path, "truncated: the header promises " + std::to_string(needed) +
                                    " bytes of data, the file has " +
                                    std::to_string(*input.data_bytes()));
  return file;
}

HostBytes read_part(MPI_Comm comm, const ArrayFile& file, std::uint64_t first, std::uint64_t count,
                    unsigned threads) {
  HostBytes items(count * file.item_size, threads);
  MPI_File handle = MPI_FILE_NULL;
  int code = MPI_File_open(comm, file.path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &handle);
  if (code != MPI_SUCCESS) throw cli::InputError(file.path, "MPI-IO: " + mpi_error_text(code));
  const MPI_Offset start = static_cast<MPI_Offset>(file.data_offset + first * file.item_size);
  const std::string problem =
      in_pieces(items.size, "read", [&](std::uint64_t offset, int length, MPI_Status* status) {
        return MPI_File_read_at(handle, start + static_cast<MPI_Offset>(offset),
                                items.data.get() + offset, length, MPI_BYTE, status);
      });
  MPI_File_close(&handle);
  if (!problem.empty()) throw cli::InputError(file.path, "cannot read: " + problem);
  return items;
}

std::string output_header(const std::string& path, const std::string& descr, std::uint64_t count) {
  if (cli::format_of_path(path) != cli::FileFormat::npy) return "";
  return cli::make_npy_header(descr, count);
}

SliceOutput::SliceOutput(MPI_Comm comm, const std::string& destination, std::string header,
                         std::size_t item_size)
    : comm_(comm), destination_(destination), header_(std::move(header)), item_size_(item_size) {}

SliceOutput::~SliceOutput() {
  if (handle_ != MPI_FILE_NULL) MPI_File_close(&handle_);
  // file_ (rank 0) removes the temporary file unless it was published.
}

void SliceOutput::create() {
  const bool root = rank_of(comm_) == 0;
  on_every_rank(comm_, "create output", [&] {
    if (root) file_ = std::make_unique<cli::AtomicFile>(destination_);
  });
  temporary_ = root ? file_->temporary() : std::string();
  unsigned long long length = temporary_.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, comm_);
  temporary_.resize(length);
  MPI_Bcast(temporary_.data(), static_cast<int>(length), MPI_CHAR, 0, comm_);
}

void SliceOutput::write(std::uint64_t offset, const char* items, std::uint64_t count) {
  if (handle_ == MPI_FILE_NULL)  // the same on every rank
    on_every_rank(comm_, "open output", [&] {
      const int code =
          MPI_File_open(comm_, temporary_.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &handle_);
      if (code != MPI_SUCCESS)
        throw cli::InputError(destination_, "MPI-IO: " + mpi_error_text(code));
    });
  on_every_rank(comm_, "write output", [&] {
    const auto write_at = [&](MPI_Offset start, const char* data, std::uint64_t bytes) {
      const std::string problem =
          in_pieces(bytes, "written", [&](std::uint64_t at, int length, MPI_Status* status) {
            return MPI_File_write_at(handle_, start + static_cast<MPI_Offset>(at), data + at,
                                     length, MPI_BYTE, status);
          });
      if (!problem.empty()) throw cli::InputError(destination_, "cannot write output: " + problem);
    };
    if (rank_of(comm_) == 0) write_at(0, header_.data(), header_.size());
    write_at(static_cast<MPI_Offset>(header_.size() + offset * item_size_), items,
             count * item_size_);
  });
}

void SliceOutput::close() {
  on_every_rank(comm_, "flush output", [&] {
    int code = MPI_File_sync(handle_);
    const int closed = MPI_File_close(&handle_);
    handle_ = MPI_FILE_NULL;
    if (code == MPI_SUCCESS) code = closed;
    if (code != MPI_SUCCESS)
      throw cli::InputError(destination_, "cannot flush output: " + mpi_error_text(code));
  });
}

void SliceOutput::publish() {
  on_every_rank(comm_, "publish output", [&] {
    if (file_) file_->commit();
  });
}

}  // namespace clsort::mpi
