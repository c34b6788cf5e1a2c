// Program cache: in-memory map plus on-disk binaries written atomically.
#include "program_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "cl_check.hpp"
#include "device_info.hpp"
#include "ptx_occupancy.hpp"

namespace clsort::detail {
namespace {

namespace fs = std::filesystem;
using Binary = std::vector<unsigned char>;

std::uint64_t fnv1a(std::string_view text, std::uint64_t seed) {
  std::uint64_t hash = seed;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// 128 bits from two differently seeded FNV-1a hashes: collisions are out of practical reach.
std::string content_hash(std::string_view text) {
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx",
                static_cast<unsigned long long>(fnv1a(text, 0xcbf29ce484222325ULL)),
                static_cast<unsigned long long>(fnv1a(text, 0x84222325cbf29ce4ULL)));
  return hex;
}

std::optional<Binary> read_binary(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  Binary data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.empty()) return std::nullopt;
  return data;
}

// The cache only speeds things up, so failing to write it is not an error.
void write_binary_atomically(const fs::path& path, const Binary& data) {
  std::error_code ignored;
  fs::create_directories(path.parent_path(), ignored);
  const fs::path temporary = path.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data.data()),
              static_cast<std::streamsize>(data.size()));
    if (!out) {
      fs::remove(temporary, ignored);
      return;
    }
  }
  fs::rename(temporary, path, ignored);
  if (ignored) fs::remove(temporary, ignored);
}

std::string build_log(const cl::Program& program, const cl::Device& device) {
  std::string log;
  program.getBuildInfo(device, CL_PROGRAM_BUILD_LOG, &log);
  return log;
}

std::optional<cl::Program> build_from_binary(const cl::Context& context, const cl::Device& device,
                                             const Binary& binary, const std::string& options) {
  cl_int status = CL_SUCCESS;
  std::vector<cl_int> binary_status;
  cl::Program program(context, {device}, cl::Program::Binaries{binary}, &binary_status, &status);
  if (status != CL_SUCCESS || binary_status.empty() || binary_status[0] != CL_SUCCESS)
    return std::nullopt;
  if (program.build({device}, options.c_str()) != CL_SUCCESS) return std::nullopt;
  return program;
}

cl::Program build_from_source(const cl::Context& context, const cl::Device& device,
                              const std::string& source, const std::string& options,
                              const std::string& label) {
  cl_int status = CL_SUCCESS;
  cl::Program program(context, source, false, &status);
  check(status, "create program", label);
  status = program.build({device}, options.c_str());
  if (status != CL_SUCCESS)
    throw Error("build program", label + ":\n" + build_log(program, device), status);
  return program;
}

std::optional<Binary> program_binary(const cl::Program& program) {
  std::vector<Binary> binaries;
  if (program.getInfo(CL_PROGRAM_BINARIES, &binaries) != CL_SUCCESS || binaries.size() != 1 ||
      binaries[0].empty())
    return std::nullopt;
  return binaries[0];
}

class ProgramCache {
 public:
  cl::Program get(const cl::Context& context, const cl::Device& device, const std::string& source,
                  const std::string& options, const std::string& label, int groups_per_sm) {
    const std::string occupancy = groups_per_sm > 0
                                      ? '\0' + ("minnctapersm " + std::to_string(groups_per_sm))
                                      : std::string();
    const std::string key =
        content_hash(device_fingerprint(device) + '\0' + options + occupancy + '\0' + source);
    std::lock_guard lock(mutex_);
    remember(context());
    const auto memory_key = std::make_tuple(context(), device(), key);
    if (const auto it = programs_.find(memory_key); it != programs_.end()) {
      ++statistics_.reused;
      return it->second;
    }
    cl::Program program =
        load_or_build(context, device, source, options, label, groups_per_sm, key);
    programs_.emplace(memory_key, program);
    return program;
  }

  BuildStatistics statistics() {
    std::lock_guard lock(mutex_);
    return statistics_;
  }

