// The all-to-all exchange of sorted pieces, in messages of a bounded size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <mpi.h>

namespace clsort::mpi {

/// Tells every rank how many items each rank sends it: from the P + 1 cuts of this rank's items
/// (items [cuts[j], cuts[j+1]) go to rank j), returns the items this rank receives from each.
std::vector<std::uint64_t> exchange_counts(MPI_Comm comm, const std::vector<std::uint64_t>& cuts);

/// Sends items [cuts[j], cuts[j+1]) of `items` (each `item_bytes`) to rank j and receives each
/// rank's items into `received`, rank 0's first. A piece larger than `max_message_bytes` goes as
/// several messages (MPI counts are int; Open MPI 4.1 has no large-count calls). This rank's own
/// piece is copied on `threads` threads. Collective.
void exchange(MPI_Comm comm, const void* items, const std::vector<std::uint64_t>& cuts,
              const std::vector<std::uint64_t>& receive_counts, std::size_t item_bytes,
              void* received, std::size_t max_message_bytes, unsigned threads);

}  // namespace clsort::mpi
