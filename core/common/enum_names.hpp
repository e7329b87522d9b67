#pragma once
// A table of (enum value, name) pairs drives both printing and parsing of an
// enum, so a flag's spelling lives in exactly one place.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace rl {

/// An enum's names: `{{E::A, "a"}, {E::B, "b"}}`.
template <class E, std::size_t N>
using EnumNames = std::array<std::pair<E, std::string_view>, N>;

/// The value named `s`, or nullopt.
template <class E, std::size_t N>
std::optional<E> enumFromName(const EnumNames<E, N>& table, std::string_view s) {
  for (const auto& [value, name] : table)
    if (name == s) return value;
  return std::nullopt;
}

/// The name of `e` ("?" for a value missing from the table).
template <class E, std::size_t N>
std::string_view enumName(const EnumNames<E, N>& table, E e) {
  for (const auto& [value, name] : table)
    if (value == e) return name;
  return "?";
}

/// "a, b or c": the allowed names, for error messages.
template <class E, std::size_t N>
std::string enumChoices(const EnumNames<E, N>& table) {
  std::string s;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) s += i + 1 == N ? " or " : ", ";
    s += table[i].second;
  }
  return s;
}

}  // namespace rl
