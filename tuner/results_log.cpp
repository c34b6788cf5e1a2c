// Results file: JSON lines keyed by class, parameters and size.
#include "results_log.hpp"

#include <clsort/error.hpp>

namespace clsort::tune {

using nlohmann::json;

ResultsLog::ResultsLog(const std::string& path) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    try {
      const json j = json::parse(line);
      Measurement m;
      m.status = j.at("status").get<std::string>();
      m.detail = j.value("detail", "");
      m.milliseconds = j.at("milliseconds").get<double>();
      m.n = j.at("n").get<std::uint64_t>();
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

void ResultsLog::add(const std::string& class_id, const Params& params, const Measurement& m) {
  const json j = {{"class", class_id},
                  {"n", m.n},
                  {"params", params},
                  {"status", m.status},
                  {"detail", m.detail},
                  {"milliseconds", m.milliseconds},
                  {"gkeys_per_s", m.gkeys_per_s()}};
  out_ << j.dump() << "\n" << std::flush;
  all_.push_back(j);
  known_[key(class_id, params, m.n)] = m;
}

}  // namespace clsort::tune
