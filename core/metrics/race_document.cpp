#include "metrics/race_document.hpp"

#include <map>
#include <string>

namespace rl {

Json raceDocument(const RaceSpec& s, const std::vector<RaceVariantResult>& results) {
  Json doc;
  doc["rounds"] = s.rounds;
  doc["capacity"] = s.capacity;
  doc["concurrency"] = s.concurrency;
  doc["algorithm"] = algorithmName(s.algorithm);
  doc["think_ms"] = static_cast<std::int64_t>(s.thinkTime.count() / 1000);
  Json variants = Json::array();
  for (const RaceVariantResult& r : results) {
    Json v;
    v["name"] = raceVariantName(r.variant);
    v["admitted_min"] = r.admittedMin;
    v["admitted_max"] = r.admittedMax;
    v["admitted_mean"] = r.admittedMean;
    v["over_limit_rounds"] = r.overLimitRounds;
    v["retries"] = r.retries;
    v["errors"] = r.errors;
    std::map<std::int64_t, std::int64_t> hist;
    for (std::int64_t a : r.admitted) ++hist[a];
    Json dist;
    for (const auto& [admitted, rounds] : hist) dist[std::to_string(admitted)] = rounds;
    v["distribution"] = std::move(dist);
    variants.push_back(std::move(v));
  }
  doc["variants"] = std::move(variants);
  return doc;
}

}  // namespace rl
