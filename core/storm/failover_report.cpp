#include "storm/failover_report.hpp"

#include <cmath>
#include <cstdio>

namespace rl {

namespace {
double msOf(Micros t) { return std::round(static_cast<double>(t.count())) / 1000.0; }
std::string msText(Micros t) { return std::to_string(t.count() / 1000) + " ms"; }
}  // namespace

Micros firstServedAfter(const std::vector<DecisionRecord>& records, Micros after) {
  std::int64_t first = -1;
  for (const DecisionRecord& d : records) {
    if (!d.error() && d.atUs() > after.count() && (first < 0 || d.answeredUs() < first)) first = d.answeredUs();
  }
  return first >= 0 ? Micros{first - after.count()} : Micros{-1};
}

Json failoverJson(const FailoverReport& r) {
  Json f = Json::object();
  f["kind"] = r.kind;
  f["master"] = r.master;
  f["promoted"] = r.promoted;
  if (r.kind == "scripted") {
    f["break_ms"] = msOf(r.breakAt);
    f["kill_ms"] = msOf(r.killAt);
    f["promote_ms"] = msOf(r.promoteAt);
    if (r.rejoinAt.count() > 0) f["rejoin_ms"] = msOf(r.rejoinAt);
  } else {
    f["kill_ms"] = msOf(r.killAt);
    f["elected_ms"] = r.electedAt.count() < 0 ? Json() : Json(msOf(r.electedAt));
    f["without_master_ms"] = r.electedAt.count() < 0 ? Json() : Json(msOf(r.electedAt - r.killAt));
    f["script_reloads"] = r.scriptReloads;
  }
  f["admitted_before_kill"] = r.admittedBeforeKill;
  f["state_on_new_master"] = r.stateOnNewMaster;
  f["lost_writes"] = r.lostWrites;
  f["errors_during_failover"] = r.errorsDuringFailover;
  f["errors_before_kill"] = r.errorsBeforeKill;
  f["unserved_ms"] = r.unserved.count() < 0 ? Json() : Json(msOf(r.unserved));
  f["wait_replicas"] = r.waitReplicas;
  if (!r.keys.empty()) {
    Json keys = Json::array();
    for (const FailoverKeyCount& k : r.keys) {
      Json j;
      j["algorithm"] = algorithmName(k.algorithm);
      j["admitted"] = k.admitted;
      j["on_new_master"] = k.notCountable.empty() ? Json(k.onNewMaster) : Json();
      j["lost_writes"] = k.notCountable.empty() ? Json(k.lost) : Json();
      if (!k.notCountable.empty()) j["not_countable"] = k.notCountable;
      if (k.overshoot >= 0) j["overshoot"] = std::round(k.overshoot * 1000.0) / 1000.0;
      keys.push_back(std::move(j));
    }
    f["keys"] = std::move(keys);
  }
  return f;
}

std::vector<std::string> failoverSentences(const FailoverReport& r) {
  std::vector<std::string> out;
  const std::string wait = r.waitReplicas > 0 ? ", WAIT " + std::to_string(r.waitReplicas) + " after each admit" : ", no WAIT";
  const std::string served = r.unserved.count() >= 0
                                 ? "decisions served again " + msText(r.unserved) + " after the kill; "
                                 : "decisions were not served again before the storm ended; ";
  const std::string policy = std::to_string(r.errorsDuringFailover) + " decisions by the failure policy meanwhile";
  if (r.kind == "scripted") {
    out.push_back("failover: " + r.master + " killed at " + msText(r.killAt) + " (replication broken at " +
                  msText(r.breakAt) + "), " + r.promoted + " promoted at " + msText(r.promoteAt) + wait);
    out.push_back("  admitted before the kill " + std::to_string(r.admittedBeforeKill) + ", on the new master " +
                  std::to_string(r.stateOnNewMaster) + ": lost writes " + std::to_string(r.lostWrites));
    out.push_back("  " + served + policy);
    return out;
  }
  const std::string how = r.kind == "natural:kill" ? "SIGKILLed" : "handed over by SENTINEL FAILOVER";
  out.push_back("failover (" + r.kind + "): " + r.master + " " + how + " at " + msText(r.killAt) + ", " +
                (r.electedAt.count() >= 0 ? r.promoted + " elected at " + msText(r.electedAt) + " (" +
                                                msText(r.electedAt - r.killAt) + " without a master)"
                                          : std::string("no new master before the storm ended")) +
                wait);
  out.push_back("  " + served + policy + "; NOSCRIPT reloads " + std::to_string(r.scriptReloads));
  for (const FailoverKeyCount& k : r.keys) {
    std::string line = "  " + std::string(algorithmName(k.algorithm)) + ": admitted " + std::to_string(k.admitted);
    if (k.notCountable.empty())
      line += ", the new master holds " + std::to_string(k.onNewMaster) + ": lost writes " + std::to_string(k.lost);
    else
      line += ", lost writes not countable: " + k.notCountable;
    if (k.overshoot >= 0) {
      char o[32];
      std::snprintf(o, sizeof o, "%.2fx", k.overshoot);
      line += "; overshoot " + std::string(o);
    }
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace rl
