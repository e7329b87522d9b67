#include "dialects/dialect_text.hpp"

#include <cctype>

#include "common/number_text.hpp"

namespace rl::dialect {

std::string_view trim(std::string_view t) {
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  return t;
}

std::string lower(std::string_view t) {
  std::string s(t);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(sep, start), text.size());
    if (auto part = trim(text.substr(start, end - start)); !part.empty()) parts.push_back(part);
    start = end + 1;
  }
  return parts;
}

std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t j = i;
    while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    if (j > i) out.push_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

Error tokenError(std::string_view dialect, std::string_view token, std::string_view expected) {
  std::string shown(token.substr(0, 80));
  for (char& c : shown)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return invalidArgument(std::string(dialect) + ": '" + shown + "': expected " + std::string(expected));
}

std::optional<std::int64_t> wholeNumber(std::string_view text) {
  std::string digits;
  for (char c : trim(text))
    if (c != '_') digits += c;
  std::int64_t v = 0;
  if (digits.empty() || digits[0] == '-' || digits[0] == '+' || !parseWholeText(std::string_view(digits), v))
    return std::nullopt;
  return v;
}

std::optional<double> decimalNumber(std::string_view text) {
  text = trim(text);
  double v = 0;
  if (text.empty() || text[0] == '-' || text[0] == '+' || !parseWholeText(text, v)) return std::nullopt;
  return v;
}

std::optional<std::int64_t> productOfNumbers(std::string_view text) {
  std::int64_t product = 1;
  for (auto factor : split(text, '*')) {
    auto v = wholeNumber(factor);
    if (!v || (*v != 0 && product > 1'000'000'000'000'000 / *v)) return std::nullopt;
    product *= *v;
  }
  if (split(text, '*').empty()) return std::nullopt;
  return product;
}

std::string_view unquote(std::string_view t) {
  t = trim(t);
  if (t.size() >= 2 && (t.front() == '\'' || t.front() == '"' || t.front() == '`') && t.back() == t.front())
    return t.substr(1, t.size() - 2);
  return t;
}

std::string windowPhrase(Micros window) {
  const std::int64_t ms = window.count() / 1000;
  if (ms % 3'600'000 == 0) return std::to_string(ms / 3'600'000) + " h";
  if (ms % 60'000 == 0) return std::to_string(ms / 60'000) + " min";
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms) + " ms";
}

}  // namespace rl::dialect
