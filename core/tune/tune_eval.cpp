#include "tune/tune_eval.hpp"

#include <algorithm>

#include "limiter/limiter_state.hpp"
#include "metrics/window_truth.hpp"

namespace rl {

namespace {

// Per-thread scratch: the admitted requests of the client being decided.
struct Scratch {
  std::vector<std::int64_t> times;
  std::vector<std::uint32_t> costs;
};

template <class State>
PointOutcome evaluateWith(const ClientStreams& s, const std::vector<char>& legit, const Quota& q, Micros peakWindow,
                          std::vector<std::uint8_t>* allowed, const std::atomic<bool>* cancel) {
  thread_local Scratch scratch;
  PointOutcome out;
  for (std::size_t c = 0; c < s.clients(); ++c) {
    if (cancel && cancel->load(std::memory_order_relaxed)) {
      out.complete = false;
      break;
    }
    const bool isLegit = legit[c] != 0;
    State state{};
    scratch.times.clear();
    scratch.costs.clear();
    std::int64_t denied = 0;
    for (std::size_t i = s.offsets[c]; i < s.offsets[c + 1]; ++i) {
      const std::int64_t t = s.times[i];
      const std::uint32_t cost = s.costs[i];
      const bool ok = cost <= q.limit && decide(state, Micros{t}, cost, q).decision.allowed;
      if (allowed) (*allowed)[s.order[i]] = ok ? 1 : 0;
      if (ok) {
        scratch.times.push_back(t);
        scratch.costs.push_back(cost);
        continue;
      }
      ++denied;
      if (out.firstDenialUs < 0 || t < out.firstDenialUs) out.firstDenialUs = t;
    }
    const auto n = static_cast<std::int64_t>(s.offsets[c + 1] - s.offsets[c]);
    out.offered += n;
    out.denied += denied;
    out.clientsDenied += denied > 0;
    if (isLegit) {
      out.legitOffered += n;
      out.legitDenied += denied;
      out.legitClientsDenied += denied > 0;
    }
    out.worstAdmitted = std::max(out.worstAdmitted, maxCostInAnyWindow(scratch.times, scratch.costs, peakWindow.count()));
  }
  return out;
}

}  // namespace

PointOutcome evaluatePoint(const ClientStreams& s, const std::vector<char>& legit, Algorithm a, const Quota& q,
                           Micros peakWindow, std::vector<std::uint8_t>* allowed, const std::atomic<bool>* cancel) {
  if (allowed) allowed->assign(s.times.size(), 0);
  switch (a) {
    case Algorithm::FixedWindow: return evaluateWith<FixedWindowState>(s, legit, q, peakWindow, allowed, cancel);
    case Algorithm::SlidingLog: return evaluateWith<SlidingLogState>(s, legit, q, peakWindow, allowed, cancel);
    case Algorithm::SlidingCounter: return evaluateWith<SlidingCounterState>(s, legit, q, peakWindow, allowed, cancel);
    case Algorithm::TokenBucket: return evaluateWith<TokenBucketState>(s, legit, q, peakWindow, allowed, cancel);
    case Algorithm::LeakyBucket: return evaluateWith<LeakyBucketState>(s, legit, q, peakWindow, allowed, cancel);
    case Algorithm::Gcra: return evaluateWith<GcraState>(s, legit, q, peakWindow, allowed, cancel);
  }
  return {};
}

}  // namespace rl
