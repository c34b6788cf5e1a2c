// Profiles: JSON conversion, checked loading, atomic saving, and the search for a device's one.
#include "clsort/profile.hpp"

#include <dlfcn.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <tuple>
#include <type_traits>

#include "clsort/error.hpp"
#include "kernel_sources.hpp"

namespace clsort {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// An Error's text without its "profile: " (or other operation) prefix, for nesting.
std::string detail_of(const Error& e) {
  const std::string text = e.what(), prefix = e.operation() + ": ";
  return text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : text;
}

const json& required(const json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key))
    throw Error("profile", "missing field '" + std::string(key) + "' in " + where);
  return object.at(key);
}

// nlohmann::json converts any number to any arithmetic type, and a double outside an integer's
// range is undefined behaviour on conversion: integer fields take JSON integers in range only.
template <class T>
bool fits(const json& value) {
  if constexpr (std::is_integral_v<T>) {
    if (value.is_number_unsigned())
      return value.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<T>::max());
    if (!value.is_number_integer()) return false;
    const auto signed_value = value.get<std::int64_t>();
    return std::is_signed_v<T> && signed_value >= std::int64_t(std::numeric_limits<T>::min()) &&
           signed_value <= std::int64_t(std::numeric_limits<T>::max());
  } else if constexpr (std::is_floating_point_v<T>) {
    return value.is_number();
  } else {
    return value.is_string();
  }
}

template <class T>
T field(const json& object, const char* key, const std::string& where) {
  const json& value = required(object, key, where);
  if (!fits<T>(value))
    throw Error("profile", "field '" + std::string(key) + "' in " + where +
                               " has the wrong type or is out of range: " +
                               (value.is_number() ? value.dump() : value.type_name()));
  return value.get<T>();
}

std::string device_type_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "ACCELERATOR";
  return "OTHER";
}

json identity_json(const DeviceIdentity& d) {
  return {{"platform", d.platform},
          {"vendor", d.vendor},
          {"name", d.name},
          {"driver_version", d.driver_version},
          {"opencl_version", d.opencl_version},
          {"type", d.type},
          {"compute_units", d.compute_units},
          {"max_work_group_size", d.max_work_group_size},
          {"local_memory_bytes", d.local_memory_bytes},
          {"global_memory_bytes", d.global_memory_bytes}};
}

DeviceIdentity identity_from(const json& j) {
  const std::string where = "'device'";
  DeviceIdentity d;
  d.platform = field<std::string>(j, "platform", where);
  d.vendor = field<std::string>(j, "vendor", where);
  d.name = field<std::string>(j, "name", where);
  d.driver_version = field<std::string>(j, "driver_version", where);
  d.opencl_version = field<std::string>(j, "opencl_version", where);
  d.type = field<std::string>(j, "type", where);
  d.compute_units = field<std::uint64_t>(j, "compute_units", where);
  d.max_work_group_size = field<std::uint64_t>(j, "max_work_group_size", where);
  d.local_memory_bytes = field<std::uint64_t>(j, "local_memory_bytes", where);
  d.global_memory_bytes = field<std::uint64_t>(j, "global_memory_bytes", where);
  return d;
}

// A class's optional "key_type": a key type's short name, of the class's width.
KeyType key_type_field(const json& j, unsigned key_bits, const std::string& where) {
  const std::string name = field<std::string>(j, "key_type", where);
  const std::optional<KeyType> type = parse_key_type(name);
  if (!type) throw Error("profile", "'key_type' in " + where + ": '" + name + "' is no key type");
  if (clsort::key_bits(*type) != key_bits)
    throw Error("profile", "'key_type' in " + where + ": " + name + " keys are not " +
                               std::to_string(key_bits) + " bits wide");
  return *type;
}

