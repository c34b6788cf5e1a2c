// Host loops of the bench and its check spread over this rank's share of the node's cores.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include <mpi.h>

namespace clsort::mpi {

/// The node's hardware threads divided among the ranks on it (one at least). Collective.
inline unsigned threads_per_rank(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int ranks_on_node = 1;
  MPI_Comm_size(node, &ranks_on_node);
  MPI_Comm_free(&node);
  return std::max(1u, std::thread::hardware_concurrency() / static_cast<unsigned>(ranks_on_node));
}

/// Calls f(t, begin, end) on `threads` threads at once for consecutive chunks [begin, end)
/// covering [0, n), t numbering the chunk; returns when all are done. f must not throw.
template <class F>
void parallel_chunks(std::uint64_t n, unsigned threads, F f) {
  threads = static_cast<unsigned>(std::clamp<std::uint64_t>(n / 65536, 1, std::max(threads, 1u)));
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads; ++t)
    workers.emplace_back([&f, n, t, threads] { f(t, n * t / threads, n * (t + 1) / threads); });
  f(0u, std::uint64_t{0}, n / threads);
  for (std::thread& worker : workers) worker.join();
}

}  // namespace clsort::mpi
