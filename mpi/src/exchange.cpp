// The all-to-all exchange of sorted pieces, in messages of a bounded size.
#include "exchange.hpp"

#include <algorithm>
#include <climits>

#include "collective.hpp"
#include "host_threads.hpp"

namespace clsort::mpi {

std::vector<std::uint64_t> exchange_counts(MPI_Comm comm, const std::vector<std::uint64_t>& cuts) {
  const int ranks = size_of(comm);
  std::vector<std::uint64_t> sending(ranks), receiving(ranks);
  for (int j = 0; j < ranks; ++j) sending[j] = cuts[j + 1] - cuts[j];
  MPI_Alltoall(sending.data(), 1, MPI_UINT64_T, receiving.data(), 1, MPI_UINT64_T, comm);
  return receiving;
}

namespace {

constexpr int exchange_tag = 4711;

// Posts the messages of one piece of `bytes` bytes at `data`, each at most `message` bytes.
template <class Post>
void post_piece(char* data, std::uint64_t bytes, std::size_t message, Post post) {
  for (std::uint64_t done = 0; done < bytes; done += message)
    post(data + done, static_cast<int>(std::min<std::uint64_t>(message, bytes - done)));
}

}  // namespace

void exchange(MPI_Comm comm, const void* items, const std::vector<std::uint64_t>& cuts,
              const std::vector<std::uint64_t>& receive_counts, std::size_t item_bytes,
              void* received, std::size_t max_message_bytes, unsigned threads) {
  const int ranks = size_of(comm), me = rank_of(comm);
  const std::size_t message = std::clamp<std::size_t>(max_message_bytes, 1, INT_MAX);
  const char* source = static_cast<const char*>(items);
  char* target = static_cast<char*>(received);
  std::vector<MPI_Request> requests;
  std::uint64_t received_before = 0;
  for (int peer = 0; peer < ranks; ++peer) {
    const std::uint64_t bytes = receive_counts[peer] * item_bytes;
    char* into = target + received_before;
    received_before += bytes;
    if (peer == me) continue;
    post_piece(into, bytes, message, [&](char* at, int length) {
      requests.emplace_back();
      MPI_Irecv(at, length, MPI_BYTE, peer, exchange_tag, comm, &requests.back());
    });
  }
  for (int peer = 0; peer < ranks; ++peer) {
    const std::uint64_t bytes = (cuts[peer + 1] - cuts[peer]) * item_bytes;
    char* from = const_cast<char*>(source) + cuts[peer] * item_bytes;
    if (peer == me) {
      std::uint64_t offset = 0;
      for (int earlier = 0; earlier < me; ++earlier) offset += receive_counts[earlier] * item_bytes;
      parallel_copy(target + offset, from, bytes, threads);
      continue;
    }
    post_piece(from, bytes, message, [&](char* at, int length) {
      requests.emplace_back();
      MPI_Isend(at, length, MPI_BYTE, peer, exchange_tag, comm, &requests.back());
    });
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

}  // namespace clsort::mpi
