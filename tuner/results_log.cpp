// Results file: JSON lines keyed by class, parameters and size.
#include "results_log.hpp"

#include <utility>

#include <clsort/error.hpp>

namespace clsort::tune {

using nlohmann::json;

ResultsLog::ResultsLog(const std::string& path, std::string kernel_hash)
    : kernel_hash_(std::move(kernel_hash)) {
  std::ifstream in(path);
  for (std::string text; std::getline(in, text);) {
    try {
      const json j = json::parse(text);
      if (j.value("kernels", "") != kernel_hash_) {
        ++stale_;
        continue;
      }
      Measurement m;
      m.status = j.at("status").get<std::string>();
      m.detail = j.value("detail", "");
      m.milliseconds = j.at("milliseconds").get<double>();
      // A double would convert to an integer with undefined behaviour: a mangled line is skipped.
      if (!j.at("n").is_number_unsigned()) continue;
      m.n = j.at("n").get<std::uint64_t>();
      if (!j.contains("rematch"))
        known_[key(j.at("class").get<std::string>(), j.at("params").get<Params>(), m.n)] = m;
      all_.push_back(j);
      ++resumed_;
    } catch (const std::exception&) {
      // a line cut short by an interruption: measured again
    }
  }
  out_.open(path, std::ios::app);
  if (!out_) throw Error("tune", "cannot write the results file " + path);
}

std::string ResultsLog::key(const std::string& class_id, const Params& params, std::uint64_t n) {
  return class_id + "|" + std::to_string(n) + "|" + json(params).dump();
}

std::optional<Measurement> ResultsLog::find(const std::string& class_id, const Params& params,
                                            std::uint64_t n) const {
  const auto it = known_.find(key(class_id, params, n));
  if (it == known_.end()) return std::nullopt;
  return it->second;
}

json ResultsLog::line(const std::string& class_id, const Params& params,
                      const Measurement& m) const {
  return {{"kernels", kernel_hash_},
          {"class", class_id},
          {"n", m.n},
          {"params", params},
          {"status", m.status},
          {"detail", m.detail},
          {"milliseconds", m.milliseconds},
          {"gkeys_per_s", m.gkeys_per_s()}};
}

void ResultsLog::append(const json& j) {
  out_ << j.dump() << "\n" << std::flush;
  all_.push_back(j);
}

void ResultsLog::add(const std::string& class_id, const Params& params, const Measurement& m) {
  append(line(class_id, params, m));
  known_[key(class_id, params, m.n)] = m;
}

void ResultsLog::add_rematch(const std::string& class_id, const Params& params,
                             const Measurement& m, int round) {
  json j = line(class_id, params, m);
  j["rematch"] = round;
  append(j);
}

}  // namespace clsort::tune
