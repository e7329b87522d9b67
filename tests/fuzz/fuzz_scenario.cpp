// libFuzzer: the JSON parser and the scenario reader (core/common/json,
// core/storm/storm_settings). Any text: never a crash or a hang; a scenario
// that loads passes through specToJson and loads again to the same document.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/json.hpp"
#include "storm/storm_settings.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = rl::parseJson(text);
  if (!doc) return 0;
  (void)rl::dumpJson(*doc);
  (void)rl::dumpJson(*doc, 2);
  auto spec = rl::specFromJson(*doc);
  if (!spec) return 0;
  (void)rl::validate(*spec);
  const rl::Json out = rl::specToJson(*spec);
  auto back = rl::specFromJson(out);
  if (!back) __builtin_trap();  // what we write must load
  if (rl::dumpJson(rl::specToJson(*back)) != rl::dumpJson(out)) __builtin_trap();
  return 0;
}
