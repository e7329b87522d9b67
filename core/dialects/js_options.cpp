#include "dialects/js_options.hpp"

#include "dialects/dialect_text.hpp"

namespace rl::dialect {

namespace {
// `text` without // and /* */ comments (strings kept).
std::string withoutComments(std::string_view text) {
  std::string out;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      else if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"' || c == '`') {
      quote = c;
      out += c;
    } else if (text.substr(i, 2) == "//") {
      while (i < text.size() && text[i] != '\n') ++i;
      out += '\n';
    } else if (text.substr(i, 2) == "/*") {
      const std::size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 1;
    } else {
      out += c;
    }
  }
  return out;
}

// Splits `body` on top-level commas (outside brackets and strings).
std::vector<std::string> topLevelParts(std::string_view body) {
  std::vector<std::string> parts(1);
  int depth = 0;
  char quote = 0;
  for (char c : body) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"' || c == '`') {
      quote = c;
    } else if (c == '{' || c == '(' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ')' || c == ']') {
      --depth;
    } else if (c == ',' && depth == 0) {
      parts.emplace_back();
      continue;
    }
    parts.back() += c;
  }
  return parts;
}
}  // namespace

Result<std::vector<JsOption>> jsOptions(std::string_view dialect, std::string_view text) {
  const std::string clean = withoutComments(text);
  std::string_view body = clean;
  if (const auto open = body.find('{'); open != std::string_view::npos) {
    int depth = 0;
    std::size_t close = std::string_view::npos;
    for (std::size_t i = open; i < body.size() && close == std::string_view::npos; ++i) {
      if (body[i] == '{') ++depth;
      if (body[i] == '}' && --depth == 0) close = i;
    }
    if (close == std::string_view::npos) return tokenError(dialect, body.substr(open, 40), "a closing } of the options object");
    body = body.substr(open + 1, close - open - 1);
  }
  std::vector<JsOption> out;
  for (const std::string& part : topLevelParts(body)) {
    const std::string_view p = trim(part);
    if (p.empty()) continue;
    const auto colon = p.find(':');
    if (colon == std::string_view::npos) return tokenError(dialect, p, "key: value");
    const std::string_view key = unquote(p.substr(0, colon));
    if (key.empty()) return tokenError(dialect, p, "key: value with a key");
    out.push_back({std::string(key), std::string(trim(p.substr(colon + 1)))});
  }
  return out;
}

std::string jsCallee(std::string_view text) {
  const std::string clean = withoutComments(text);
  const auto open = clean.find('{');
  if (open == std::string::npos) return {};
  std::string_view before = trim(std::string_view(clean).substr(0, open));
  if (const auto eq = before.rfind('='); eq != std::string_view::npos) before = trim(before.substr(eq + 1));
  return std::string(before);
}

}  // namespace rl::dialect
