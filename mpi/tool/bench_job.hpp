// clsort-mpi bench: random keys on every rank, the distributed sort timed phase by phase and
// compared with a model (local sort + one all-to-all of the same bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include <mpi.h>

#include <clsort/mpi.hpp>

namespace clsort::mpi {

struct BenchArguments {
  std::string type = "u32";
  std::uint64_t count = std::uint64_t{1} << 24;  ///< keys over all ranks, or per rank if weak
  bool weak = false;
  std::size_t value_bytes = 0;
  bool resident = false;  ///< keys (and values) start and end in device buffers (sort_device)
  MergePlace merge = MergePlace::automatic;
  int repeats = 5;
  std::string device;
  std::optional<std::string> csv;  ///< rank 0 appends a row here
};

/// Runs the benchmark on every rank of `comm`; rank 0 prints the medians on `log`, and each
/// sort's times as it ends on `progress`.
void bench(MPI_Comm comm, const BenchArguments& args, std::ostream& log, std::ostream& progress);

}  // namespace clsort::mpi
