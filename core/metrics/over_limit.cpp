#include "metrics/over_limit.hpp"

#include <algorithm>
#include <limits>

#include "common/number_text.hpp"
#include "limiter/time.hpp"

namespace rl {

namespace {

constexpr WideInt kNoStart = std::numeric_limits<std::int64_t>::max();

std::string duration(std::int64_t us) {
  if (us % kSecond.count() == 0) return std::to_string(us / kSecond.count()) + " s";
  if (us % kMillisecond.count() == 0) return std::to_string(us / kMillisecond.count()) + " ms";
  return std::to_string(us) + " us";
}

}  // namespace

OverLimitJudge::OverLimitJudge(OverLimitRule rule) : rule_(std::move(rule)) {
  if (rule_.quotas.empty()) rule_.quotas.push_back({0, Quota{}});
  rule_.cost = std::max<std::int64_t>(rule_.cost, 1);
}

std::size_t OverLimitJudge::quotaIndexAt(std::int64_t atUs) {
  while (cursor_ + 1 < rule_.quotas.size() && rule_.quotas[cursor_ + 1].atUs <= atUs) ++cursor_;
  return cursor_;
}

double OverLimitJudge::judge(Client& c, const Quota& q, std::int64_t atUs, std::int64_t serviceUs) {
  const std::int64_t cost = rule_.cost;
  const double limit = static_cast<double>(q.limit);
  switch (rule_.algorithm) {
    case Algorithm::FixedWindow: {
      // Counted only where it surely fell: both ends of its service time in one aligned window.
      const std::int64_t w = q.window.count();
      const std::int64_t first = floorDiv(rule_.originUs + atUs, w);
      if (first != floorDiv(rule_.originUs + atUs + serviceUs, w)) return 0;
      if (first != c.windowIndex || c.count == 0) {
        c.windowIndex = first;
        c.count = 0;
      }
      ++c.count;
      return static_cast<double>(c.count * cost) / limit;
    }
    case Algorithm::SlidingLog:
    case Algorithm::SlidingCounter: {
      // Earlier admissions surely inside the window that ends at this one's latest time.
      const std::int64_t from = atUs + serviceUs - q.window.count();
      const auto inside = c.times.end() - std::upper_bound(c.times.begin(), c.times.end(), from);
      c.times.push_back(atUs);
      return static_cast<double>((inside + 1) * cost) / limit;
    }
    case Algorithm::TokenBucket:
    case Algorithm::LeakyBucket:
    case Algorithm::Gcra: {
      // need x I = cost x n x I - (t_j + s_j) - min_i (cost x (i - 1) x I - t_i): the
      // burst the interval [t_i, t_j] needed beyond what refilled in it.
      const WideInt iv = q.interval().count();
      const WideInt before = static_cast<WideInt>(c.count) * cost * iv;
      c.minStart = std::min(c.minStart, before - atUs);
      ++c.count;
      const WideInt needIv = before + cost * iv - atUs - serviceUs - c.minStart;
      return static_cast<double>(needIv) / (limit * static_cast<double>(iv));
    }
  }
  return 0;
}

OverLimitVerdict OverLimitJudge::admit(std::uint32_t client, std::int64_t atUs, std::int64_t serviceUs) {
  const std::size_t qi = quotaIndexAt(atUs);
  const Quota& q = rule_.quotas[qi].quota;
  auto [it, fresh] = clients_.try_emplace(client);
  Client& c = it->second;
  if (fresh || c.quotaIndex != qi) {  // a new judgement under this quota (rate algorithms)
    if (isRateBased(rule_.algorithm)) {
      c.count = 0;
      c.minStart = kNoStart;
    }
    c.quotaIndex = qi;
  }
  OverLimitVerdict v;
  v.ratio = judge(c, q, atUs, std::max<std::int64_t>(serviceUs, 0));
  // Exact integers decide "over" on the virtual clock; the ratio is a shade above 1 then.
  v.over = v.ratio > 1.0 + 1e-12;
  if (v.over) {
    ++c.overs;
    ++overCount_;
  }
  if (v.ratio > worst_.ratio) worst_ = {client, atUs, v.ratio};
  return v;
}

std::unordered_map<std::uint32_t, std::int64_t> OverLimitJudge::overByClient() const {
  std::unordered_map<std::uint32_t, std::int64_t> out;
  for (const auto& [id, c] : clients_)
    if (c.overs > 0) out[id] = c.overs;
  return out;
}

OverLimitJudge::Checkpoint OverLimitJudge::checkpoint() const {
  Checkpoint cp;
  cp.clients.reserve(clients_.size());
  for (const auto& [id, c] : clients_) {
    Checkpoint::Saved s{Client{{}, c.quotaIndex, c.windowIndex, c.count, c.minStart, c.overs}, c.times.size()};
    cp.clients.emplace(id, std::move(s));
  }
  cp.cursor = cursor_;
  cp.worst = worst_;
  cp.overCount = overCount_;
  return cp;
}

void OverLimitJudge::restore(const Checkpoint& cp) {
  for (auto it = clients_.begin(); it != clients_.end();) {
    const auto saved = cp.clients.find(it->first);
    if (saved == cp.clients.end()) {
      it = clients_.erase(it);
      continue;
    }
    std::vector<std::int64_t> times = std::move(it->second.times);
    times.resize(std::min(times.size(), saved->second.times));
    it->second = saved->second.scalars;
    it->second.times = std::move(times);
    ++it;
  }
  cursor_ = cp.cursor;
  worst_ = cp.worst;
  overCount_ = cp.overCount;
}

std::string overLimitBoundText(Algorithm algorithm, const Quota& q) {
  const std::string limit = std::to_string(q.limit);
  switch (algorithm) {
    case Algorithm::FixedWindow: return "at most " + limit + " in each aligned " + duration(q.window.count()) + " window";
    case Algorithm::SlidingLog:
    case Algorithm::SlidingCounter: return "at most " + limit + " in any " + duration(q.window.count());
    default: break;
  }
  const double rate = 1e6 / static_cast<double>(q.interval().count());
  return "at most " + limit + " + " + numberText(rate) + "/s x T in any T";
}

}  // namespace rl
