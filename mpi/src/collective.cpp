// Collective failure: a step that throws on one rank makes every rank throw, naming that rank.
#include "collective.hpp"

#include <exception>
#include <vector>

#include <clsort/error.hpp>

namespace clsort::mpi {

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

int size_of(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return size;
}

namespace {

// The failing rank's reason, sent to every rank (length first, then the text).
std::string broadcast_reason(MPI_Comm comm, int root, const std::string& reason) {
  unsigned long long length = reason.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, root, comm);
  std::string text = rank_of(comm) == root ? reason : std::string(length, '\0');
  MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, root, comm);
  return text;
}

}  // namespace

void on_every_rank(MPI_Comm comm, const std::string& what, const std::function<void()>& step) {
  std::string reason;
  bool failed = false;
  try {
    step();
  } catch (const std::exception& e) {
    failed = true;
    reason = e.what();
    if (reason.empty()) reason = "unknown error";
  }
  const int ranks = size_of(comm);
  const int mine = failed ? rank_of(comm) : ranks;
  int first_failed = ranks;
  MPI_Allreduce(&mine, &first_failed, 1, MPI_INT, MPI_MIN, comm);
  if (first_failed == ranks) return;
  const std::string text = broadcast_reason(comm, first_failed, reason.substr(0, 4096));
  throw Error("mpi " + what, "rank " + std::to_string(first_failed) + ": " + text);
}

}  // namespace clsort::mpi
