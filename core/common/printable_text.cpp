#include "common/printable_text.hpp"

#include <cstdint>

namespace rl {

namespace {

// The length of the valid UTF-8 sequence of a printable code point (>= U+00A0) at s[i], else 0.
std::size_t printableUtf8(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char lead = b(0);
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if (lead >= 0xC2 && lead <= 0xDF) n = 2, cp = lead & 0x1Fu;
  else if (lead >= 0xE0 && lead <= 0xEF) n = 3, cp = lead & 0x0Fu;
  else if (lead >= 0xF0 && lead <= 0xF4) n = 4, cp = lead & 0x07u;
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0u) != 0x80u) return 0;
    cp = (cp << 6) | (b(k) & 0x3Fu);
  }
  const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  const bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
  if (overlong || surrogate || cp > 0x10FFFF || cp < 0xA0) return 0;
  return n;
}

}  // namespace

std::string printableText(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (const std::size_t n = c >= 0x80 ? printableUtf8(s, i) : 0; n > 0) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 0xF];
    ++i;
  }
  return out;
}

}  // namespace rl
