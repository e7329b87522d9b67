#include "common/json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace rl {

bool Json::isInteger() const {
  return type_ == Type::Number && (isInt_ || (std::trunc(num_) == num_ && std::fabs(num_) < 9.2e18));
}

std::int64_t Json::asInt() const { return isInt_ ? int_ : static_cast<std::int64_t>(num_); }

const Json* Json::find(std::string_view key) const {
  for (const auto& [k, v] : obj_)
    if (k == key) return &v;
  return nullptr;
}

Json& Json::set(std::string key, Json value) {
  if (type_ == Type::Null) type_ = Type::Object;
  for (auto& [k, v] : obj_)
    if (k == key) return v = std::move(value);
  obj_.emplace_back(std::move(key), std::move(value));
  return obj_.back().second;
}

Json& Json::push(Json value) {
  if (type_ == Type::Null) type_ = Type::Array;
  arr_.push_back(std::move(value));
  return arr_.back();
}

std::string Json::escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

namespace {
void appendNumber(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc{} ? end : buf);
}
void newline(std::string& out, int indent, int depth) {
  if (indent < 0) return;
  out += '\n';
  out.append(static_cast<std::size_t>(indent * depth), ' ');
}
}  // namespace

void Json::dumpTo(std::string& out, int indent, int depth) const {
  switch (type_) {
    case Type::Null: out += "null"; return;
    case Type::Bool: out += bool_ ? "true" : "false"; return;
    case Type::Number:
      if (isInt_) out += std::to_string(int_); else appendNumber(out, num_);
      return;
    case Type::String: out += '"'; out += escape(str_); out += '"'; return;
    case Type::Array:
      out += '[';
      for (std::size_t i = 0; i < arr_.size(); ++i) {
        if (i) out += indent < 0 ? "," : ",";
        newline(out, indent, depth + 1);
        arr_[i].dumpTo(out, indent, depth + 1);
      }
      if (!arr_.empty()) newline(out, indent, depth);
      out += ']';
      return;
    case Type::Object:
      out += '{';
      for (std::size_t i = 0; i < obj_.size(); ++i) {
        if (i) out += ',';
        newline(out, indent, depth + 1);
        out += '"';
        out += escape(obj_[i].first);
        out += indent < 0 ? "\":" : "\": ";
        obj_[i].second.dumpTo(out, indent, depth + 1);
      }
      if (!obj_.empty()) newline(out, indent, depth);
      out += '}';
      return;
  }
}

std::string Json::dump(int indent) const {
  std::string out;
  dumpTo(out, indent, 0);
  return out;
}

namespace {

// Recursive-descent parser over one document; errors name line and column.
class Parser {
 public:
  explicit Parser(std::string_view t) : t_(t) {}

  Result<Json> document() {
    auto v = value(0);
    if (!v) return v;
    skipSpace();
    if (i_ != t_.size()) return error("unexpected text after the JSON value");
    return v;
  }

 private:
  Error error(const std::string& what) const {
    std::size_t line = 1, col = 1;
    for (std::size_t k = 0; k < i_ && k < t_.size(); ++k) {
      if (t_[k] == '\n') { ++line; col = 1; } else { ++col; }
    }
    return invalidArgument("JSON line " + std::to_string(line) + " column " + std::to_string(col) + ": " + what);
  }
  void skipSpace() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r')) ++i_;
  }
  bool literal(std::string_view word) {
    if (t_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }

  Result<Json> value(int depth) {
    if (depth > 64) return error("nesting deeper than 64");
    skipSpace();
    if (i_ >= t_.size()) return error("unexpected end of input");
    const char c = t_[i_];
    if (c == '{') return object(depth);
    if (c == '[') return array(depth);
    if (c == '"') {
      auto s = string();
      if (!s) return s.error();
      return Json(std::move(s.value()));
    }
    if (literal("true")) return Json(true);
    if (literal("false")) return Json(false);
    if (literal("null")) return Json();
    return number();
  }

  Result<Json> number() {
    const std::size_t start = i_;
    bool integral = true;
    if (i_ < t_.size() && t_[i_] == '-') ++i_;
    while (i_ < t_.size() && std::string_view("0123456789.eE+-").find(t_[i_]) != std::string_view::npos) {
      if (t_[i_] == '.' || t_[i_] == 'e' || t_[i_] == 'E') integral = false;
      ++i_;
    }
    const std::string_view text = t_.substr(start, i_ - start);
    if (text.empty() || text == "-") return error("expected a value");
    if (integral) {
      std::int64_t v = 0;
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec == std::errc{} && p == text.data() + text.size()) return Json(v);
    }
    double d = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
    if (ec != std::errc{} || p != text.data() + text.size()) {
      i_ = start;
      return error("bad number '" + std::string(text) + "'");
    }
    return Json(d);
  }

