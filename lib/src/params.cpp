// Parameter sets: range checks, device checks, the built-in default and JSON conversion.
#include "clsort/params.hpp"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "clsort/error.hpp"
#include "device_info.hpp"

namespace clsort {
namespace {

struct IntField {
  const char* name;
  int Params::*member;
  int min;
  int max;
};

constexpr std::array<IntField, 5> int_fields{{
    {"radix_bits", &Params::radix_bits, 1, 8},
    {"work_group_size", &Params::work_group_size, 1, 4096},
    {"elements_per_thread", &Params::elements_per_thread, 1, 65536},
    {"scan_work_group_size", &Params::scan_work_group_size, 1, 4096},
    {"scan_elements_per_thread", &Params::scan_elements_per_thread, 1, 65536},
}};

constexpr std::size_t digit_count(const Params& p) {
  return std::size_t{1} << p.radix_bits;
}

std::optional<Ranking> parse_ranking(std::string_view name) {
  if (name == "serial") return Ranking::serial;
  if (name == "bitmask") return Ranking::bitmask;
  return std::nullopt;
}

// Largest power of two not above `limit` (limit >= 1).
int floor_power_of_two(std::size_t limit) {
  int p = 1;
  while (static_cast<std::size_t>(p) * 2 <= limit && p < 4096) p *= 2;
  return p;
}

}  // namespace

std::string_view to_string(Ranking ranking) {
  return ranking == Ranking::serial ? "serial" : "bitmask";
}

void validate(const Params& params) {
  for (const auto& field : int_fields) {
    const int value = params.*field.member;
    if (value < field.min || value > field.max)
      throw Error("validate parameters", std::string(field.name) + " = " + std::to_string(value) +
                                             " is outside [" + std::to_string(field.min) + ", " +
                                             std::to_string(field.max) + "]");
  }
  // A scan tile of one entry would never reduce the number of tile sums.
  if (params.scan_work_group_size * params.scan_elements_per_thread < 2)
    throw Error("validate parameters",
                "scan_work_group_size * scan_elements_per_thread must be at least 2");
}

std::size_t local_memory_bytes(const Params& p, std::size_t offset_bytes) {
  const std::size_t scan = static_cast<std::size_t>(p.scan_work_group_size) * offset_bytes;
  if (p.ranking == Ranking::serial) return scan;
  const std::size_t mask_words = (static_cast<std::size_t>(p.work_group_size) + 31) / 32;
  const std::size_t scatter = digit_count(p) * (mask_words * 4 + offset_bytes);
  return std::max(scan, scatter);
}

void validate_for_device(const Params& params, const cl::Device& device) {
  validate(params);
  const detail::DeviceLimits limits = detail::query_limits(device);
  const auto check_work_group = [&](const char* field, int value) {
    if (static_cast<std::size_t>(value) > limits.max_work_group_size)
      throw Error("validate parameters", std::string(field) + " = " + std::to_string(value) +
                                             " exceeds CL_DEVICE_MAX_WORK_GROUP_SIZE = " +
                                             std::to_string(limits.max_work_group_size) + " of " +
                                             limits.name);
  };
  check_work_group("work_group_size", params.work_group_size);
  check_work_group("scan_work_group_size", params.scan_work_group_size);
  const std::size_t needed = local_memory_bytes(params, 8);
  if (needed > limits.local_memory_bytes)
    throw Error("validate parameters",
                "radix_bits = " + std::to_string(params.radix_bits) + " with work_group_size = " +
                    std::to_string(params.work_group_size) + " needs " + std::to_string(needed) +
                    " bytes of local memory; CL_DEVICE_LOCAL_MEM_SIZE = " +
                    std::to_string(limits.local_memory_bytes) + " on " + limits.name);
}

Params default_params(const cl::Device& device) {
  const detail::DeviceLimits limits = detail::query_limits(device);
  Params p;
  if (limits.is_cpu) {
    // A CPU runs a work-group's items one after another: long serial blocks per work-item behave
    // like a cache-friendly host radix sort and need no local memory or barriers.
    p.ranking = Ranking::serial;
    p.work_group_size = 1;
    p.elements_per_thread = 4096;
    p.scan_work_group_size = 16;
    p.scan_elements_per_thread = 256;
  }
  p.work_group_size = std::min(p.work_group_size, floor_power_of_two(limits.max_work_group_size));
  p.scan_work_group_size =
      std::min(p.scan_work_group_size, floor_power_of_two(limits.max_work_group_size));
  while (p.radix_bits > 1 && local_memory_bytes(p, 8) > limits.local_memory_bytes) --p.radix_bits;
  while (p.work_group_size > 1 && local_memory_bytes(p, 8) > limits.local_memory_bytes) {
    p.work_group_size /= 2;
    p.scan_work_group_size = std::min(p.scan_work_group_size, p.work_group_size);
  }
  return p;
}

void to_json(nlohmann::json& json, const Params& params) {
  json = nlohmann::json::object();
  for (const auto& field : int_fields) json[field.name] = params.*field.member;
  json["ranking"] = std::string(to_string(params.ranking));
}

void from_json(const nlohmann::json& json, Params& params) {
  const auto fail = [](const std::string& detail) { throw Error("read parameters", detail); };
  if (!json.is_object()) fail("expected a JSON object, got " + std::string(json.type_name()));
  Params parsed;
  for (const auto& field : int_fields) {
    const auto it = json.find(field.name);
    if (it == json.end()) fail(std::string("missing field '") + field.name + "'");
    if (!it->is_number_integer())
      fail(std::string("field '") + field.name + "' must be an integer, got " + it->dump());
    const auto value = it->get<std::int64_t>();
    if (value < field.min || value > field.max)
      fail(std::string("field '") + field.name + "' = " + std::to_string(value) + " is outside [" +
           std::to_string(field.min) + ", " + std::to_string(field.max) + "]");
    parsed.*field.member = static_cast<int>(value);
  }
  const auto ranking = json.find("ranking");
  if (ranking == json.end()) fail("missing field 'ranking'");
  const auto parsed_ranking =
      ranking->is_string() ? parse_ranking(ranking->get<std::string>()) : std::nullopt;
  if (!parsed_ranking)
    fail("field 'ranking' must be \"serial\" or \"bitmask\", got " + ranking->dump());
  parsed.ranking = *parsed_ranking;
  for (const auto& [key, value] : json.items()) {
    const bool known =
        key == "ranking" || std::any_of(int_fields.begin(), int_fields.end(),
                                        [&](const IntField& f) { return key == f.name; });
    if (!known) fail("unknown field '" + key + "'");
  }
  params = parsed;
}

}  // namespace clsort
