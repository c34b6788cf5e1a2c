// Host memory work of the distributed sort spread over this rank's share of the node's cores.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
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
/// covering [0, n), t numbering the chunk, each of at least `least_per_thread` items (so fewer
/// threads where n is small); returns when all are done. f must not throw.
template <class F>
void parallel_chunks(std::uint64_t n, unsigned threads, F f,
                     std::uint64_t least_per_thread = 65536) {
  threads = static_cast<unsigned>(
      std::clamp<std::uint64_t>(n / least_per_thread, 1, std::max(threads, 1u)));
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads; ++t)
    workers.emplace_back([&f, n, t, threads] { f(t, n * t / threads, n * (t + 1) / threads); });
  f(0u, std::uint64_t{0}, n / threads);
  for (std::thread& worker : workers) worker.join();
}

/// memcpy on `threads` threads: a large copy into fresh memory is bound by the page faults of
/// its first touch, which one thread takes one at a time.
inline void parallel_copy(void* target, const void* source, std::uint64_t bytes, unsigned threads) {
  parallel_chunks(bytes, threads, [&](unsigned, std::uint64_t begin, std::uint64_t end) {
    std::memcpy(static_cast<char*>(target) + begin, static_cast<const char*>(source) + begin,
                end - begin);
  });
}

/// Host bytes (one at least) whose pages are touched on `threads` threads, so that the copies
/// and receives that fill them later take no page faults.
inline std::unique_ptr<char[]> touched_bytes(std::uint64_t bytes, unsigned threads) {
  std::unique_ptr<char[]> data(new char[std::max<std::uint64_t>(bytes, 1)]);
  parallel_chunks(bytes, threads, [&](unsigned, std::uint64_t begin, std::uint64_t end) {
    std::memset(data.get() + begin, 0, end - begin);
  });
  return data;
}

/// Host bytes whose pages were touched on the rank's threads (touched_bytes), with their size.
struct HostBytes {
  std::unique_ptr<char[]> data;
  std::uint64_t size = 0;

  HostBytes() = default;
  HostBytes(std::uint64_t bytes, unsigned threads)
      : data(touched_bytes(bytes, threads)), size(bytes) {}
};

}  // namespace clsort::mpi
