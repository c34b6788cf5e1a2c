// Which OpenCL device a rank sorts on.
#pragma once

#include <string>

#include <mpi.h>

#include <clsort/device.hpp>

namespace clsort::mpi {

/// `spec` (--device), else $CLSORT_DEVICE, as clsort takes them; else the GPU of this rank's
/// node numbered (rank within the node) modulo (the node's GPUs); else its first CPU device,
/// else its first device. clsort::Error if there is none or the specification matches none.
DeviceEntry device_for_rank(MPI_Comm comm, const std::string& spec);

}  // namespace clsort::mpi
