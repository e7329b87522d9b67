#include "redis/lua_scripts.hpp"

#include <array>

#include "redis/embedded_scripts.hpp"

namespace rl {

namespace {
std::array<std::string, kAllAlgorithms.size()> buildScripts() {
  std::array<std::string, kAllAlgorithms.size()> out;
  const std::string prelude(embeddedScript("prelude").value_or(""));
  for (Algorithm a : kAllAlgorithms) {
    const auto body = embeddedScript(algorithmName(a));
    out[static_cast<std::size_t>(a)] = prelude + "\n" + std::string(body.value_or(""));
  }
  return out;
}
}  // namespace

const std::string& luaScript(Algorithm a) {
  static const auto scripts = buildScripts();
  return scripts[static_cast<std::size_t>(a)];
}

}  // namespace rl
