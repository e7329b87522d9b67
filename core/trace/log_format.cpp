#include "trace/log_format.hpp"

#include <cctype>

namespace rl {

namespace {
bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool allDigits(std::string_view v) {
  if (v.empty()) return false;
  for (char c : v)
    if (c < '0' || c > '9') return false;
  return true;
}
}  // namespace

Result<LogFormat> LogFormat::compile(std::string_view f) {
  LogFormat out;
  std::string literal;
  bool any = false;
  for (std::size_t i = 0; i < f.size();) {
    if (f[i] != '$') {
      literal.push_back(f[i++]);
      continue;
    }
    std::string name;
    if (i + 1 < f.size() && f[i + 1] == '{') {
      const auto close = f.find('}', i + 2);
      if (close == std::string_view::npos)
        return invalidArgument("log_format: '${' at " + std::to_string(i) + " has no closing '}'");
      name = std::string(f.substr(i + 2, close - i - 2));
      i = close + 1;
    } else {
      std::size_t j = i + 1;
      while (j < f.size() && isNameChar(f[j])) ++j;
      name = std::string(f.substr(i + 1, j - i - 1));
      i = j;
    }
    if (name.empty()) return invalidArgument("log_format: '$' at " + std::to_string(i) + " has no variable name");
    if (!any)
      out.lead_ = literal;
    else if (literal.empty())
      return invalidArgument("log_format: $" + out.vars_.back().name + " and $" + name +
                             " have nothing between them, so a line cannot be split: allowed variables separated "
                             "by literal text");
    else
      out.vars_.back().after = literal;
    literal.clear();
    if (out.vars_.size() == kMaxVariables)
      return invalidArgument("log_format: more than " + std::to_string(kMaxVariables) + " variables");
    Check check = name == "status" ? Check::Status
                  : (name == "body_bytes_sent" || name == "bytes_sent") ? Check::Bytes
                                                                        : Check::None;
    out.vars_.push_back({std::move(name), {}, check});
    any = true;
  }
  if (!any) return invalidArgument("log_format: no $variable");
  out.vars_.back().after = literal;
  return out;
}

int LogFormat::indexOf(std::string_view name) const {
  for (std::size_t i = 0; i < vars_.size(); ++i)
    if (vars_[i].name == name) return static_cast<int>(i);
  return -1;
}

bool LogFormat::match(std::string_view line, Values& out) const {
  if (line.substr(0, lead_.size()) != lead_) return false;
  std::size_t pos = lead_.size();
  const std::size_t n = vars_.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Var& v = vars_[i];
    std::size_t end;
    if (i + 1 == n) {  // the last value runs to the trailing literal at the end of the line
      if (line.size() < pos + v.after.size() || line.substr(line.size() - v.after.size()) != v.after) return false;
      end = line.size() - v.after.size();
    } else {
      end = line.find(v.after, pos);
      if (end == std::string_view::npos) return false;
    }
    const std::string_view value = line.substr(pos, end - pos);
    if (v.check == Check::Status && (value.size() != 3 || !allDigits(value))) return false;
    if (v.check == Check::Bytes && value != "-" && !allDigits(value)) return false;
    out[i] = value;
    pos = end + v.after.size();
  }
  return true;
}

}  // namespace rl
