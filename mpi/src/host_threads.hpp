// Host memory work of the distributed sort spread over this rank's share of the node's cores.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <thread>
#include <vector>

#include <mpi.h>
#include <sys/mman.h>

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

/// Frees memory from std::aligned_alloc.
struct FreeHostMemory {
  void operator()(char* data) const noexcept { std::free(data); }
};
using HostMemory = std::unique_ptr<char[], FreeHostMemory>;

/// Host bytes (one at least) whose pages are touched on `threads` threads, so that the copies
/// and receives that fill them later take no page faults. From 2 MiB, in transparent huge pages
/// where Linux grants them (madvise): a first touch costs a page fault per page, and with 4 KiB
/// pages those faults, not the zeroing, bound it (2 ranks on 2 cores: a 128 MiB slice 70 -> 19
/// ms; four H200s' 64-core host, 2^32 u32 keys on 4 ranks: the exchange 2.0-2.7 -> 1.5 s).
inline HostMemory touched_bytes(std::uint64_t bytes, unsigned threads) {
  constexpr std::uint64_t huge_page = std::uint64_t{2} << 20;
  const std::uint64_t alignment = bytes >= huge_page ? huge_page : alignof(std::max_align_t);
  const std::uint64_t allocated = (std::max<std::uint64_t>(bytes, 1) + alignment - 1) / alignment *
                                  alignment;  // aligned_alloc wants a multiple of the alignment
  HostMemory data(static_cast<char*>(std::aligned_alloc(alignment, allocated)));
  if (!data) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  if (alignment == huge_page) madvise(data.get(), allocated, MADV_HUGEPAGE);  // a hint: may fail
#endif
  parallel_chunks(bytes, threads, [&](unsigned, std::uint64_t begin, std::uint64_t end) {
    std::memset(data.get() + begin, 0, end - begin);
  });
  return data;
}

/// Host bytes whose pages were touched on the rank's threads (touched_bytes), with their size.
struct HostBytes {
  HostMemory data;
  std::uint64_t size = 0;

  HostBytes() = default;
  HostBytes(std::uint64_t bytes, unsigned threads)
      : data(touched_bytes(bytes, threads)), size(bytes) {}
};

}  // namespace clsort::mpi
