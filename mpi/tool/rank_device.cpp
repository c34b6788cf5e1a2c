// Which OpenCL device a rank sorts on.
#include "rank_device.hpp"

#include <cstdlib>
#include <vector>

#include <clsort/error.hpp>

namespace clsort::mpi {

namespace {

// This rank's number among the ranks sharing its node.
int rank_within_node(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int rank = 0;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_free(&node);
  return rank;
}

}  // namespace

DeviceEntry device_for_rank(MPI_Comm comm, const std::string& spec) {
  const int local_rank = rank_within_node(comm);  // collective: before anything may throw
  if (!spec.empty()) return find_device(spec);
  if (const char* named = std::getenv("CLSORT_DEVICE"); named && *named) return find_device(named);
  std::vector<DeviceEntry> devices = list_devices();
  std::vector<DeviceEntry> gpus, cpus;
  for (const DeviceEntry& entry : devices)
    (entry.description.is_gpu ? gpus : cpus).push_back(entry);
  if (!gpus.empty()) return gpus[local_rank % gpus.size()];
  for (const DeviceEntry& entry : cpus)
    if (entry.description.is_cpu) return entry;
  if (devices.empty()) throw Error("device", "no OpenCL device found");
  return devices.front();
}

}  // namespace clsort::mpi
