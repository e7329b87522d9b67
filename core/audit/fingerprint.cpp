#include "audit/fingerprint.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "common/number_text.hpp"
#include "limiter/limiter_state.hpp"

namespace rl {
namespace {

struct Sample {
  std::int64_t us;    ///< unix time the target saw it (send + half the round trip)
  bool allowed;       ///< what the target decided
  int group;          ///< concurrent round, -1 alone
  std::size_t index;  ///< the arrival's index
};
using Sequence = std::vector<Sample>;  // one key, from its fresh state, in send order

struct Candidate {
  Algorithm algorithm;
  Quota quota;
  bool firstRequest = false;  ///< windows start at the first request after the last window
};

// What `c` decides for each request of `seq`, in order; `levels` (when given) gets the level after each.
std::vector<bool> decidedIn(const Sequence& seq, const Candidate& c, std::vector<double>* levels = nullptr) {
  LimiterState state = freshState(c.algorithm);
  const std::int64_t w = c.quota.window.count();
  std::int64_t windowStart = 0, windowIndex = 0;
  bool started = false;
  std::vector<bool> out;
  out.reserve(seq.size());
  for (const Sample& s : seq) {
    std::int64_t now = s.us;
    if (c.firstRequest) {
      if (!started || s.us - windowStart >= w) {
        windowStart = s.us;
        ++windowIndex;
        started = true;
      }
      now = windowIndex * w + (s.us - windowStart);
    }
    const Decision d = decide(c.algorithm, state, Micros{now}, 1, c.quota).decision;
    out.push_back(d.allowed);
    if (levels) levels->push_back(d.level);
  }
  return out;
}

// Decisions of `c` on `seq` that match the target's (rounds: as many admits and denies as both have).
int explainedIn(const Sequence& seq, const Candidate& c) {
  const std::vector<bool> model = decidedIn(seq, c);
  std::map<int, std::array<int, 4>> rounds;  // group -> model admits, model denies, target admits, target denies
  int explained = 0;
  for (std::size_t i = 0; i < seq.size(); ++i) {
    const Sample& s = seq[i];
    if (s.group < 0) {
      explained += model[i] == s.allowed;
      continue;
    }
    auto& r = rounds[s.group];
    ++r[model[i] ? 0 : 1];
    ++r[s.allowed ? 2 : 3];
  }
  for (const auto& [g, r] : rounds) explained += std::min(r[0], r[2]) + std::min(r[1], r[3]);
  return explained;
}

int explainedBy(const std::vector<Sequence>& seqs, const Candidate& c) {
  int n = 0;
  for (const auto& s : seqs) n += explainedIn(s, c);
  return n;
}

std::vector<std::int64_t> limitCandidates(const FingerprintHints& h, std::int64_t maxAdmitted) {
  std::vector<std::int64_t> out;
  if (h.limit > 0) out.push_back(h.limit);
  if (maxAdmitted > 0) out.push_back(maxAdmitted);
  const std::int64_t top = std::min<std::int64_t>(200, std::max(h.limit, maxAdmitted) + 2);
  for (std::int64_t l = 1; l <= top; ++l) out.push_back(l);
  return out;
}

std::vector<std::int64_t> windowCandidates(const FingerprintHints& h) {
  std::vector<std::int64_t> out;
  if (h.windowMs > 0) out.push_back(h.windowMs);
  for (std::int64_t ms : {500, 1000, 2000, 3000, 5000, 10000, 15000, 30000, 60000, 120000, 300000, 600000, 3600000})
    out.push_back(ms);
  return out;
}

std::vector<double> rateCandidates(const FingerprintHints& h) {
  std::vector<double> out;
  if (h.limit > 0 && h.windowMs > 0) out.push_back(static_cast<double>(h.limit) * 1000.0 / static_cast<double>(h.windowMs));
  for (double r : {0.1, 0.2, 0.5, 1.0, 2.0, 2.5, 3.0, 4.0, 5.0, 8.0, 10.0, 15.0, 20.0, 25.0, 50.0, 100.0, 200.0, 500.0, 1000.0})
    out.push_back(r);
  return out;
}

std::vector<Candidate> candidates(const FingerprintHints& h, std::int64_t maxAdmitted) {
  std::vector<Candidate> out;
  const auto limits = limitCandidates(h, maxAdmitted);
  for (Algorithm a : {Algorithm::FixedWindow, Algorithm::SlidingLog, Algorithm::SlidingCounter})
    for (bool first : {true, false}) {
      if (a == Algorithm::SlidingLog && first) continue;  // a log has no windows to align
      for (std::int64_t w : windowCandidates(h))
        for (std::int64_t l : limits) out.push_back({a, Quota::perWindow(l, Micros{w * 1000}), first});
    }
  for (Algorithm a : {Algorithm::LeakyBucket, Algorithm::TokenBucket, Algorithm::Gcra})
    for (double r : rateCandidates(h))
      for (std::int64_t l : limits) out.push_back({a, Quota::perWindow(l, kSecond).withRefill(r), false});
  std::erase_if(out, [](const Candidate& c) { return !c.quota.validate(c.algorithm); });
  return out;
}

// "sliding_counter 6 per 0.5 s, windows aligned to the epoch", "leaky_bucket 6 at 10/s".
std::string modelText(const Fingerprint& f) {
  std::string s = f.algorithm + " " + std::to_string(f.limit);
  if (f.windowMs > 0) {
    s += " per " + numberText(static_cast<double>(f.windowMs) / 1000.0) + " s";
    if (f.alignment == "first_request") s += ", window from the client's first request";
    else if (f.alignment == "epoch") s += ", windows aligned to the epoch";
  } else {
    s += " at " + numberText(f.ratePerSecond) + "/s";
  }
  return s;
}

std::string describe(const Fingerprint& f) {
  std::string s = modelText(f) + ": " + std::to_string(f.explained) + " of " + std::to_string(f.decisions);
  if (f.alsoExplainedBy.empty()) return s;
  s += " (as many by";
  for (std::size_t i = 0; i < f.alsoExplainedBy.size(); ++i) s += (i ? "; " : " ") + f.alsoExplainedBy[i];
  return s + ")";
}

// The fingerprint naming candidate `c`, which explains `explained` of `decisions`.
Fingerprint named(const Candidate& c, int explained, int decisions) {
  Fingerprint f;
  f.algorithm = std::string(algorithmName(c.algorithm));
  f.limit = c.quota.limit;
  if (isRateBased(c.algorithm)) {
    f.ratePerSecond = c.quota.ratePerSecond();
  } else {
    f.windowMs = c.quota.window.count() / 1000;
    if (c.algorithm != Algorithm::SlidingLog) f.alignment = c.firstRequest ? "first_request" : "epoch";
  }
  f.explained = explained;
  f.decisions = decisions;
  return f;
}

// The fingerprinted arrivals (not errors), one sequence per key in the order the target saw them.
std::vector<Sequence> sequencesOf(const std::vector<Arrival>& arrivals) {
  std::map<std::string, Sequence> byKey;
  for (std::size_t i = 0; i < arrivals.size(); ++i) {
    const Arrival& a = arrivals[i];
    if (replayed(a)) byKey[a.key].push_back({seenAtUs(a), a.allowed, a.group, i});
  }
  std::vector<Sequence> seqs;
  for (auto& [k, s] : byKey) {
    std::stable_sort(s.begin(), s.end(), [](const Sample& x, const Sample& y) { return x.us < y.us; });
    seqs.push_back(std::move(s));
  }
  return seqs;
}

}  // namespace

std::int64_t seenAtUs(const Arrival& a) { return a.wallUs + a.rttUs / 2; }

std::optional<FingerprintModel> modelOf(const Fingerprint& f) {
  const auto algorithm = parseAlgorithm(f.algorithm);
  if (!algorithm) return std::nullopt;
  // The inverse of how fingerprintArrivals names its best candidate.
  if (isRateBased(*algorithm)) return FingerprintModel{*algorithm, Quota::perWindow(f.limit, kSecond).withRefill(f.ratePerSecond), false};
  return FingerprintModel{*algorithm, Quota::perWindow(f.limit, Micros{f.windowMs * 1000}), f.alignment == "first_request"};
}

std::vector<ModelDecision> fingerprintDecisions(const std::vector<Arrival>& arrivals, const Fingerprint& f) {
  const auto named = modelOf(f);
  if (!named) return {};
  const Candidate c{named->algorithm, named->quota, named->firstRequest};
  std::vector<ModelDecision> out;
  for (const Sequence& seq : sequencesOf(arrivals)) {
    std::vector<double> levels;
    const std::vector<bool> model = decidedIn(seq, c, &levels);
    // A concurrent round's order is unknown: the model's admits go first to the requests the target admitted.
    std::map<int, int> admitsLeft;
    for (std::size_t i = 0; i < seq.size(); ++i)
      if (seq[i].group >= 0) admitsLeft[seq[i].group] += model[i] ? 1 : 0;
    std::map<int, std::vector<std::size_t>> deniedByTarget;
    for (std::size_t i = 0; i < seq.size(); ++i) {
      const Sample& s = seq[i];
      if (s.group < 0) {
        out.push_back({s.index, model[i], levels[i]});
      } else if (s.allowed && admitsLeft[s.group] > 0) {
        --admitsLeft[s.group];
        out.push_back({s.index, true, levels[i]});
      } else if (s.allowed) {
        out.push_back({s.index, false, levels[i]});
      } else {
        deniedByTarget[s.group].push_back(out.size());
        out.push_back({s.index, false, levels[i]});
      }
    }
    for (auto& [g, slots] : deniedByTarget)  // admits the target's admitted requests could not take
      for (std::size_t k = 0; k < slots.size() && admitsLeft[g] > 0; ++k, --admitsLeft[g]) out[slots[k]].allowed = true;
  }
  std::sort(out.begin(), out.end(), [](const ModelDecision& a, const ModelDecision& b) { return a.arrival < b.arrival; });
  return out;
}

Fingerprint fingerprintArrivals(const std::vector<Arrival>& arrivals, const FingerprintHints& hints) {
  std::map<int, std::int64_t> roundAdmits;
  int decisions = 0;
  for (const Arrival& a : arrivals) {
    if (!replayed(a)) continue;
    if (a.group >= 0) roundAdmits[a.group] += a.allowed;
    ++decisions;
  }
  std::int64_t maxAdmitted = 0;
  for (const auto& [g, n] : roundAdmits) maxAdmitted = std::max(maxAdmitted, n);
  Fingerprint best;
  best.decisions = decisions;
  if (decisions == 0) return best;
  const std::vector<Sequence> seqs = sequencesOf(arrivals);
  // The best candidate of each algorithm, in the order first searched (ties keep the earlier candidate).
  std::vector<std::pair<int, Candidate>> perAlgorithm;
  const auto bestOf = [&perAlgorithm](Algorithm a) {
    return std::find_if(perAlgorithm.begin(), perAlgorithm.end(), [a](const auto& b) { return b.second.algorithm == a; });
  };
  for (const Candidate& c : candidates(hints, maxAdmitted)) {
    const int score = explainedBy(seqs, c);
    if (const auto it = bestOf(c.algorithm); it == perAlgorithm.end()) perAlgorithm.emplace_back(score, c);
    else if (score > it->first) *it = {score, c};
  }
  if (perAlgorithm.empty()) return best;
  // The best of all names the fingerprint (the first of equals, so ties keep the earlier algorithm).
  const auto top = *std::max_element(perAlgorithm.begin(), perAlgorithm.end(),
                                     [](const auto& x, const auto& y) { return x.first < y.first; });
  best = named(top.second, top.first, decisions);
  // The probes may not tell some models apart: the other algorithms that explain as many are named too.
  for (Algorithm a : kAllAlgorithms)
    if (const auto it = bestOf(a); it != perAlgorithm.end() && a != top.second.algorithm && it->first == top.first)
      best.alsoExplainedBy.push_back(modelText(named(it->second, it->first, decisions)));
  best.summary = describe(best);
  return best;
}

}  // namespace rl
