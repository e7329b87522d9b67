#include "http/structured_fields.hpp"

#include <charconv>

namespace rl {
namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isLcAlpha(char c) { return c >= 'a' && c <= 'z'; }
bool isAlpha(char c) { return isLcAlpha(c) || (c >= 'A' && c <= 'Z'); }
bool isTchar(char c) {
  return isAlpha(c) || isDigit(c) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}
bool isBase64(char c) { return isAlpha(c) || isDigit(c) || c == '+' || c == '/' || c == '='; }

// A cursor over the field; each parse function consumes what it read.
struct Reader {
  std::string_view s;
  std::size_t at = 0;

  bool done() const { return at >= s.size(); }
  char peek() const { return done() ? '\0' : s[at]; }
  void skipSp() { while (peek() == ' ') ++at; }
  void skipOws() { while (peek() == ' ' || peek() == '\t') ++at; }
  Error bad(const std::string& what) const {
    return invalidArgument("structured field: " + what + " at offset " + std::to_string(at));
  }
};

Result<SfBare> number(Reader& r) {
  const std::size_t begin = r.at;
  if (r.peek() == '-') ++r.at;
  std::size_t digits = 0, dot = std::string_view::npos;
  while (isDigit(r.peek()) || (r.peek() == '.' && dot == std::string_view::npos)) {
    if (r.peek() == '.') dot = digits;
    else ++digits;
    ++r.at;
  }
  const auto text = r.s.substr(begin, r.at - begin);
  SfBare b;
  if (digits == 0 || (dot == std::string_view::npos && digits > 15) || (dot != std::string_view::npos && (dot > 12 || digits - dot > 3 || digits == dot)))
    return r.bad("malformed number '" + std::string(text) + "'");
  if (dot == std::string_view::npos) {
    b.kind = SfBare::Kind::Integer;
    std::from_chars(text.data(), text.data() + text.size(), b.integer);
  } else {
    b.kind = SfBare::Kind::Decimal;
    std::from_chars(text.data(), text.data() + text.size(), b.decimal);
  }
  return b;
}

Result<SfBare> string(Reader& r) {
  ++r.at;  // the opening quote
  SfBare b;
  b.kind = SfBare::Kind::String;
  while (!r.done()) {
    const char c = r.s[r.at++];
    if (c == '"') return b;
    if (c == '\\') {
      const char e = r.peek();
      if (e != '"' && e != '\\') return r.bad("bad escape in a string");
      b.text.push_back(e);
      ++r.at;
    } else if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) {
      return r.bad("control or non-ASCII character in a string");
    } else {
      b.text.push_back(c);
    }
  }
  return r.bad("unterminated string");
}

Result<SfBare> bareItem(Reader& r) {
  const char c = r.peek();
  if (c == '-' || isDigit(c)) return number(r);
  if (c == '"') return string(r);
  SfBare b;
  if (c == '?') {
    const char v = r.at + 1 < r.s.size() ? r.s[r.at + 1] : '\0';
    if (v != '0' && v != '1') return r.bad("boolean must be ?0 or ?1");
    b.kind = SfBare::Kind::Boolean;
    b.integer = v - '0';
    r.at += 2;
    return b;
  }
  if (c == ':') {
    const auto end = r.s.find(':', r.at + 1);
    if (end == std::string_view::npos) return r.bad("unterminated byte sequence");
    b.kind = SfBare::Kind::Bytes;
    b.text = std::string(r.s.substr(r.at + 1, end - r.at - 1));
    for (char x : b.text)
      if (!isBase64(x)) return r.bad("byte sequence is not base64");
    r.at = end + 1;
    return b;
  }
  if (isAlpha(c) || c == '*') {
    b.kind = SfBare::Kind::Token;
    const std::size_t begin = r.at;
    while (isTchar(r.peek()) || r.peek() == ':' || r.peek() == '/') ++r.at;
    b.text = std::string(r.s.substr(begin, r.at - begin));
    return b;
  }
  return r.bad("expected an item");
}

Result<std::string> key(Reader& r) {
  const char c = r.peek();
  if (!isLcAlpha(c) && c != '*') return r.bad("expected a lowercase key");
  const std::size_t begin = r.at;
  while (isLcAlpha(r.peek()) || isDigit(r.peek()) || r.peek() == '_' || r.peek() == '-' || r.peek() == '.' ||
         r.peek() == '*')
    ++r.at;
  return std::string(r.s.substr(begin, r.at - begin));
}

Result<void> parameters(Reader& r, std::vector<SfParam>& out) {
  while (r.peek() == ';') {
    ++r.at;
    r.skipSp();
    auto k = key(r);
    if (!k) return k.error();
    SfParam p{std::move(*k), {}};
    p.value.kind = SfBare::Kind::Boolean;
    p.value.integer = 1;
    if (r.peek() == '=') {
      ++r.at;
      auto v = bareItem(r);
      if (!v) return v.error();
      p.value = std::move(*v);
    }
    out.push_back(std::move(p));
  }
  return {};
}

Result<SfItem> member(Reader& r) {
  SfItem item;
  if (r.peek() == '(') {
    ++r.at;
    item.innerList = true;
    for (;;) {
      r.skipSp();
      if (r.peek() == ')') break;
      SfItem inner;
      auto v = bareItem(r);
      if (!v) return v.error();
      inner.value = std::move(*v);
      if (auto p = parameters(r, inner.params); !p) return p.error();
      item.inner.push_back(std::move(inner));
      if (r.peek() != ' ' && r.peek() != ')') return r.bad("expected a space or ) in an inner list");
    }
    ++r.at;
  } else {
    auto v = bareItem(r);
    if (!v) return v.error();
    item.value = std::move(*v);
  }
  if (auto p = parameters(r, item.params); !p) return p.error();
  return item;
}

// After a member: end of field, or OWS "," OWS and another member.
Result<bool> nextMember(Reader& r) {
  r.skipOws();
  if (r.done()) return false;
  if (r.peek() != ',') return r.bad("expected ','");
  ++r.at;
  r.skipOws();
  if (r.done()) return r.bad("trailing ','");
  return true;
}

}  // namespace

std::optional<std::int64_t> SfBare::asInteger() const {
  if (kind == Kind::Integer) return integer;
  if (kind == Kind::Decimal) return static_cast<std::int64_t>(decimal);
  return std::nullopt;
}

const SfBare* SfItem::param(std::string_view k) const {
  for (const auto& p : params)
    if (p.key == k) return &p.value;
  return nullptr;
}

Result<SfList> parseSfList(std::string_view field) {
  Reader r{field};
  SfList out;
  r.skipSp();
  while (!r.done()) {
    auto m = member(r);
    if (!m) return m.error();
    out.push_back(std::move(*m));
    auto more = nextMember(r);
    if (!more) return more.error();
    if (!*more) break;
  }
  return out;
}

Result<SfDictionary> parseSfDictionary(std::string_view field) {
  Reader r{field};
  SfDictionary out;
  r.skipSp();
  while (!r.done()) {
    auto k = key(r);
    if (!k) return k.error();
    SfItem item;
    if (r.peek() == '=') {
      ++r.at;
      auto m = member(r);
      if (!m) return m.error();
      item = std::move(*m);
    } else {
      item.value.kind = SfBare::Kind::Boolean;
      item.value.integer = 1;
      if (auto p = parameters(r, item.params); !p) return p.error();
    }
    std::erase_if(out, [&](const auto& e) { return e.first == *k; });
    out.emplace_back(std::move(*k), std::move(item));
    auto more = nextMember(r);
    if (!more) return more.error();
    if (!*more) break;
  }
  return out;
}

}  // namespace rl
