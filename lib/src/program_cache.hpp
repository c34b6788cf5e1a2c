// Builds OpenCL programs once: cached in memory per context/device and on disk across runs.
#pragma once

#include <string>

#include "clsort/opencl.hpp"
#include "clsort/sorter.hpp"

namespace clsort::detail {

/// Returns a built program for `source` on `device`. Looks in memory (per context and device),
/// then in the on-disk cache ($XDG_CACHE_HOME/clsort, else ~/.cache/clsort; unless
/// uses_disk_cache() says no) keyed by device, driver version, source and options; compiles and
/// stores it otherwise. A cached binary the driver rejects is rebuilt from source and replaced.
/// `label` names the program in errors. With `groups_per_sm` > 0, an NVIDIA program is built
/// again from its PTX with that many work-groups' registers asked of each SM
/// (with_groups_per_sm); other devices' programs are built as they are. Thread-safe.
cl::Program build_program(const cl::Context& context, const cl::Device& device,
                          const std::string& source, const std::string& options,
                          const std::string& label, int groups_per_sm = 0);

BuildStatistics program_statistics();

/// Whether built programs are kept in and loaded from the on-disk cache: CLSORT_PROGRAM_CACHE
/// `disk` (or unset) keeps them, `memory` builds in each process (PoCL still keeps its own kernel
/// cache). Throws Error naming the variable for any other value.
bool uses_disk_cache();

/// Folder of the on-disk cache, or "" when neither XDG_CACHE_HOME nor HOME is set.
std::string disk_cache_folder();

}  // namespace clsort::detail
