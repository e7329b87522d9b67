#include "storm/fault_schedule.hpp"

#include <algorithm>
#include <charconv>

#include "common/enum_names.hpp"

namespace rl {

namespace {
constexpr EnumNames<FaultKind, 6> kKinds{{{FaultKind::Kill, "kill"},
                                          {FaultKind::Restart, "restart"},
                                          {FaultKind::Pause, "pause"},
                                          {FaultKind::Latency, "latency"},
                                          {FaultKind::OutOfMemory, "oom"},
                                          {FaultKind::ReadOnly, "readonly"}}};
constexpr std::int64_t kMaxTimeMs = 86'400'000;  // a run spans at most a day
constexpr std::int64_t kMaxStallMs = 10'000;
constexpr std::size_t kMaxFaults = 64;

const char* const kAllowed =
    "allowed kill@T, restart@T, pause@S:E, latency@S:E:MS, oom@S:E, readonly@S:E (comma-separated; "
    "T, S, E in ms since the run's start, a window also as S+DURATION; MS the stall per DEBUG SLEEP, 1 to 10000)";

Error bad(const std::string& shownAs, std::string_view part, const std::string& why) {
  return invalidArgument(shownAs + " '" + std::string(part) + "': " + why);
}

// An integer number of ms, an optional "ms" suffix, within [lo, hi].
bool parseMs(std::string_view t, std::int64_t lo, std::int64_t hi, std::int64_t& out) {
  if (t.ends_with("ms")) t.remove_suffix(2);
  if (t.empty()) return false;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  return ec == std::errc{} && p == t.data() + t.size() && out >= lo && out <= hi;
}

// "S:E" or "S+D" into the event's at/end.
Result<void> parseWindow(std::string_view t, FaultEvent& e, std::string_view item, const std::string& shownAs) {
  const auto sep = t.find_first_of(":+");
  const std::string name(faultKindName(e.kind));
  if (sep == std::string_view::npos)
    return bad(shownAs, item, name + " needs a window: allowed " + name + "@START:END or " + name + "@START+DURATION (ms)");
  std::int64_t s = 0, second = 0;
  if (!parseMs(t.substr(0, sep), 0, kMaxTimeMs, s))
    return bad(shownAs, item, "the start '" + std::string(t.substr(0, sep)) + "' is not valid: allowed integer ms 0 to 86400000");
  if (!parseMs(t.substr(sep + 1), 0, kMaxTimeMs, second))
    return bad(shownAs, item, std::string(t[sep] == ':' ? "the end '" : "the duration '") + std::string(t.substr(sep + 1)) +
                                  "' is not valid: allowed integer ms 0 to 86400000");
  const std::int64_t end = t[sep] == '+' ? s + second : second;
  if (end <= s) return bad(shownAs, item, "the window ends before it starts: allowed END > START (or DURATION > 0)");
  if (end > kMaxTimeMs) return bad(shownAs, item, "the window ends after 86400000 ms: allowed windows within a day");
  e.at = Micros{s * 1000};
  e.end = Micros{end * 1000};
  return {};
}

Result<FaultEvent> parseItem(std::string_view item, const std::string& shownAs) {
  const auto at = item.find('@');
  if (at == std::string_view::npos) return bad(shownAs, item, "missing '@TIME': " + std::string(kAllowed));
  const auto kind = enumFromName(kKinds, item.substr(0, at));
  if (!kind) return bad(shownAs, item, "unknown fault '" + std::string(item.substr(0, at)) + "': " + kAllowed);
  FaultEvent e;
  e.kind = *kind;
  std::string_view rest = item.substr(at + 1);
  if (!isWindowedFault(e.kind)) {
    std::int64_t t = 0;
    if (!parseMs(rest, 0, kMaxTimeMs, t))
      return bad(shownAs, item, "the time '" + std::string(rest) + "' is not valid: allowed " +
                                    std::string(faultKindName(e.kind)) + "@T, T integer ms 0 to 86400000");
    e.at = Micros{t * 1000};
    return e;
  }
  if (e.kind == FaultKind::Latency) {
    const auto last = rest.rfind(':');
    const auto plus = rest.find('+');
    const bool hasStall = last != std::string_view::npos && (plus != std::string_view::npos || rest.find(':') != last);
    if (!hasStall) return bad(shownAs, item, "latency needs a stall: allowed latency@START:END:MS or latency@START+DURATION:MS");
    std::int64_t ms = 0;
    if (!parseMs(rest.substr(last + 1), 1, kMaxStallMs, ms))
      return bad(shownAs, item, "the stall '" + std::string(rest.substr(last + 1)) + "' is not valid: allowed 1 to 10000 ms");
    e.stall = Micros{ms * 1000};
    rest = rest.substr(0, last);
  }
  if (auto ok = parseWindow(rest, e, item, shownAs); !ok) return ok.error();
  return e;
}

// Windows must not overlap; a restart needs a kill before it, and a kill needs the server up.
Result<void> checkOrder(const std::vector<FaultEvent>& events, const std::string& shownAs) {
  bool down = false;
  Micros killedAt{0};
  Micros busyUntil{-1};
  std::string busyBy;
  for (const FaultEvent& e : events) {
    const std::string text = faultText(e);
    if (e.kind == FaultKind::Restart) {
      if (!down) return bad(shownAs, text, "restart needs an earlier kill (the server is running then)");
      if (e.at == killedAt) return bad(shownAs, text, "restart at the kill's time: allowed a time after the kill");
      down = false;
      continue;
    }
    if (down) return bad(shownAs, text, "the server is down then (killed, no restart yet): allowed after a restart@T");
    if (e.at < busyUntil) return bad(shownAs, text, "overlaps " + busyBy + ": allowed one fault at a time");
    if (e.kind == FaultKind::Kill) {
      down = true;
      killedAt = e.at;
      continue;
    }
    busyUntil = e.end;
    busyBy = text;
  }
  return {};
}
}  // namespace

std::string_view faultKindName(FaultKind k) { return enumName(kKinds, k); }

bool isWindowedFault(FaultKind k) { return k != FaultKind::Kill && k != FaultKind::Restart; }

Result<std::vector<FaultEvent>> parseFaultSchedule(std::string_view text, const std::string& shownAs) {
  std::vector<FaultEvent> events;
  if (text.empty()) return events;
  while (true) {
    const auto comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    if (item.empty()) return invalidArgument(shownAs + ": an empty item: " + kAllowed);
    auto e = parseItem(item, shownAs);
    if (!e) return e.error();
    events.push_back(e.value());
    if (events.size() > kMaxFaults) return invalidArgument(shownAs + ": more than 64 faults: allowed at most 64");
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  std::stable_sort(events.begin(), events.end(), [](const FaultEvent& a, const FaultEvent& b) { return a.at < b.at; });
  if (auto ok = checkOrder(events, shownAs); !ok) return ok.error();
  return events;
}

std::string faultText(const FaultEvent& e) {
  std::string s = std::string(faultKindName(e.kind)) + "@" + std::to_string(e.at.count() / 1000);
  if (isWindowedFault(e.kind)) s += ":" + std::to_string(e.end.count() / 1000);
  if (e.kind == FaultKind::Latency) s += ":" + std::to_string(e.stall.count() / 1000) + "ms";
  return s;
}

std::string faultScheduleText(const std::vector<FaultEvent>& events) {
  std::string s;
  for (const FaultEvent& e : events) s += (s.empty() ? "" : ",") + faultText(e);
  return s;
}

std::vector<FaultWindow> faultWindows(const std::vector<FaultEvent>& events) {
  std::vector<FaultWindow> out;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const FaultEvent& e = events[i];
    if (e.kind == FaultKind::Restart) continue;
    FaultWindow w{faultText(e), e.kind, e.at.count(), isWindowedFault(e.kind) ? e.end.count() : -1};
    if (e.kind == FaultKind::Kill)
      for (std::size_t j = i + 1; j < events.size(); ++j)
        if (events[j].kind == FaultKind::Restart) {
          w.label += "," + faultText(events[j]);
          w.endUs = events[j].at.count();
          break;
        }
    out.push_back(std::move(w));
  }
  return out;
}

Micros faultScheduleEnd(const std::vector<FaultEvent>& events) {
  Micros end{0};
  for (const FaultEvent& e : events) end = std::max(end, isWindowedFault(e.kind) ? e.end : e.at);
  return end;
}

}  // namespace rl
