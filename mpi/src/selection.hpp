// Exact splitters: where each rank's locally sorted keys are cut so that every rank gets its
// share of the global order.
#pragma once

#include <cstdint>
#include <vector>

#include <mpi.h>

#include <clsort/types.hpp>

namespace clsort::mpi {

/// For the n locally sorted keys of this rank (a stable sort under `options`), the P + 1 cut
/// positions 0 = c[0] <= ... <= c[P] = n such that keys [c[j], c[j+1]) belong to rank j's slice:
/// global positions [j*N/P, (j+1)*N/P) of a stable sort of all ranks' keys in rank order. Found
/// by a 16-way search on the sort key (one Allreduce per 4 bits), equal keys then shared out in
/// rank order, so the slices are exact whatever the keys. Collective.
std::vector<std::uint64_t> find_cuts(MPI_Comm comm, const void* sorted_keys, std::uint64_t n,
                                     KeyType type, const SortOptions& options);

/// The first global position of rank j's slice of `total` keys over `ranks` ranks.
std::uint64_t slice_start(std::uint64_t total, int ranks, int j);

}  // namespace clsort::mpi
