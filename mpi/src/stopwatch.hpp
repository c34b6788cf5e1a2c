// Phase timing for the distributed sort and its tool: seconds since a steady-clock instant.
#pragma once

#include <chrono>

namespace clsort::mpi {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace clsort::mpi
