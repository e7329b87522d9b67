#include "redis/script_template.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <utility>

namespace rl {

namespace {
constexpr std::string_view kAllowed =
    "{client} {prefix} {limit} {window_ms} {window_s} {refill_rate} {now_us} {now_ms} {now_s} {cost}";

std::string decimal(double v) {  // shortest text that reads back as v
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc{} ? std::string(buf, p) : std::to_string(v);
}

std::string seconds(std::int64_t us) {  // "1700000000.123456"
  char buf[48];
  const std::int64_t s = floorDiv(us, 1'000'000);
  std::snprintf(buf, sizeof buf, "%lld.%06lld", static_cast<long long>(s), static_cast<long long>(us - s * 1'000'000));
  return buf;
}
}  // namespace

Result<ScriptTemplate> ScriptTemplate::parse(std::string_view text, const std::string& shownAs) {
  static constexpr std::array<std::pair<std::string_view, Part>, 10> kNames{{
      {"client", Part::Client}, {"prefix", Part::Prefix}, {"limit", Part::Limit}, {"window_ms", Part::WindowMs},
      {"window_s", Part::WindowS}, {"refill_rate", Part::RefillRate}, {"now_us", Part::NowUs},
      {"now_ms", Part::NowMs}, {"now_s", Part::NowS}, {"cost", Part::Cost}}};
  ScriptTemplate t;
  std::vector<Piece>* word = nullptr;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == ' ') {
      word = nullptr;
      ++i;
      continue;
    }
    if (!word) word = &t.words_.emplace_back();
    if (text[i] != '{') {
      if (word->empty() || word->back().part != Part::Literal) word->push_back({Part::Literal, {}});
      word->back().text.push_back(text[i++]);
      continue;
    }
    const auto close = text.find('}', i);
    if (close == std::string_view::npos)
      return invalidArgument(shownAs + ": unclosed '{' in '" + std::string(text) + "': allowed placeholders " + std::string(kAllowed));
    const std::string_view name = text.substr(i + 1, close - i - 1);
    const auto* found = std::find_if(kNames.begin(), kNames.end(), [&](const auto& n) { return n.first == name; });
    if (found == kNames.end())
      return invalidArgument(shownAs + ": unknown placeholder {" + std::string(name) + "}: allowed " + std::string(kAllowed));
    word->push_back({found->second, {}});
    i = close + 1;
  }
  return t;
}

int ScriptTemplate::firstWordOutsidePrefix() const {
  for (std::size_t i = 0; i < words_.size(); ++i)
    if (words_[i].empty() || words_[i].front().part != Part::Prefix) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> ScriptTemplate::expand(const DecisionRequest& r, std::string_view prefix) const {
  std::vector<std::string> out;
  out.reserve(words_.size());
  const std::int64_t now = r.now.count();
  for (const auto& word : words_) {
    std::string w;
    for (const Piece& p : word) {
      switch (p.part) {
        case Part::Literal: w += p.text; break;
        case Part::Client: w += r.client; break;
        case Part::Prefix: w += prefix; break;
        case Part::Limit: w += std::to_string(r.quota.limit); break;
        case Part::WindowMs: w += std::to_string(r.quota.window.count() / 1000); break;
        case Part::WindowS: w += decimal(static_cast<double>(r.quota.window.count()) / 1e6); break;
        case Part::RefillRate: w += decimal(r.quota.ratePerSecond()); break;
        case Part::NowUs: w += std::to_string(now); break;
        case Part::NowMs: w += std::to_string(floorDiv(now, 1000)); break;
        case Part::NowS: w += seconds(now); break;
        case Part::Cost: w += std::to_string(r.cost); break;
      }
    }
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace rl