 private:
  cl::Program load_or_build(const cl::Context& context, const cl::Device& device,
                            const std::string& source, const std::string& options,
                            const std::string& label, int groups_per_sm, const std::string& key) {
    const std::string folder = uses_disk_cache() ? disk_cache_folder() : std::string();
    const fs::path path = folder.empty() ? fs::path() : fs::path(folder) / (key + ".bin");
    if (!folder.empty()) {
      if (const auto binary = read_binary(path)) {
        if (auto program = build_from_binary(context, device, *binary, options)) {
          ++statistics_.loaded_from_disk;
          return *program;
        }
      }
    }
    cl::Program program = build_from_source(context, device, source, options, label);
    if (groups_per_sm > 0)
      program = with_occupancy(context, device, program, options, label, groups_per_sm);
    ++statistics_.compiled;
    if (!folder.empty())
      if (const auto binary = program_binary(program)) write_binary_atomically(path, *binary);
    return program;
  }

  // `program` built again from its PTX with the occupancy directive, where it is PTX.
  static cl::Program with_occupancy(const cl::Context& context, const cl::Device& device,
                                    const cl::Program& program, const std::string& options,
                                    const std::string& label, int groups_per_sm) {
    const auto binary = program_binary(program);
    const auto patched = binary ? with_groups_per_sm(*binary, groups_per_sm) : std::nullopt;
    if (!patched) return program;
    if (auto rebuilt = build_from_binary(context, device, *patched, options)) return *rebuilt;
    throw Error("build program", label + ": the driver refused its PTX with .minnctapersm " +
                                     std::to_string(groups_per_sm));
  }

  // Marks `context` as the most recently used; past max_contexts, the programs of the least
  // recently used one are dropped. A cached program holds its context alive: without a bound,
  // a process that makes contexts one after another (the tuner after every failed candidate)
  // kept all of them, until NVIDIA's driver could create no more (H100, about 100 contexts).
  // A dropped context's programs come back from the disk cache if it is used again.
  void remember(cl_context context) {
    const auto it = std::find(recent_contexts_.begin(), recent_contexts_.end(), context);
    if (it != recent_contexts_.end()) recent_contexts_.erase(it);
    recent_contexts_.push_back(context);
    if (recent_contexts_.size() <= max_contexts) return;
    const cl_context oldest = recent_contexts_.front();
    recent_contexts_.pop_front();
    for (auto it = programs_.begin(); it != programs_.end();)
      it = std::get<0>(it->first) == oldest ? programs_.erase(it) : std::next(it);
  }

  static constexpr std::size_t max_contexts = 4;
  std::mutex mutex_;
  // Holding the programs keeps their contexts alive, so a context handle is never reused while
  // it has entries here.
  std::map<std::tuple<cl_context, cl_device_id, std::string>, cl::Program> programs_;
  std::deque<cl_context> recent_contexts_;  // of the latest lookups, least recent first
  BuildStatistics statistics_;
};

ProgramCache& cache() {
  static ProgramCache instance;
  return instance;
}

}  // namespace

std::string disk_cache_folder() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return (fs::path(xdg) / "clsort").string();
  if (const char* home = std::getenv("HOME"); home && *home)
    return (fs::path(home) / ".cache" / "clsort").string();
  return {};
}

bool uses_disk_cache() {
  const char* value = std::getenv("CLSORT_PROGRAM_CACHE");
  if (!value || !*value || std::string_view(value) == "disk") return true;
  if (std::string_view(value) == "memory") return false;
  throw Error("read CLSORT_PROGRAM_CACHE", "'" + std::string(value) + "' is not disk or memory");
}

cl::Program build_program(const cl::Context& context, const cl::Device& device,
                          const std::string& source, const std::string& options,
                          const std::string& label, int groups_per_sm) {
  return cache().get(context, device, source, options, label, groups_per_sm);
}

BuildStatistics program_statistics() {
  return cache().statistics();
}

}  // namespace clsort::detail