TunedClass tuned_class_from(const json& j, std::size_t index) {
  const std::string where = "classes[" + std::to_string(index) + "]";
  TunedClass c;
  c.problem.key_bits = field<unsigned>(j, "key_bits", where);
  c.problem.value_bytes = field<std::size_t>(j, "value_bytes", where);
  c.problem.min_keys = field<std::uint64_t>(j, "min_keys", where);
  c.problem.max_keys = field<std::uint64_t>(j, "max_keys", where);
  if (j.contains("key_type")) c.problem.key_type = key_type_field(j, c.problem.key_bits, where);
  try {
    c.params = required(j, "params", where).get<Params>();
  } catch (const Error& e) {
    throw Error("profile", where + ".params: " + detail_of(e));
  }
  c.gkeys_per_s = field<double>(j, "gkeys_per_s", where);
  c.default_gkeys_per_s = field<double>(j, "default_gkeys_per_s", where);
  return c;
}

// Throws unless every class's parameters run on the device.
void check_runnable(const Profile& profile, const cl::Device& device) {
  for (const TunedClass& c : profile.classes) {
    try {
      validate_for_device(c.params, device, c.problem.key_bits / 8, c.problem.value_bytes);
    } catch (const Error& e) {
      throw Error("profile", "the " + std::to_string(c.problem.key_bits) + "-bit class's " +
                                 "parameters do not run on this device: " + detail_of(e));
    }
  }
}

std::string lower_case_slug(const std::string& text) {
  std::string slug;
  for (char c : text) {
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool keep = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9');
    if (keep)
      slug += lower;
    else if (!slug.empty() && slug.back() != '-')
      slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug;
}

std::vector<std::string> profiles_in(const std::string& folder) {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error))
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

DeviceIdentity identify(const cl::Device& device) {
  DeviceIdentity d;
  d.platform = cl::Platform(device.getInfo<CL_DEVICE_PLATFORM>()).getInfo<CL_PLATFORM_NAME>();
  d.vendor = device.getInfo<CL_DEVICE_VENDOR>();
  d.name = device.getInfo<CL_DEVICE_NAME>();
  d.driver_version = device.getInfo<CL_DRIVER_VERSION>();
  d.opencl_version = device.getInfo<CL_DEVICE_VERSION>();
  d.type = device_type_name(device.getInfo<CL_DEVICE_TYPE>());
  d.compute_units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  d.max_work_group_size = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  d.local_memory_bytes = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  d.global_memory_bytes = device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
  return d;
}

std::optional<Params> Profile::params_for(KeyType type, std::size_t value_bytes,
                                          std::uint64_t n) const {
  const TunedClass* width_class = nullptr;
  for (const TunedClass& c : classes) {
    if (!c.problem.contains(type, value_bytes, n)) continue;
    if (c.problem.key_type) return c.params;
    if (!width_class) width_class = &c;
  }
  if (width_class) return width_class->params;
  return std::nullopt;
}

