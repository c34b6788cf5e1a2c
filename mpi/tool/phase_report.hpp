// The phases of a distributed sort as rank 0 reports them: the slowest rank's time for each.
#pragma once

#include <array>
#include <ostream>

#include <mpi.h>

#include <clsort/mpi.hpp>

namespace clsort::mpi {

/// Seconds per phase: read, local sort, splitters, exchange, merge, write.
using PhaseSeconds = std::array<double, 6>;

inline PhaseSeconds phase_seconds(double read, const PhaseTimes& sort, double write) {
  return {read, sort.local_sort, sort.splitters, sort.exchange, sort.merge, write};
}

/// The slowest rank's time for each phase (on every rank). Collective.
inline PhaseSeconds slowest(MPI_Comm comm, const PhaseSeconds& mine) {
  PhaseSeconds result{};
  MPI_Allreduce(mine.data(), result.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX,
                comm);
  return result;
}

inline void print_phases(std::ostream& log, const PhaseSeconds& seconds) {
  static constexpr const char* names[] = {"read",     "local sort", "splitters",
                                          "exchange", "merge",      "write"};
  log << "phases (s, slowest rank):";
  for (std::size_t i = 0; i < seconds.size(); ++i)
    log << (i ? ", " : " ") << names[i] << " " << seconds[i];
}

}  // namespace clsort::mpi
