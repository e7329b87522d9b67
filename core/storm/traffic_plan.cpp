#include "storm/traffic_plan.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace rl {

namespace {

// Gap either side of the window edge for the boundary pattern: close enough
// that both halves fall in one window length, never more than a second.
std::int64_t boundaryGap(const StormSpec& spec) {
  return std::clamp<std::int64_t>(spec.quota.window.count() / 10, 1, kSecond.count());
}

std::int64_t secondsToUs(double s) { return static_cast<std::int64_t>(std::llround(s * 1e6)); }

// Intended times relative to the run's start, in request order.
std::vector<std::int64_t> intendedTimes(const StormSpec& spec, std::int64_t n, Micros startUs) {
  std::vector<std::int64_t> t(static_cast<std::size_t>(n), 0);
  switch (spec.pattern) {
    case Pattern::Burst:
      break;
    case Pattern::Constant:
      for (std::int64_t i = 0; i < n; ++i) t[static_cast<std::size_t>(i)] = secondsToUs(static_cast<double>(i) / spec.rate);
      break;
    case Pattern::Ramp: {
      // Rate rises linearly 0 -> rate over D: N(t) = rate t^2 / (2 D), so t_i = sqrt(2 D i / rate).
      const double d = static_cast<double>(n) * 2.0 / spec.rate;
      for (std::int64_t i = 0; i < n; ++i)
        t[static_cast<std::size_t>(i)] = secondsToUs(std::sqrt(2.0 * d * static_cast<double>(i) / spec.rate));
      break;
    }
    case Pattern::Poisson: {
      std::mt19937_64 rng(spec.seed);
      std::exponential_distribution<double> gap(spec.rate);
      double at = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        t[static_cast<std::size_t>(i)] = secondsToUs(at);
        at += gap(rng);
      }
      break;
    }
    case Pattern::Boundary: {
      const std::int64_t w = spec.quota.window.count();
      const std::int64_t gap = boundaryGap(spec);
      const std::int64_t edge = (floorDiv(startUs.count() + gap, w) + 1) * w;  // > start + gap
      const std::int64_t first = edge - gap - startUs.count();
      const std::int64_t half = (n + 1) / 2;
      for (std::int64_t i = 0; i < n; ++i) {
        const bool before = i < half;
        const std::int64_t k = before ? i : i - half;
        const std::int64_t m = before ? half : n - half;
        // Evenly spread in [edge - gap, edge) and [edge, edge + gap).
        t[static_cast<std::size_t>(i)] = first + (before ? 0 : gap) + (m > 0 ? k * gap / m : 0);
      }
      break;
    }
  }
  return t;
}

std::vector<PlannedRequest> planTrace(const StormSpec& spec) {
  const auto& in = spec.traceData->requests;
  const double speed = spec.clock == ClockMode::Virtual ? 1.0 : replaySpeed(spec);
  const auto replicas = static_cast<std::size_t>(std::max(spec.replicas, 1));
  const std::int64_t t0 = in.empty() ? 0 : in.front().timeUs;
  std::vector<PlannedRequest> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::int64_t rel = in[i].timeUs - t0;
    out[i].intendedUs = speed == 1.0 ? rel : static_cast<std::int64_t>(std::llround(static_cast<double>(rel) / speed));
    out[i].client = in[i].client;
    out[i].replica = static_cast<std::uint16_t>(i % replicas);
    out[i].cost = in[i].cost;
  }
  return out;
}

}  // namespace

Micros planStart(const StormSpec& spec, Micros fallback) {
  if (spec.traceData && !spec.traceData->requests.empty() && spec.clock == ClockMode::Virtual)
    return Micros{spec.traceData->requests.front().timeUs};
  return fallback;
}

std::int64_t plannedRequestCount(const StormSpec& spec) {
  if (spec.traceData) return static_cast<std::int64_t>(spec.traceData->requests.size());
  if (spec.requests > 0) return spec.requests;
  return static_cast<std::int64_t>(std::floor(static_cast<double>(spec.duration.count()) / 1e6 * spec.rate));
}

std::vector<PlannedRequest> planRequests(const StormSpec& spec, Micros startUs) {
  if (spec.traceData) return planTrace(spec);
  const std::int64_t n = std::max<std::int64_t>(plannedRequestCount(spec), 0);
  const auto times = intendedTimes(spec, n, startUs);
  const auto replicas = static_cast<std::int64_t>(std::max(spec.replicas, 1));
  const auto clients = static_cast<std::int64_t>(std::max(spec.clients, 1));
  std::vector<PlannedRequest> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    auto& r = out[static_cast<std::size_t>(i)];
    r.intendedUs = times[static_cast<std::size_t>(i)];
    r.replica = static_cast<std::uint16_t>(i % replicas);
    r.client = static_cast<std::uint32_t>((i / replicas) % clients);
    r.cost = spec.cost;
  }
  return out;
}

}  // namespace rl