std::string kernel_templates_hash() {
  std::uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a over names and contents, in name order
  const auto mix = [&](std::string_view bytes) {
    for (unsigned char c : bytes) hash = (hash ^ c) * 0x100000001b3ull;
    hash = (hash ^ 0xff) * 0x100000001b3ull;
  };
  for (const auto& [name, text] : detail::embedded_kernel_templates()) {
    mix(name);
    mix(text);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

void to_json(json& j, const Profile& profile) {
  json classes = json::array();
  for (const TunedClass& c : profile.classes) {
    json tuned = {{"key_bits", c.problem.key_bits},
                  {"value_bytes", c.problem.value_bytes},
                  {"min_keys", c.problem.min_keys},
                  {"max_keys", c.problem.max_keys},
                  {"params", c.params},
                  {"gkeys_per_s", c.gkeys_per_s},
                  {"default_gkeys_per_s", c.default_gkeys_per_s}};
    if (c.problem.key_type) tuned["key_type"] = std::string(to_string(*c.problem.key_type));
    classes.push_back(std::move(tuned));
  }
  j = {{"schema_version", profile_schema_version},
       {"tuner_version", profile.tuner_version},
       {"kernel_hash", profile.kernel_hash},
       {"device", identity_json(profile.device)},
       {"tuning", profile.tuning},
       {"classes", classes},
       {"results", profile.results}};
}

void from_json(const json& j, Profile& profile) {
  const std::string where = "the profile";
  const int schema = field<int>(j, "schema_version", where);
  if (schema != profile_schema_version)
    throw Error("profile", "schema_version " + std::to_string(schema) +
                               "; this library reads version " +
                               std::to_string(profile_schema_version));
  profile.tuner_version = field<std::string>(j, "tuner_version", where);
  profile.kernel_hash = field<std::string>(j, "kernel_hash", where);
  profile.device = identity_from(required(j, "device", where));
  profile.tuning = required(j, "tuning", where);
  const json& classes = required(j, "classes", where);
  if (!classes.is_array()) throw Error("profile", "'classes' must be an array");
  profile.classes.clear();
  for (std::size_t i = 0; i < classes.size(); ++i)
    profile.classes.push_back(tuned_class_from(classes[i], i));
  profile.results = required(j, "results", where);
}

Profile load_profile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("profile", path + ": cannot open");
  std::stringstream text;
  text << in.rdbuf();
  json j;
  try {
    j = json::parse(text.str());
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number overflow
    throw Error("profile", path + ": not valid JSON: " + e.what());
  }
  Profile profile;
  try {
    profile = j.get<Profile>();
  } catch (const Error& e) {
    throw Error("profile", path + ": " + detail_of(e));
  } catch (const json::exception& e) {
    throw Error("profile", path + ": " + e.what());
  }
  if (profile.kernel_hash != kernel_templates_hash())
    throw Error("profile", path + ": tuned for other kernels (hash " + profile.kernel_hash +
                               ", this library's is " + kernel_templates_hash() +
                               "); run clsort-tune again");
  return profile;
}

namespace {

// A link is followed, so that the file it names gets the profile and the link stays.
fs::path followed(const std::string& path) {
  std::error_code error;
  if (!fs::is_symlink(path, error)) return path;
  const fs::path target = fs::weakly_canonical(path, error);
  if (error) throw Error("profile", path + ": cannot follow the link: " + error.message());
  return target;
}

void write_text(const fs::path& file, const std::string& text, const std::string& path) {
  std::ofstream out(file);
  out << text;
  out.flush();
  if (!out) throw Error("profile", path + ": cannot write");
}

}  // namespace

void save_profile(const Profile& profile, const std::string& path) {
  const std::string text = json(profile).dump(2) + "\n";
  const fs::path target = followed(path);
  std::error_code error;
  const fs::file_status existing = fs::status(target, error);
  // A device or FIFO (/dev/stdout, a pipe) is written into: a rename would replace it.
  if (fs::exists(existing) && !fs::is_regular_file(existing) && !fs::is_directory(existing))
    return write_text(target, text, path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  const std::string temporary = target.string() + ".tmp-" + std::to_string(::getpid());
  write_text(temporary, text, path);
  fs::rename(temporary, target, error);
  if (error) {
    fs::remove(temporary);
    throw Error("profile", path + ": cannot move into place: " + error.message());
  }
}

std::string user_profile_folder() {
  const char* data = std::getenv("XDG_DATA_HOME");
  if (data && *data) return (fs::path(data) / "clsort" / "profiles").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home ? home : ".") / ".local" / "share" / "clsort" / "profiles").string();
}

std::string profile_file_name(const DeviceIdentity& device) {
  return lower_case_slug(device.vendor + " " + device.name) + ".json";
}

namespace {

// The folder of the executable or shared library this code is part of (empty if unknown).
fs::path own_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&profile_folders), &info) == 0 || !info.dli_fname) return {};
  std::error_code error;
  const fs::path file = fs::canonical(info.dli_fname, error);
  return error ? fs::path{} : file.parent_path();
}

}  // namespace

