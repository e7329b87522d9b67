#include "common/json.hpp"

namespace rl {
namespace {

// Line and column (1-based) of byte `offset` in `text`.
std::string position(std::string_view text, std::size_t offset) {
  std::size_t line = 1, col = 1;
  for (std::size_t k = 0; k < offset && k < text.size(); ++k) {
    if (text[k] == '\n') {
      line += 1;
      col = 1;
    } else {
      col += 1;
    }
  }
  return "JSON line " + std::to_string(line) + " column " + std::to_string(col);
}

// nlohmann's message after its "[json.exception...] parse error at ...: " preamble.
std::string reason(const std::string& what) {
  const auto colon = what.find(": ");
  std::string r = colon == std::string::npos ? what : what.substr(colon + 2);
  for (const std::string_view noise : {"syntax error while parsing value - ", "syntax error while parsing object - ",
                                       "syntax error while parsing array - ", "syntax error while parsing object key - "})
    if (r.rfind(noise, 0) == 0) r.erase(0, noise.size());
  return r;
}

}  // namespace

Result<Json> parseJson(std::string_view text) {
  struct TooDeep {};
  const Json::parser_callback_t limitDepth = [](int depth, Json::parse_event_t event, Json&) {
    if ((event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start) &&
        depth >= kJsonMaxDepth)
      throw TooDeep{};  // stops the parse at once, before the rest is read
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), limitDepth);
  } catch (const TooDeep&) {
    return invalidArgument("JSON: nesting deeper than " + std::to_string(kJsonMaxDepth) + " levels is not allowed");
  } catch (const Json::parse_error& e) {
    const std::size_t at = e.byte > 0 ? e.byte - 1 : 0;
    return invalidArgument(position(text, at) + ": " + reason(e.what()));
  } catch (const Json::exception& e) {  // e.g. a number out of range (1e400)
    return invalidArgument("JSON: " + reason(e.what()) + ": allowed numbers within a double's range");
  }
}

std::string dumpJson(const Json& value, int indent) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace rl
