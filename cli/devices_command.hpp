// `clsort devices`: lists OpenCL platforms and devices in `clinfo -l` style.
#pragma once

#include <ostream>

namespace clsort::cli {

/// Prints every platform and device, numbered as device specifications use them, and marks the
/// device a plain `clsort sort` would use (CLSORT_DEVICE, else the default). Returns the exit code.
int run_devices(std::ostream& out);

}  // namespace clsort::cli