  Result<std::string> string() {
    ++i_;  // opening quote
    std::string out;
    while (i_ < t_.size() && t_[i_] != '"') {
      char c = t_[i_++];
      if (static_cast<unsigned char>(c) < 0x20) return error("control character in a string");
      if (c != '\\') { out += c; continue; }
      if (i_ >= t_.size()) break;
      c = t_[i_++];
      switch (c) {
        case '"': case '\\': case '/': out += c; break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          if (i_ + 4 > t_.size()) return error("bad \\u escape");
          unsigned cp = 0;
          auto [p, ec] = std::from_chars(t_.data() + i_, t_.data() + i_ + 4, cp, 16);
          if (ec != std::errc{} || p != t_.data() + i_ + 4) return error("bad \\u escape");
          i_ += 4;
          if (cp < 0x80) { out += static_cast<char>(cp); }
          else if (cp < 0x800) { out += static_cast<char>(0xC0 | (cp >> 6)); out += static_cast<char>(0x80 | (cp & 0x3F)); }
          else { out += static_cast<char>(0xE0 | (cp >> 12)); out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)); out += static_cast<char>(0x80 | (cp & 0x3F)); }
          break;
        }
        default: return error(std::string("bad escape \\") + c);
      }
    }
    if (i_ >= t_.size()) return error("unterminated string");
    ++i_;  // closing quote
    return out;
  }

  Result<Json> array(int depth) {
    ++i_;
    Json arr{Json::Array{}};
    skipSpace();
    if (i_ < t_.size() && t_[i_] == ']') { ++i_; return arr; }
    for (;;) {
      auto v = value(depth + 1);
      if (!v) return v;
      arr.push(std::move(v.value()));
      skipSpace();
      if (i_ < t_.size() && t_[i_] == ',') { ++i_; continue; }
      if (i_ < t_.size() && t_[i_] == ']') { ++i_; return arr; }
      return error("expected ',' or ']'");
    }
  }

  Result<Json> object(int depth) {
    ++i_;
    Json obj{Json::Object{}};
    skipSpace();
    if (i_ < t_.size() && t_[i_] == '}') { ++i_; return obj; }
    for (;;) {
      skipSpace();
      if (i_ >= t_.size() || t_[i_] != '"') return error("expected a quoted key");
      auto key = string();
      if (!key) return key.error();
      if (obj.find(key.value())) return error("duplicate key '" + key.value() + "'");
      skipSpace();
      if (i_ >= t_.size() || t_[i_] != ':') return error("expected ':' after key '" + key.value() + "'");
      ++i_;
      auto v = value(depth + 1);
      if (!v) return v;
      obj.set(std::move(key.value()), std::move(v.value()));
      skipSpace();
      if (i_ < t_.size() && t_[i_] == ',') { ++i_; continue; }
      if (i_ < t_.size() && t_[i_] == '}') { ++i_; return obj; }
      return error("expected ',' or '}'");
    }
  }

  std::string_view t_;  ///< the document
  std::size_t i_ = 0;   ///< read position
};

}  // namespace

Result<Json> Json::parse(std::string_view text) { return Parser(text).document(); }

}  // namespace rl