std::vector<std::string> profile_folders() {
  std::vector<std::string> folders;
  if (const char* path = std::getenv("CLSORT_PROFILE_PATH")) {
    std::stringstream entries(path);
    for (std::string folder; std::getline(entries, folder, ':');)
      if (!folder.empty()) folders.push_back(folder);
  }
  folders.push_back(user_profile_folder());
  const char* shipped = std::getenv("CLSORT_SHIPPED_PROFILES");
  if (shipped && std::string_view(shipped) == "off") return folders;
  if (const fs::path here = own_folder(); !here.empty()) {
    folders.push_back((here / CLSORT_PROFILES_FROM_BIN).lexically_normal().string());
    folders.push_back((here / CLSORT_PROFILES_FROM_LIB).lexically_normal().string());
  }
  folders.push_back(CLSORT_INSTALLED_PROFILES);
  folders.push_back(CLSORT_SOURCE_PROFILES);
  return folders;
}

bool same_device(const DeviceIdentity& tuned, const DeviceIdentity& device) {
  return std::tie(tuned.platform, tuned.vendor, tuned.name, tuned.compute_units) ==
         std::tie(device.platform, device.vendor, device.name, device.compute_units);
}

namespace {

// How a profile tuned on `tuned` suits `device`.
enum class ProfileFit {
  exact,        // the same device: platform, vendor, name and compute units
  similar,      // the same vendor and device type
  other_cores,  // a CPU of the same vendor with another number of cores
  none,
};

// A CPU profile's sets size their blocks to spread a sort over its cores, so it suits only a CPU
// with as many: the GPU machine's 16-core Xeon profile sorted 2^14-2^16 keys 1.1x-2.6x slower than
// the built-in defaults on a 2-core Xeon. A GPU's sets follow its architecture, so a GPU profile
// suits others of its vendor.
ProfileFit fit_of(const DeviceIdentity& tuned, const DeviceIdentity& device) {
  const bool same_kind = tuned.vendor == device.vendor && tuned.type == device.type;
  const bool same_units = tuned.compute_units == device.compute_units;
  if (device.type == "CPU" && !same_units)
    return same_kind ? ProfileFit::other_cores : ProfileFit::none;
  if (same_device(tuned, device)) return ProfileFit::exact;
  return same_kind ? ProfileFit::similar : ProfileFit::none;
}

}  // namespace

ProfileSearch find_profile(const cl::Device& device,
                           const std::optional<std::string>& explicit_path) {
  ProfileSearch search;
  const char* from_environment = std::getenv("CLSORT_PROFILE");
  const std::optional<std::string> given = explicit_path ? explicit_path
                                           : from_environment && *from_environment
                                               ? std::optional<std::string>(from_environment)
                                               : std::nullopt;
  if (given == "none") {  // profiles switched off: the built-in defaults
    search.match = "none";
    return search;
  }
  if (given) {
    search.profile = load_profile(*given);
    try {
      check_runnable(*search.profile, device);
    } catch (const Error& e) {
      throw Error("profile", *given + ": " + detail_of(e));
    }
    search.path = *given;
    search.match = "given";
    return search;
  }
  const DeviceIdentity self = identify(device);
  for (const std::string& folder : profile_folders()) {
    for (const std::string& path : profiles_in(folder)) {
      try {
        Profile profile = load_profile(path);
        const ProfileFit fit = fit_of(profile.device, self);
        if (fit == ProfileFit::other_cores) {
          search.skipped.push_back(
              path + ": tuned for " + std::to_string(profile.device.compute_units) +
              " compute units; this CPU has " + std::to_string(self.compute_units));
          continue;
        }
        const bool exact = fit == ProfileFit::exact;
        if (!exact && (fit != ProfileFit::similar || search.profile)) continue;
        try {
          check_runnable(profile, device);
        } catch (const Error& e) {
          throw Error("profile", path + ": " + detail_of(e));
        }
        search.profile = std::move(profile);
        search.path = path;
        search.match = exact ? "exact device" : "same vendor and device type";
        if (exact) return search;
      } catch (const Error& e) {
        search.skipped.push_back(detail_of(e));
      }
    }
  }
  if (!search.profile) search.match = "none";
  return search;
}

}  // namespace clsort
