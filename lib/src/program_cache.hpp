// Builds OpenCL programs once: cached in memory per context/device and on disk across runs.
#pragma once

#include <string>

#include "clsort/opencl.hpp"
#include "clsort/sorter.hpp"

namespace clsort::detail {

/// Returns a built program for `source` on `device`. Looks in memory (per context and device),
/// then in the on-disk cache ($XDG_CACHE_HOME/clsort, else ~/.cache/clsort; see
/// uses_disk_cache) keyed by device, driver version, source and options; compiles and stores it
/// otherwise. A cached binary the driver rejects is rebuilt from source and replaced. `label` names
/// the program in errors. Thread-safe.
cl::Program build_program(const cl::Context& context, const cl::Device& device,
                          const std::string& source, const std::string& options,
                          const std::string& label);

BuildStatistics program_statistics();

/// CLSORT_PROGRAM_CACHE: `auto` (unset) keeps binaries on disk except on drivers that cache
/// their builds themselves (PoCL), `disk` always, `memory` never.
enum class ProgramCacheMode { automatic, disk, memory };

/// The mode CLSORT_PROGRAM_CACHE asks for; throws Error naming it for any other value.
ProgramCacheMode program_cache_mode();

/// Whether programs built for `device` are kept in and loaded from the on-disk cache.
bool uses_disk_cache(const cl::Device& device);

/// Folder of the on-disk cache, or "" when neither XDG_CACHE_HOME nor HOME is set.
std::string disk_cache_folder();

}  // namespace clsort::detail
