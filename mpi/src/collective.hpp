// Collective failure: a step that throws on one rank makes every rank throw, naming that rank.
#pragma once

#include <functional>
#include <string>

#include <mpi.h>

namespace clsort::mpi {

/// Runs `step` on this rank, then agrees with every rank of `comm` on whether it failed
/// anywhere. If it did, every rank throws clsort::Error("mpi " + what, "rank R: reason") for the
/// lowest failing rank R; otherwise all return. Collective: every rank must call it.
void on_every_rank(MPI_Comm comm, const std::string& what, const std::function<void()>& step);

/// The rank of this process in `comm`, and the number of ranks.
int rank_of(MPI_Comm comm);
int size_of(MPI_Comm comm);

}  // namespace clsort::mpi
