// clsort-mpi sort: one file sorted by all ranks together, written by all ranks into one output.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>

#include <mpi.h>

#include <clsort/mpi.hpp>

namespace clsort::mpi {

struct SortArguments {
  std::string input;
  std::string output;
  std::optional<std::string> type;  ///< of a raw input
  std::optional<std::string> values;
  std::optional<std::string> values_out;
  std::optional<std::string> values_type;  ///< of raw values
  bool descending = false;
  unsigned begin_bit = 0;
  std::optional<unsigned> end_bit;
  std::string device;
  bool verbose = false;
  bool quiet = false;
  std::size_t max_message_bytes = std::size_t{1} << 30;
  MergePlace merge = MergePlace::automatic;
};

/// Sorts args.input into args.output (a file, or a folder to hold it under the input's name) and
/// its values on every rank of `comm`; rank 0 reports on `log`. Throws clsort::Error on every
/// rank when any rank fails (no output is left then).
void sort_file(MPI_Comm comm, const SortArguments& args, std::ostream& log);

}  // namespace clsort::mpi
