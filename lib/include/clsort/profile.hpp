// Per-device tuning profiles: their JSON form, loading with checks, and where they are found.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "clsort/opencl.hpp"
#include "clsort/params.hpp"
#include "clsort/types.hpp"

namespace clsort {

/// The profile format version this library reads and writes.
inline constexpr int profile_schema_version = 1;

/// The device a profile was tuned on, as its OpenCL runtime reports it.
struct DeviceIdentity {
  std::string platform;
  std::string vendor;
  std::string name;
  std::string driver_version;
  std::string opencl_version;
  std::string type;  ///< "GPU", "CPU", "ACCELERATOR" or "OTHER"
  std::uint64_t compute_units = 0;
  std::uint64_t max_work_group_size = 0;
  std::uint64_t local_memory_bytes = 0;
  std::uint64_t global_memory_bytes = 0;

  bool operator==(const DeviceIdentity& other) const;
  bool operator!=(const DeviceIdentity& other) const { return !(*this == other); }

 private:
  auto fields() const {
    return std::tie(platform, vendor, name, driver_version, opencl_version, type, compute_units,
                    max_work_group_size, local_memory_bytes, global_memory_bytes);
  }
};

inline bool DeviceIdentity::operator==(const DeviceIdentity& other) const {
  return fields() == other.fields();
}

DeviceIdentity identify(const cl::Device& device);

/// Whether a profile tuned on `tuned` was tuned on `device` itself: the same platform, vendor,
/// name and compute units (find_profile's exact match, which `clsort-tune --into` requires too).
bool same_device(const DeviceIdentity& tuned, const DeviceIdentity& device);

/// Sorts of keys `key_bits` wide with values of `value_bytes` (0: none), of n keys with
/// min_keys <= n <= max_keys; of one key type of that width where `key_type` is set (a float
/// class where floats and integers of a width run fastest with different parameters), else of
/// every type of that width.
struct ProblemClass {
  unsigned key_bits = 32;
  std::size_t value_bytes = 0;
  std::uint64_t min_keys = 0;
  std::uint64_t max_keys = std::numeric_limits<std::uint64_t>::max();
  std::optional<KeyType> key_type;

  bool contains(KeyType type, std::size_t values, std::uint64_t n) const {
    return clsort::key_bits(type) == key_bits && (!key_type || *key_type == type) &&
           values == value_bytes && n >= min_keys && n <= max_keys;
  }
};

/// The parameters chosen for one problem class, and what they and the default measured.
struct TunedClass {
  ProblemClass problem;
  Params params;
  double gkeys_per_s = 0;
  double default_gkeys_per_s = 0;
};

struct Profile {
  std::string tuner_version;
  std::string kernel_hash;  ///< kernel_templates_hash() of the library that was tuned
  DeviceIdentity device;
  nlohmann::json tuning = nlohmann::json::object();  ///< the tuner's settings
  std::vector<TunedClass> classes;
  nlohmann::json results = nlohmann::json::array();  ///< every measurement the tuner made

  /// The tuned parameters for a sort of this class, if the profile covers it: a class of the
  /// key's own type before one of its width.
  std::optional<Params> params_for(KeyType type, std::size_t value_bytes, std::uint64_t n) const;
};

/// A hash of the kernel templates built into this library: profiles tuned for other kernels are
/// stale and are not used.
std::string kernel_templates_hash();

/// JSON conversion; from_json throws clsort::Error naming a missing or malformed field.
void to_json(nlohmann::json& json, const Profile& profile);
void from_json(const nlohmann::json& json, Profile& profile);

/// Reads a profile and checks it: readable, valid JSON, this schema_version, every field, the
/// kernel hash. Throws clsort::Error ("profile: FILE: problem") otherwise.
Profile load_profile(const std::string& path);

/// Writes a profile atomically (a temporary file renamed into place); creates the folder. A
/// symbolic link gets the profile in the file it names; a device or FIFO is written into.
void save_profile(const Profile& profile, const std::string& path);

/// Where the tuner writes by default: $XDG_DATA_HOME/clsort/profiles, else
/// ~/.local/share/clsort/profiles.
std::string user_profile_folder();

/// The file name of a device's profile: its vendor and name, lower-case, [a-z0-9-] only.
std::string profile_file_name(const DeviceIdentity& device);

/// The folders searched, in order: each entry of $CLSORT_PROFILE_PATH (':'-separated), the user
/// folder, then the shipped profiles (left out when $CLSORT_SHIPPED_PROFILES is "off"):
/// share/clsort/profiles relative to the executable or shared library holding clsort (so a
/// moved prefix finds its own), the install prefix's, and the source tree's configs/.
std::vector<std::string> profile_folders();

/// The outcome of looking for a device's profile.
struct ProfileSearch {
  std::optional<Profile> profile;  ///< none: the built-in default
  std::string path;                ///< the file it came from
  std::string match;  ///< "given", "exact device", "same vendor and device type", or "none"
  std::vector<std::string> skipped;  ///< each profile passed over, "FILE: why"
};

/// Finds the profile for `device`: `explicit_path` if given, else $CLSORT_PROFILE if set (both
/// must load and suit the device, else clsort::Error; "none" means no profile); else the first
/// profile in profile_folders() for the exact device (platform, vendor, name and compute units),
/// else the first for the same vendor and device type, which for a CPU must have as many compute
/// units (a CPU profile's sets are sized by its cores). Corrupt, stale, other-schema or
/// unrunnable profiles found in the folders, and those of a CPU of the same vendor with other
/// compute units, are skipped and listed in `skipped`, never used.
ProfileSearch find_profile(const cl::Device& device,
                           const std::optional<std::string>& explicit_path = std::nullopt);

}  // namespace clsort
